/// Turns template source into nodes in two passes: a scanner that splits the source into
/// tokens line by line and applies the standalone-line rules, then a tree builder that pairs
/// sections with their closing tags.
struct Parser {
  /// Deeper section nesting is an error rather than a risk to the stack.
  static let maximumDepth = 256

  let source: [UInt8]
  let templateName: String
  let escaping: Escaping
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

  private struct Scanner {
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
