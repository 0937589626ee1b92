/// The parser builds a template as a tree of nodes, which ``Program`` compiles for rendering.
enum Node: Sendable {
  /// Template text, as UTF-8 bytes.
  case text([UInt8])
  /// The start of a template line: where a standalone partial's indentation goes.
  case lineStart
  /// `{{name}}` with the template's escaping, or `{{{name}}}` / `{{& name}}` with `.none`.
  case variable(Name, Escaping)
  /// `{{#name}}...{{/name}}` or `{{^name}}...{{/name}}`.
  case section(Section)
  /// `{{> name}}` or `{{> *name}}`.
  case partial(PartialCall)
  /// `{{< name}}...{{/name}}`: a partial with block arguments.
  case parent(ParentCall)
  /// `{{$ name}}...{{/name}}`: a block, overridable from a parent call.
  case block(Block)
}

/// A name to look up in the context stack: `.` (no parts) or a dotted name such as `a.b.c`.
struct Name: Sendable, Equatable {
  /// The dot-separated parts; empty for the implicit iterator `.`.
  var parts: [String]

  init(_ text: String) {
    parts =
      text == "."
      ? [] : text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
  }
}

/// Where a tag is, for errors raised while rendering.
struct Location: Sendable {
  var template: String
  var line: Int
  var column: Int
}

struct Section: Sendable {
  var name: Name
  var isInverted: Bool
  var nodes: [Node]
  var location: Location
}

struct PartialCall: Sendable {
  /// The partial's name as written, without the `*` of a dynamic name.
  var name: String
  /// For `{{> *name}}`: the context name whose value is the partial's name.
  var dynamicName: Name?
  /// The whitespace before a standalone tag, prepended to each line of the partial.
  var indent: [UInt8]
  var location: Location
}

struct ParentCall: Sendable {
  var call: PartialCall
  /// The block arguments, by block name: they replace the parent's blocks of that name.
  var arguments: [String: Block]
}

struct Block: Sendable {
  var name: String
  /// The default content; for a standalone block, with its own indentation removed.
  var nodes: [Node]
  /// A standalone block is re-indented where it is expanded.
  var isStandalone: Bool
  /// The indentation a standalone block's content is given where it is expanded.
  var indent: [UInt8]
}
