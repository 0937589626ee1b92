/// The state of one render: the context stack and the partials in use.
struct Renderer {
  /// Deeper nesting of sections and partials (endless recursion) is an error, not a crash.
  static let maximumDepth = 256

  let resolver: (any PartialResolver)?
  let policy: MissingPartialPolicy
  var stack: [MustacheValue]
  var depth = 0

  init(resolver: (any PartialResolver)?, policy: MissingPartialPolicy, root: MustacheValue) {
    self.resolver = resolver
    self.policy = policy
    stack = [root]
  }

  /// Renders `nodes`.
  ///
  /// - Parameters:
  ///   - nodes: The nodes to render.
  ///   - indent: Prepended to each line: the indentation of the standalone partials and
  ///     blocks the nodes are expanded into.
  ///   - blocks: The block arguments in force, by name.
  ///   - output: Where the rendered bytes are appended.
  ///   - location: The tag that led here, for the nesting error.
  /// - Throws: ``TemplateError`` for a missing partial (when strict) or too deep nesting.
  mutating func render(
    _ nodes: [Node], indent: [UInt8], blocks: [String: Block], into output: inout [UInt8],
    location: Location
  ) throws {
    depth += 1
    defer { depth -= 1 }
    if depth > Self.maximumDepth {
      throw TemplateError(
        .nestedTooDeeply(limit: Self.maximumDepth), template: location.template,
        line: location.line, column: location.column)
    }
    for node in nodes {
      switch node {
      case .text(let bytes):
        output.append(contentsOf: bytes)
      case .lineStart:
        if !indent.isEmpty { output.append(contentsOf: indent) }
      case .variable(let name, let escaping):
        if let value = lookUp(name) { interpolate(value, escaping: escaping, into: &output) }
      case .section(let section):
        try render(section, indent: indent, blocks: blocks, into: &output)
      case .partial(let call):
        try expand(call, indent: indent, blocks: blocks, into: &output)
      case .parent(let parent):
        // Arguments from further out win: the outermost template has the last word.
        var arguments = blocks
        for (name, block) in parent.arguments where arguments[name] == nil {
          arguments[name] = block
        }
        try expand(parent.call, indent: indent, blocks: arguments, into: &output)
      case .block(let block):
        let argument = blocks[block.name]
        let content = argument?.nodes ?? block.nodes
        guard block.isStandalone else {
          try render(content, indent: indent, blocks: blocks, into: &output, location: location)
          continue
        }
        let blockIndent = indent + block.indent
        // An argument written inline starts mid-line, so its first line gets no indentation
        // from a line start of its own.
        if let argument, !argument.isStandalone, !content.isEmpty {
          output.append(contentsOf: blockIndent)
        }
        try render(content, indent: blockIndent, blocks: blocks, into: &output, location: location)
      }
    }
  }

  private mutating func render(
    _ section: Section, indent: [UInt8], blocks: [String: Block], into output: inout [UInt8]
  ) throws {
    let value = lookUp(section.name) ?? .null
    if section.isInverted {
      if !value.isTruthy {
        try render(
          section.nodes, indent: indent, blocks: blocks, into: &output, location: section.location)
      }
      return
    }
    if case .array(let items) = value {
      for item in items {
        stack.append(item)
        try render(
          section.nodes, indent: indent, blocks: blocks, into: &output, location: section.location)
        stack.removeLast()
      }
    } else if case .list(let list) = value {
      for index in 0..<list.count {
        stack.append(list[index])
        try render(
          section.nodes, indent: indent, blocks: blocks, into: &output, location: section.location)
        stack.removeLast()
      }
    } else if value.isTruthy {
      stack.append(value)
      try render(
        section.nodes, indent: indent, blocks: blocks, into: &output, location: section.location)
      stack.removeLast()
    }
  }

  private mutating func expand(
    _ call: PartialCall, indent: [UInt8], blocks: [String: Block], into output: inout [UInt8]
  ) throws {
    var name = call.name
    if let dynamicName = call.dynamicName {
      // An unresolved dynamic name renders nothing, even when strict.
      guard let value = lookUp(dynamicName) else { return }
      name = value.interpolatedText
      if name.isEmpty { return }
    }
    guard let template = try resolver?.partial(named: name, includedFrom: call.location.template)
    else {
      if policy == .throwError {
        throw TemplateError(
          .missingPartial(name), template: call.location.template, line: call.location.line,
          column: call.location.column)
      }
      return
    }
    try render(
      template.nodes, indent: call.indent.isEmpty ? indent : indent + call.indent, blocks: blocks,
      into: &output, location: call.location)
  }

  /// Resolves a name against the context stack, as the spec's interpolation rules say.
  func lookUp(_ name: Name) -> MustacheValue? {
    guard let first = name.parts.first else { return stack.last }
    for frame in stack.reversed() {
      guard var value = frame.member(first) else { continue }
      for part in name.parts.dropFirst() {
        guard let next = value.member(part) else { return nil }
        value = next
      }
      return value
    }
    return nil
  }

  private func interpolate(
    _ value: MustacheValue, escaping: Escaping, into output: inout [UInt8]
  ) {
    switch value {
    case .null, .object, .computed:
      break
    case .string(let text):
      escaping.append(text, to: &output)
    default:
      escaping.append(value.interpolatedText, to: &output)
    }
  }
}
