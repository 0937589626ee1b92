/// A template compiled for rendering: its node tree flattened into one array of instructions.
///
/// Instructions hold only integers, so reading one copies no reference: text and indentation
/// are ranges of ``bytes``, names are split into ``keys`` once, and what a section,
/// partial, parent or block needs besides is in a table of its own. The content of a section or
/// block follows its instruction, up to the end the table gives.
///
/// A program never changes once made, so renders on several threads share it.
final class Program: Sendable {
  /// One instruction.
  enum Op: Sendable {
    /// Appends `bytes[start..<end]`.
    case text(start: Int32, end: Int32)
    /// `lines[index]`: text over several template lines, with the indentation in force at the
    /// start of each.
    case lines(Int32)
    /// Interpolates `names[name]`.
    case variable(name: Int32, escaping: Escaping)
    /// `sections[index]`; its content follows.
    case section(Int32)
    /// `partials[index]`.
    case partial(Int32)
    /// `parents[index]`; its arguments' content follows.
    case parent(Int32)
    /// `blocks[index]`; its default content follows.
    case block(Int32)
    /// `folds[index]`: text that stands for the instructions up to its `next`; see
    /// ``Template/specialized(for:partials:missingPartials:)``.
    case folded(Int32)
  }

  /// Text rendered ahead of time in place of the instructions from its own up to `next`.
  struct FoldOp: Sendable {
    /// The text: a range of `bytes`.
    var start: Int32
    var end: Int32
    /// The index of the first instruction after those it stands for.
    var next: Int32
  }

  /// A name to look up: `keys[start..<start + count]`, or `.` when `count` is 0.
  struct NameRange: Sendable, Equatable {
    var start: Int32
    var count: Int32
  }

  /// Text and the starts of template lines, where a standalone partial's or block's
  /// indentation goes.
  struct LinesOp: Sendable {
    /// The text: a range of `bytes`.
    var start: Int32
    var end: Int32
    /// Where lines start in it: a range of `lineStarts`, each an offset in `bytes`.
    var lineStartsStart: Int32
    var lineStartsEnd: Int32
  }

  struct SectionOp: Sendable {
    var name: Int32
    var isInverted: Bool
    /// Where the content ends: the index of the instruction after the section.
    var end: Int32
    var line: Int32
    var column: Int32
  }

  /// A `{{> name}}` tag, or the partial a parent tag calls.
  struct PartialOp: Sendable {
    /// The partial's name as written, without the `*` of a dynamic name.
    var name: String
    /// For `{{> *name}}`: the index of the context name whose value is the partial's name;
    /// -1 otherwise.
    var dynamicName: Int32
    /// The indentation of a standalone tag: a range of `bytes`.
    var indentStart: Int32
    var indentEnd: Int32
    var line: Int32
    var column: Int32
  }

  struct ParentOp: Sendable {
    /// The partial called, in `partials`.
    var call: Int32
    /// The block arguments: a range of `arguments`, each an index in `blocks`.
    var argumentsStart: Int32
    var argumentsEnd: Int32
    /// The index of the instruction after the parent.
    var end: Int32
  }

  struct BlockOp: Sendable {
    var name: String
    var isStandalone: Bool
    /// The indentation a standalone block's content is given: a range of `bytes`.
    var indentStart: Int32
    var indentEnd: Int32
    /// The content: a range of `ops`.
    var contentStart: Int32
    var contentEnd: Int32
  }

  /// The template's name, for errors and partial lookups.
  let name: String
  let ops: [Op]
  /// Every text and indentation of the template.
  let bytes: [UInt8]
  /// The names of the template: ranges of `keys`.
  let lines: [LinesOp]
  /// The offsets in `bytes` where template lines start, for `lines`.
  let lineStarts: [Int32]
  let names: [NameRange]
  /// The dot-separated parts of every name.
  let keys: [String]
  let sections: [SectionOp]
  let partials: [PartialOp]
  let parents: [ParentOp]
  let blocks: [BlockOp]
  let arguments: [Int32]
  let folds: [FoldOp]
  /// For each of `partials`, the program its static name names, when it was looked up ahead
  /// of the renders (see ``Template/specialized(for:partials:missingPartials:)``); empty when
  /// none was.
  let resolvedPartials: [Program?]

  /// Compiles the nodes of the template named `name`.
  init(nodes: [Node], name: String) {
    var builder = Builder()
    builder.emit(nodes)
    self.name = name
    ops = builder.ops
    bytes = builder.bytes
    lines = builder.lines
    lineStarts = builder.lineStarts
    names = builder.names
    keys = builder.keys
    sections = builder.sections
    partials = builder.partials
    parents = builder.parents
    blocks = builder.blocks
    arguments = builder.arguments
    folds = []
    resolvedPartials = []
  }

  /// A copy of `base` with other instructions and text, and the folds they use; every other
  /// table is `base`'s.
  init(
    _ base: Program, ops: [Op], bytes: [UInt8], folds: [FoldOp], resolvedPartials: [Program?]
  ) {
    name = base.name
    self.ops = ops
    self.bytes = bytes
    lines = base.lines
    lineStarts = base.lineStarts
    names = base.names
    keys = base.keys
    sections = base.sections
    partials = base.partials
    parents = base.parents
    blocks = base.blocks
    arguments = base.arguments
    self.folds = folds
    self.resolvedPartials = resolvedPartials
  }

