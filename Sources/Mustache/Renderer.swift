/// The state of one render: the context stack, the indentation and block arguments in force,
/// and the partials in use.
struct Renderer {
  /// Deeper nesting of sections and partials (endless recursion) is an error, not a crash.
  static let maximumDepth = 256

  /// The tag that led to a render, for the nesting error. The program is kept alive by the
  /// render that is under way, so it is not retained here.
  struct Origin {
    var program: Unmanaged<Program>
    var line: Int32
    var column: Int32
  }

  /// A parent call in force: its program and index in the program's `parents`.
  private struct ArgumentFrame {
    var program: Program
    var parent: Int32
  }

  /// A partial the resolver returned in this render, for the same name from the same template.
  private struct ResolvedPartial {
    /// For a static name, the program whose call asked; nil for a dynamic name. Every program
    /// rendered stays alive until the render ends (the root's template holds it, or `program`
    /// here), so its identity is not reused.
    var caller: ObjectIdentifier?
    var call: Int32
    var includer: String
    var name: String
    /// Holds the partial's program for the rest of the render.
    var program: Program?
    /// The same program, to hand out without retaining it.
    var unretained: Unmanaged<Program>?
  }

  let resolver: (any PartialResolver)?
  let policy: MissingPartialPolicy
  /// Whether an interpolation asks the object holding its last key for the key's text
  /// (``MustacheObject/text(forKey:_:)``) before its value; off, every value is made.
  var asksObjectsForText = true
  /// The bottom of the context stack: the data the render was given.
  let root: MustacheValue
  /// The top of the context stack: the value of the innermost section being rendered, if any.
  ///
  /// The root, the top and the value under the top are kept in the renderer itself rather than
  /// in `stack`, so that looking a name up in them borrows them instead of copying them (most
  /// names are found in one of them), and a render nesting two sections allocates nothing.
  private(set) var top: MustacheValue?
  /// The value of the section around the innermost, if any.
  private(set) var underTop: MustacheValue?
  /// The values of the sections being rendered around those two, innermost last.
  private(set) var stack: [MustacheValue] = []
  /// How many renders of instructions are under way, one inside the other.
  var depth = 0
  /// The indentation in force: that of the standalone partials and blocks being expanded.
  private var indent: [UInt8] = []
  /// The parent calls being expanded, outermost first: an argument from further out wins.
  private var argumentFrames: [ArgumentFrame] = []
  /// A resolver must give the same answer within one render, so each is asked for once.
  private var resolved: [ResolvedPartial] = []

  init(resolver: (any PartialResolver)?, policy: MissingPartialPolicy, root: MustacheValue) {
    self.resolver = resolver
    self.policy = policy
    self.root = root
  }

  /// Renders a whole program.
  mutating func render(_ program: Program, into output: inout OutputBuffer) throws {
    try render(
      program, from: 0, to: Int32(program.ops.count),
      origin: Origin(program: Unmanaged.passUnretained(program), line: 1, column: 1),
      into: &output)
  }

