/// Turns template source into nodes in two passes: a scanner that splits the source into
/// tokens line by line and applies the standalone-line rules, then a tree builder that pairs
/// sections with their closing tags.
struct Parser {
  /// Deeper section nesting is an error rather than a risk to the stack.
  static let maximumDepth = 256

  private let source: [UInt8]
  private let templateName: String
  private let escaping: Escaping
  /// The byte offset where each source line starts, for error locations.
  private let lineOffsets: [Int]

  init(source: [UInt8], templateName: String, escaping: Escaping) {
    self.source = source
    self.templateName = templateName
    self.escaping = escaping
    var offsets = [0]
    for (offset, byte) in source.enumerated() where byte == 0x0A {
      offsets.append(offset + 1)
    }
    lineOffsets = offsets
  }

  func parse() throws(TemplateError) -> [Node] {
    var scanner = Scanner(parser: self)
    try scanner.scan()
    return try buildTree(scanner.tokens)
  }

  // MARK: - Tokens

  enum TokenKind: Equatable {
    case text
    case lineStart
    case variable(escaped: Bool)
    case section(inverted: Bool)
    case parent
    case block
    case close
    case partial
    /// A comment or a set-delimiter tag: nothing to render.
    case ignored
  }

  struct Token {
    var kind: TokenKind
    /// The source range of the text or of the whole tag.
    var start: Int
    var end: Int
    /// The tag's content: trimmed, without its sigil; a dynamic name keeps its `*`.
    var name = ""
    /// For a closing tag: the kind of tag it closes (from the scanner's own stack).
    var closes: TokenKind?
    /// The line holding this tag is removed from the output (a standalone line).
    var removesLine = false
    /// A standalone partial, parent or block: its indentation applies to what it expands to.
    var isStandalone = false
    /// The whitespace before a standalone tag.
    var indent: [UInt8] = []
    /// For an opening tag: where its content starts.
    var contentStart = 0
    /// For a closing tag: where the content it closes ends.
    var contentEnd = 0
  }

  // MARK: - Scanner

  struct Scanner {
    let parser: Parser
    var tokens: [Token] = []
    var openDelimiter: [UInt8] = Array("{{".utf8)
    var closeDelimiter: [UInt8] = Array("}}".utf8)
    /// The kinds of the open sections, to tell what a closing tag closes.
    var openKinds: [TokenKind] = []

    init(parser: Parser) {
      self.parser = parser
    }

    var source: [UInt8] { parser.source }

    mutating func scan() throws(TemplateError) {
      var line: [Token] = []
      var lineBegin = 0
      var position = 0
      let count = source.count
      while position < count {
        var index = position
        var foundTag = false
        while index < count {
          if source[index] == 0x0A { break }
          if matches(openDelimiter, at: index) {
            foundTag = true
            break
          }
          index += 1
        }
        if foundTag {
          if position < index { line.append(Token(kind: .text, start: position, end: index)) }
          let tag = try scanTag(at: index)
          line.append(tag)
          position = tag.end
        } else if index < count {
          line.append(Token(kind: .text, start: position, end: index + 1))
          finishLine(&line, begin: lineBegin, end: index + 1)
          position = index + 1
          lineBegin = position
        } else {
          if position < index { line.append(Token(kind: .text, start: position, end: index)) }
          position = index
        }
      }
      if !line.isEmpty { finishLine(&line, begin: lineBegin, end: count) }
    }

    func matches(_ delimiter: [UInt8], at index: Int) -> Bool {
      guard index + delimiter.count <= source.count else { return false }
      for offset in 0..<delimiter.count where source[index + offset] != delimiter[offset] {
        return false
      }
      return true
    }

    func find(_ needle: [UInt8], from start: Int) -> Int? {
      guard let first = needle.first, needle.count <= source.count else { return nil }
      var index = start
      while index + needle.count <= source.count {
        if source[index] == first && matches(needle, at: index) { return index }
        index += 1
      }
      return nil
    }