  /// The index of the instruction after the one at `index` and its content.
  func extent(of index: Int) -> Int {
    switch ops[index] {
    case .text, .lines, .variable, .partial: index + 1
    case .section(let section): Int(sections[Int(section)].end)
    case .parent(let parent): Int(parents[Int(parent)].end)
    case .block(let block): Int(blocks[Int(block)].contentEnd)
    case .folded(let fold): Int(folds[Int(fold)].next)
    }
  }

  private struct Builder {
    var ops: [Op] = []
    var bytes: [UInt8] = []
    var lines: [LinesOp] = []
    var lineStarts: [Int32] = []
    /// Where the text not yet emitted starts in `bytes`, if there is any.
    var pendingStart: Int32?
    /// Where lines start in the text not yet emitted.
    var pendingLineStarts: [Int32] = []
    var names: [NameRange] = []
    var keys: [String] = []
    /// The names added so far, by their parts.
    var nameIndices: [[String]: Int32] = [:]
    var sections: [SectionOp] = []
    var partials: [PartialOp] = []
    var parents: [ParentOp] = []
    var blocks: [BlockOp] = []
    var arguments: [Int32] = []

    /// Adds `nodes` to `ops`. Consecutive text and line starts become one instruction.
    mutating func emit(_ nodes: [Node]) {
      for node in nodes {
        switch node {
        case .text(let text):
          if pendingStart == nil { pendingStart = Int32(bytes.count) }
          bytes.append(contentsOf: text)
          continue
        case .lineStart:
          if pendingStart == nil { pendingStart = Int32(bytes.count) }
          pendingLineStarts.append(Int32(bytes.count))
          continue
        default:
          emitPendingText()
        }
        switch node {
        case .text, .lineStart:
          break
        case .variable(let name, let escaping):
          ops.append(.variable(name: add(name), escaping: escaping))
        case .section(let section):
          let index = Int32(sections.count)
          sections.append(
            SectionOp(
              name: add(section.name), isInverted: section.isInverted, end: 0,
              line: Int32(section.location.line), column: Int32(section.location.column)))
          ops.append(.section(index))
          emit(section.nodes)
          sections[Int(index)].end = Int32(ops.count)
        case .partial(let call):
          ops.append(.partial(add(call)))
        case .parent(let parent):
          let index = Int32(parents.count)
          let call = add(parent.call)
          parents.append(ParentOp(call: call, argumentsStart: 0, argumentsEnd: 0, end: 0))
          ops.append(.parent(index))
          // Each argument's name is unique, so their order does not matter; sorted, the
          // program is the same from one run to the next.
          var argumentIndices: [Int32] = []
          for name in parent.arguments.keys.sorted() {
            guard let block = parent.arguments[name] else { continue }
            argumentIndices.append(add(block))
          }
          parents[Int(index)].argumentsStart = Int32(arguments.count)
          arguments.append(contentsOf: argumentIndices)
          parents[Int(index)].argumentsEnd = Int32(arguments.count)
          parents[Int(index)].end = Int32(ops.count)
        case .block(let block):
          let index = Int32(blocks.count)
          ops.append(.block(index))
          let added = add(block)
          assert(added == index)
        }
      }
      emitPendingText()
    }

    /// Adds an instruction for the text and line starts not yet emitted.
    mutating func emitPendingText() {
      guard let start = pendingStart else { return }
      let end = Int32(bytes.count)
      if pendingLineStarts.isEmpty {
        ops.append(.text(start: start, end: end))
      } else {
        ops.append(.lines(Int32(lines.count)))
        lines.append(
          LinesOp(
            start: start, end: end, lineStartsStart: Int32(lineStarts.count),
            lineStartsEnd: Int32(lineStarts.count + pendingLineStarts.count)))
        lineStarts.append(contentsOf: pendingLineStarts)
        pendingLineStarts.removeAll(keepingCapacity: true)
      }
      pendingStart = nil
    }

    /// Adds `text` to `bytes`; returns its range.
    mutating func add(_ text: [UInt8]) -> (Int32, Int32) {
      let start = Int32(bytes.count)
      bytes.append(contentsOf: text)
      return (start, Int32(bytes.count))
    }

    /// Adds `name` to `names`, once; returns its index.
    mutating func add(_ name: Name) -> Int32 {
      if let index = nameIndices[name.parts] { return index }
      let index = Int32(names.count)
      names.append(NameRange(start: Int32(keys.count), count: Int32(name.parts.count)))
      keys.append(contentsOf: name.parts)
      nameIndices[name.parts] = index
      return index
    }

    mutating func add(_ call: PartialCall) -> Int32 {
      let (indentStart, indentEnd) = add(call.indent)
      partials.append(
        PartialOp(
          name: call.name, dynamicName: call.dynamicName.map { add($0) } ?? -1,
          indentStart: indentStart, indentEnd: indentEnd, line: Int32(call.location.line),
          column: Int32(call.location.column)))
      return Int32(partials.count - 1)
    }

    /// Adds `block` to `blocks` and its content to `ops`; returns its index.
    mutating func add(_ block: Block) -> Int32 {
      let index = Int32(blocks.count)
      let (indentStart, indentEnd) = add(block.indent)
      blocks.append(
        BlockOp(
          name: block.name, isStandalone: block.isStandalone, indentStart: indentStart,
          indentEnd: indentEnd, contentStart: Int32(ops.count), contentEnd: 0))
      emit(block.nodes)
      blocks[Int(index)].contentEnd = Int32(ops.count)
      return index
    }
  }
}