  /// Renders `program.ops[start..<end]`.
  ///
  /// - Parameters:
  ///   - program: The program whose instructions to render.
  ///   - start: The first instruction.
  ///   - end: The index after the last instruction.
  ///   - origin: The tag that led here, for the nesting error.
  ///   - output: Where the rendered bytes are appended.
  /// - Throws: ``TemplateError`` for a missing partial (when strict) or too deep nesting.
  mutating func render(
    _ program: Program, from start: Int32, to end: Int32, origin: Origin,
    into output: inout OutputBuffer
  ) throws {
    depth += 1
    defer { depth -= 1 }
    if depth > Self.maximumDepth {
      let template = origin.program.takeUnretainedValue().name
      throw TemplateError(
        .nestedTooDeeply(limit: Self.maximumDepth), template: template,
        line: Int(origin.line), column: Int(origin.column))
    }
    var index = Int(start)
    let end = Int(end)
    while index < end {
      switch program.ops[index] {
      case .text(let start, let end):
        program.bytes.withUnsafeBufferPointer { bytes in
          output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[Int(start)..<Int(end)]))
        }
        index += 1
      case .lines(let lines):
        appendLines(program, program.lines[Int(lines)], into: &output)
        index += 1
      case .variable(let name, let escaping):
        interpolate(program, name, escaping: escaping, into: &output)
        index += 1
      case .section(let section):
        try render(program, section: Int(section), at: index, into: &output)
        index = Int(program.sections[Int(section)].end)
      case .partial(let call):
        try expand(program, call: Int(call), into: &output)
        index += 1
      case .parent(let parent):
        argumentFrames.append(ArgumentFrame(program: program, parent: parent))
        defer { argumentFrames.removeLast() }
        try expand(program, call: Int(program.parents[Int(parent)].call), into: &output)
        index = Int(program.parents[Int(parent)].end)
      case .block(let block):
        try render(program, block: Int(block), origin: origin, into: &output)
        index = Int(program.blocks[Int(block)].contentEnd)
      case .folded(let fold):
        let fold = program.folds[Int(fold)]
        program.bytes.withUnsafeBufferPointer { bytes in
          output.append(
            contentsOf: UnsafeBufferPointer(rebasing: bytes[Int(fold.start)..<Int(fold.end)]))
        }
        index = Int(fold.next)
      }
    }
  }

  /// Appends text over several template lines, with the indentation in force at the start of
  /// each.
  private func appendLines(
    _ program: Program, _ lines: Program.LinesOp, into output: inout OutputBuffer
  ) {
    program.bytes.withUnsafeBufferPointer { bytes in
      var start = Int(lines.start)
      if !indent.isEmpty {
        let lineStarts = program.lineStarts[Int(lines.lineStartsStart)..<Int(lines.lineStartsEnd)]
        indent.withUnsafeBufferPointer { indent in
          for lineStart in lineStarts {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<Int(lineStart)]))
            output.append(contentsOf: indent)
            start = Int(lineStart)
          }
        }
      }
      output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<Int(lines.end)]))
    }
  }

  /// Renders the section whose instruction is at `opIndex`.
  private mutating func render(
    _ program: Program, section index: Int, at opIndex: Int, into output: inout OutputBuffer
  ) throws {
    let section = program.sections[index]
    let value = lookUp(program, section.name) ?? .null
    let start = Int32(opIndex + 1)
    let origin = Origin(
      program: Unmanaged.passUnretained(program), line: section.line, column: section.column)
    if section.isInverted {
      if !value.isTruthy {
        try render(program, from: start, to: section.end, origin: origin, into: &output)
      }
      return
    }
    switch consume value {
    case .array(let items):
      for index in items.indices {
        push(items[index])
        defer { pop() }
        try render(program, from: start, to: section.end, origin: origin, into: &output)
      }
    case .list(let list):
      for index in 0..<list.count {
        push(list[index])
        defer { pop() }
        try render(program, from: start, to: section.end, origin: origin, into: &output)
      }
    case let value where value.isTruthy:
      push(value)
      defer { pop() }
      try render(program, from: start, to: section.end, origin: origin, into: &output)
    default:
      break
    }
  }

  /// Renders a block: the argument for its name in force, or else its default content.
  private mutating func render(
    _ program: Program, block index: Int, origin: Origin, into output: inout OutputBuffer
  ) throws {
    let block = program.blocks[index]
    var content = program
    var contentStart = block.contentStart
    var contentEnd = block.contentEnd
    var argumentIsInline = false
    if let (argumentProgram, argument) = self.argument(named: block.name) {
      let argumentBlock = argumentProgram.blocks[argument]
      content = argumentProgram
      contentStart = argumentBlock.contentStart
      contentEnd = argumentBlock.contentEnd
      argumentIsInline = !argumentBlock.isStandalone
    }
    guard block.isStandalone else {
      try render(content, from: contentStart, to: contentEnd, origin: origin, into: &output)
      return
    }
    let indentCount = indent.count
    defer { indent.removeLast(indent.count - indentCount) }
    appendIndent(program, from: block.indentStart, to: block.indentEnd)
    // An argument written inline starts mid-line, so its first line gets no indentation
    // from a line start of its own.
    if argumentIsInline, contentStart < contentEnd {
      indent.withUnsafeBufferPointer { output.append(contentsOf: $0) }
    }
    try render(content, from: contentStart, to: contentEnd, origin: origin, into: &output)
  }

  /// The block argument named `name` in force: the outermost parent call's that has one.
  private func argument(named name: String) -> (Program, Int)? {
    for frame in argumentFrames {
      let parent = frame.program.parents[Int(frame.parent)]
      for position in Int(parent.argumentsStart)..<Int(parent.argumentsEnd) {
        let block = Int(frame.program.arguments[position])
        if frame.program.blocks[block].name == name { return (frame.program, block) }
      }
    }
    return nil
  }

  private mutating func appendIndent(_ program: Program, from start: Int32, to end: Int32) {
    guard start < end else { return }
    program.bytes.withUnsafeBufferPointer { bytes in
      indent.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[Int(start)..<Int(end)]))
    }
  }

  /// Expands the partial `program.partials[index]` with the indentation and arguments in force.
  private mutating func expand(
    _ program: Program, call index: Int, into output: inout OutputBuffer
  ) throws {
    let call = program.partials[index]
    var name = call.name
    if call.dynamicName >= 0 {
      // An unresolved dynamic name renders nothing, even when strict.
      guard let value = lookUp(program, call.dynamicName) else { return }
      name = value.interpolatedText
      if name.isEmpty { return }
    }
    guard
      let partial = try partial(
        named: name, from: program, call: Int32(index), isDynamic: call.dynamicName >= 0)
    else {
      if policy == .throwError {
        throw TemplateError(
          .missingPartial(name), template: program.name, line: Int(call.line),
          column: Int(call.column))
      }
      return
    }
    let indentCount = indent.count
    defer { indent.removeLast(indent.count - indentCount) }
    appendIndent(program, from: call.indentStart, to: call.indentEnd)
    // `resolved` holds the partial until the render ends.
    let partialProgram = partial.takeUnretainedValue()
    try render(
      partialProgram, from: 0, to: Int32(partialProgram.ops.count),
      origin: Origin(
        program: Unmanaged.passUnretained(program), line: call.line, column: call.column),
      into: &output)
  }

  /// The resolver's answer for `name` from `caller`'s template, asked for once per render.
  private mutating func partial(
    named name: String, from caller: Program, call: Int32, isDynamic: Bool
  ) throws -> Unmanaged<Program>? {
    if !isDynamic, Int(call) < caller.resolvedPartials.count,
      let known = caller.resolvedPartials[Int(call)]
    {
      // Looked up when the program was specialized; the program holds it.
      return Unmanaged.passUnretained(known)
    }
    let callerID = ObjectIdentifier(caller)
    for index in resolved.indices {
      let isMatch =
        isDynamic
        ? resolved[index].caller == nil && resolved[index].name == name
          && resolved[index].includer == caller.name
        : resolved[index].caller == callerID && resolved[index].call == call
      if isMatch { return resolved[index].unretained }
    }
    let program = try resolver?.partial(named: name, includedFrom: caller.name)?.program
    let unretained = program.map { Unmanaged.passUnretained($0) }
    if resolved.isEmpty { resolved.reserveCapacity(8) }
    resolved.append(
      ResolvedPartial(
        caller: isDynamic ? nil : callerID, call: call, includer: caller.name, name: name,
        program: program, unretained: unretained))
    return unretained
  }

  /// Resolves `program.names[name]` against the context stack, as the spec's interpolation
  /// rules say.
  func lookUp(_ program: Program, _ name: Int32) -> MustacheValue? {
    let range = program.names[Int(name)]
    guard range.count > 0 else { return top ?? root }
    guard let found = lookUp(program.keys[Int(range.start)]) else { return nil }
    return range.count == 1 ? found : Self.descend(found, program, range)
  }

  /// Follows the keys of `range` after the first into `value`, the value of the first: for
  /// `a.b.c`, the `c` of the `b` of `value`.
  static func descend(
    _ value: MustacheValue, _ program: Program, _ range: Program.NameRange
  ) -> MustacheValue? {
    descend(value, program, from: Int(range.start) + 1, to: Int(range.start + range.count))
  }

  /// Follows `program.keys[key..<end]` into `value`. Recursive, so that each value is borrowed
  /// while it is searched rather than copied into a variable.
  static func descend(
    _ value: MustacheValue, _ program: Program, from key: Int, to end: Int
  ) -> MustacheValue? {
    guard let next = value.member(program.keys[key]) else { return nil }
    return key + 1 == end ? next : descend(next, program, from: key + 1, to: end)
  }

  /// Pushes `value` onto the context stack.
  private mutating func push(_ value: consuming MustacheValue) {
    if let previous = top.take() {
      if let deeper = underTop.take() {
        if stack.capacity == 0 { stack.reserveCapacity(8) }
        stack.append(deeper)
      }
      underTop = previous
    }
    top = value
  }

  private mutating func pop() {
    top = underTop.take()
    underTop = stack.popLast()
  }
}