    mutating func scanTag(at tagStart: Int) throws(TemplateError) -> Token {
      let afterOpen = tagStart + openDelimiter.count
      let sigil: UInt8? = afterOpen < source.count ? source[afterOpen] : nil
      var closing = closeDelimiter
      var contentStart = afterOpen
      switch sigil {
      case UInt8(ascii: "{"):
        closing = [UInt8(ascii: "}")] + closeDelimiter
        contentStart += 1
      case UInt8(ascii: "="):
        closing = [UInt8(ascii: "=")] + closeDelimiter
        contentStart += 1
      case UInt8(ascii: "#"), UInt8(ascii: "^"), UInt8(ascii: "/"), UInt8(ascii: "!"),
        UInt8(ascii: ">"), UInt8(ascii: "<"), UInt8(ascii: "$"), UInt8(ascii: "&"):
        contentStart += 1
      default:
        break
      }
      guard let contentEnd = find(closing, from: contentStart) else {
        throw parser.error(
          .unclosedTag(expected: String(decoding: closing, as: UTF8.self)), at: tagStart)
      }
      let tagEnd = contentEnd + closing.count
      let content = trimmed(contentStart, contentEnd)
      var token = Token(kind: .ignored, start: tagStart, end: tagEnd)
      token.contentStart = tagEnd
      token.contentEnd = tagStart

      func requireName() throws(TemplateError) {
        if token.name.isEmpty || token.name == "*" {
          let tag = String(decoding: source[tagStart..<tagEnd], as: UTF8.self)
          throw parser.error(.emptyTagName(tag), at: tagStart)
        }
      }

      switch sigil {
      case UInt8(ascii: "!"):
        break
      case UInt8(ascii: "="):
        try changeDelimiters(content, tagStart: tagStart, tagEnd: tagEnd)
      case UInt8(ascii: "{"), UInt8(ascii: "&"):
        token.kind = .variable(escaped: false)
        token.name = content
        try requireName()
      case UInt8(ascii: "#"), UInt8(ascii: "^"):
        token.kind = .section(inverted: sigil == UInt8(ascii: "^"))
        token.name = content
        try requireName()
        openKinds.append(token.kind)
      case UInt8(ascii: "<"), UInt8(ascii: "$"):
        token.kind = sigil == UInt8(ascii: "<") ? .parent : .block
        token.name = normalizedDynamicName(content)
        try requireName()
        openKinds.append(token.kind)
      case UInt8(ascii: "/"):
        token.kind = .close
        token.name = normalizedDynamicName(content)
        try requireName()
        token.closes = openKinds.popLast()
      case UInt8(ascii: ">"):
        token.kind = .partial
        token.name = normalizedDynamicName(content)
        try requireName()
      default:
        token.kind = .variable(escaped: true)
        token.name = content
        try requireName()
      }
      return token
    }

    /// `* name` and `*name` are the same dynamic name.
    func normalizedDynamicName(_ content: String) -> String {
      guard content.hasPrefix("*") else { return content }
      let rest = content.dropFirst().drop(while: { $0 == " " || $0 == "\t" })
      return "*" + rest
    }

    func trimmed(_ start: Int, _ end: Int) -> String {
      var start = start
      var end = end
      while start < end, isWhitespace(source[start]) { start += 1 }
      while end > start, isWhitespace(source[end - 1]) { end -= 1 }
      return String(decoding: source[start..<end], as: UTF8.self)
    }

    func isWhitespace(_ byte: UInt8) -> Bool {
      byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    mutating func changeDelimiters(
      _ content: String, tagStart: Int, tagEnd: Int
    ) throws(TemplateError) {
      let parts = Array(content.utf8).split(whereSeparator: isWhitespace)
      guard parts.count == 2, !parts[0].contains(UInt8(ascii: "=")),
        !parts[1].contains(UInt8(ascii: "="))
      else {
        let tag = String(decoding: source[tagStart..<tagEnd], as: UTF8.self)
        throw parser.error(.badDelimiters(tag), at: tagStart)
      }
      openDelimiter = Array(parts[0])
      closeDelimiter = Array(parts[1])
    }

    // MARK: Standalone lines

    /// Applies the standalone rules to one line's tokens and moves them to `tokens`.
    ///
    /// A line holding one non-interpolating tag and whitespace is removed. So is a line holding
    /// a parent's opening tag followed by its first block's, the last block's closing tag
    /// followed by the parent's, or a parent's opening and closing tags. A line holding an
    /// empty block's opening and closing tags loses its indentation (which the block's content
    /// gets instead) but keeps its line break.
    mutating func finishLine(_ line: inout [Token], begin: Int, end: Int) {
      defer { line.removeAll(keepingCapacity: true) }
      let tagIndices = line.indices.filter { line[$0].kind != .text }
      let textIsBlank = line.allSatisfy { $0.kind != .text || isBlank($0) }
      var removes = false
      var keepsLineBreak = false
      if textIsBlank && tagIndices.count == 1 {
        if case .variable = line[tagIndices[0]].kind {
        } else {
          removes = true
        }
      } else if textIsBlank && tagIndices.count == 2 {
        let first = line[tagIndices[0]]
        let second = line[tagIndices[1]]
        if first.end == second.start {
          switch (first.kind, second.kind) {
          case (.parent, .block): removes = true
          case (.close, .close): removes = first.closes == .block && second.closes == .parent
          case (.parent, .close): removes = second.closes == .parent
          case (.block, .close): keepsLineBreak = second.closes == .block
          default: break
          }
        }
      }
      guard removes || keepsLineBreak else {
        tokens.append(Token(kind: .lineStart, start: begin, end: begin))
        tokens.append(contentsOf: line)
        return
      }
      let firstTag = tagIndices[0]
      let indent = firstTag > 0 ? Array(source[line[0].start..<line[firstTag].start]) : []
      if keepsLineBreak {
        var block = line[firstTag]
        block.isStandalone = true
        block.indent = indent
        tokens.append(block)
        tokens.append(contentsOf: line[(firstTag + 1)...])
        return
      }
      for (position, index) in tagIndices.enumerated() {
        var tag = line[index]
        tag.removesLine = true
        if position == 0 {
          tag.isStandalone = true
          tag.indent = indent
        } else if tag.kind == .block {
          tag.isStandalone = true
        }
        tag.contentStart = end
        tag.contentEnd = begin
        tokens.append(tag)
      }
    }

    /// Whether a text token is only spaces and tabs, up to an optional line ending.
    func isBlank(_ token: Token) -> Bool {
      var end = token.end
      if end > token.start, source[end - 1] == 0x0A {
        end -= 1
        if end > token.start, source[end - 1] == 0x0D { end -= 1 }
      }
      for index in token.start..<end where source[index] != 0x20 && source[index] != 0x09 {
        return false
      }
      return true
    }
  }

  // MARK: - Tree

  private struct Frame {
    var opener: Token
    var nodes: [Node] = []
  }

  private func buildTree(_ tokens: [Token]) throws(TemplateError) -> [Node] {
    var stack = [Frame(opener: Token(kind: .ignored, start: 0, end: 0))]
    for token in tokens {
      switch token.kind {
      case .text:
        let bytes = source[token.start..<token.end]
        if case .text(let previous) = stack[stack.count - 1].nodes.last {
          stack[stack.count - 1].nodes[stack[stack.count - 1].nodes.count - 1] = .text(
            previous + bytes)
        } else {
          stack[stack.count - 1].nodes.append(.text(Array(bytes)))
        }
      case .lineStart:
        stack[stack.count - 1].nodes.append(.lineStart)
      case .variable(let escaped):
        stack[stack.count - 1].nodes.append(
          .variable(Name(token.name), escaped ? escaping : .none))
      case .partial:
        stack[stack.count - 1].nodes.append(.partial(partialCall(token)))
      case .section, .parent, .block:
        if stack.count > Self.maximumDepth {
          throw error(.nestedTooDeeply(limit: Self.maximumDepth), at: token.start)
        }
        stack.append(Frame(opener: token))
      case .close:
        guard stack.count > 1, let frame = stack.popLast() else {
          throw error(.unopenedClosingTag(token.name), at: token.start)
        }
        guard frame.opener.name == token.name else {
          throw error(
            .mismatchedClosingTag(closing: token.name, open: frame.opener.name), at: token.start)
        }
        stack[stack.count - 1].nodes.append(node(for: frame, closedBy: token))
      case .ignored:
        break
      }
    }
    if stack.count > 1, let open = stack.last {
      throw error(.unclosedSection(open.opener.name), at: open.opener.start)
    }
    return stack[0].nodes
  }

  private func node(for frame: Frame, closedBy closing: Token) -> Node {
    let opener = frame.opener
    switch opener.kind {
    case .section(let inverted):
      return .section(
        Section(
          name: Name(opener.name), isInverted: inverted, nodes: frame.nodes,
          location: location(of: opener.start)))
    case .parent:
      var arguments: [String: Block] = [:]
      for case .block(let block) in frame.nodes where arguments[block.name] == nil {
        arguments[block.name] = block
      }
      return .parent(ParentCall(call: partialCall(opener), arguments: arguments))
    default:
      guard opener.isStandalone else {
        return .block(Block(name: opener.name, nodes: frame.nodes, isStandalone: false, indent: []))
      }
      // A standalone block's content loses its common indentation here and gets the
      // indentation of the place it is expanded into.
      var nodes = frame.nodes
      let start = opener.contentStart
      let end = max(start, closing.contentEnd)
      let prefix = commonIndentation(start, end)
      Self.dedent(&nodes, by: prefix.count)
      return .block(
        Block(
          name: opener.name, nodes: nodes, isStandalone: true,
          indent: prefix.isEmpty ? opener.indent : prefix))
    }
  }

  private func partialCall(_ token: Token) -> PartialCall {
    let isDynamic = token.name.hasPrefix("*")
    let name = isDynamic ? String(token.name.dropFirst()) : token.name
    return PartialCall(
      name: name, dynamicName: isDynamic ? Name(name) : nil,
      indent: token.isStandalone ? token.indent : [], location: location(of: token.start))
  }

  /// The longest run of spaces and tabs that starts every non-blank line in `start..<end`.
  private func commonIndentation(_ start: Int, _ end: Int) -> [UInt8] {
    var common: [UInt8]?
    var lineStart = start
    while lineStart < end {
      var lineEnd = lineStart
      while lineEnd < end, source[lineEnd] != 0x0A { lineEnd += 1 }
      var contentStart = lineStart
      while contentStart < lineEnd, source[contentStart] == 0x20 || source[contentStart] == 0x09 {
        contentStart += 1
      }
      let isBlank =
        contentStart == lineEnd || (contentStart + 1 == lineEnd && source[contentStart] == 0x0D)
      if !isBlank {
        let indentation = source[lineStart..<contentStart]
        if let current = common {
          common = Array(zip(current, indentation).prefix(while: { $0 == $1 }).map(\.0))
        } else {
          common = Array(indentation)
        }
      }
      lineStart = lineEnd + 1
    }
    return common ?? []
  }

  /// Removes up to `count` leading spaces and tabs from each line of `nodes`.
  private static func dedent(_ nodes: inout [Node], by count: Int) {
    guard count > 0 else { return }
    var afterLineStart = false
    for index in nodes.indices {
      switch nodes[index] {
      case .lineStart:
        afterLineStart = true
        continue
      case .text(let bytes) where afterLineStart:
        var drop = 0
        while drop < count, drop < bytes.count, bytes[drop] == 0x20 || bytes[drop] == 0x09 {
          drop += 1
        }
        nodes[index] = .text(Array(bytes[drop...]))
      case .section(var section):
        dedent(&section.nodes, by: count)
        nodes[index] = .section(section)
      case .partial(var call):
        call.indent = Array(call.indent.dropFirst(count))
        nodes[index] = .partial(call)
      case .parent(var parent):
        parent.call.indent = Array(parent.call.indent.dropFirst(count))
        for (name, argument) in parent.arguments {
          parent.arguments[name] = dedented(argument, by: count)
        }
        nodes[index] = .parent(parent)
      case .block(let block):
        nodes[index] = .block(dedented(block, by: count))
      case .text, .variable:
        break
      }
      afterLineStart = false
    }
  }

  private static func dedented(_ block: Block, by count: Int) -> Block {
    var block = block
    // A standalone block already removed its own indentation, which includes this one.
    if block.isStandalone {
      block.indent = Array(block.indent.dropFirst(count))
    } else {
      dedent(&block.nodes, by: count)
    }
    return block
  }

  // MARK: - Locations

  func location(of offset: Int) -> Location {
    var low = 0
    var high = lineOffsets.count - 1
    while low < high {
      let middle = (low + high + 1) / 2
      if lineOffsets[middle] <= offset { low = middle } else { high = middle - 1 }
    }
    var column = 1
    var index = lineOffsets[low]
    while index < offset && index < source.count {
      if source[index] & 0xC0 != 0x80 { column += 1 }
      index += 1
    }
    return Location(template: templateName, line: low + 1, column: column)
  }

  func error(_ kind: TemplateError.Kind, at offset: Int) -> TemplateError {
    let location = location(of: offset)
    return TemplateError(
      kind, template: templateName, line: location.line, column: location.column)
  }
}
