/// The tags of a template with their positions and nesting: what a tool needs to check a
/// template against the data it will be rendered with, without rendering it.
///
/// ```swift
/// let outline = try TemplateOutline(source: "{{#items}}{{name}}{{/items}}", name: "list.html")
/// // outline.tags[0]: section 'items' at 1:1, holding variable 'name' at 1:11
/// ```
///
/// Comments and set-delimiter tags are left out; everything else is kept in source order.
public struct TemplateOutline: Sendable, Equatable {
  /// One tag, and for a section, a parent or a block the tags inside it.
  public struct Tag: Sendable, Equatable {
    /// What kind of tag it is.
    public enum Kind: Sendable, Equatable {
      /// `{{name}}` (escaped) or `{{{name}}}` / `{{& name}}` (not escaped).
      case variable(escaped: Bool)
      /// `{{#name}}` or, inverted, `{{^name}}`.
      case section(inverted: Bool)
      /// `{{> name}}`.
      case partial
      /// `{{< name}}`: a partial called with blocks.
      case parent
      /// `{{$ name}}`: a block.
      case block
    }

    /// What kind of tag it is.
    public var kind: Kind
    /// The name as written, trimmed: `todo.title`, `.`, a partial's name; a dynamic name keeps
    /// its `*` (`*name`).
    public var name: String
    /// The 1-based line of the tag's opening delimiter.
    public var line: Int
    /// The 1-based column, in Unicode scalars, of the tag's opening delimiter.
    public var column: Int
    /// The tags between a section's, parent's or block's opening and closing tags.
    public var children: [Tag]

    /// Creates a tag.
    public init(kind: Kind, name: String, line: Int, column: Int, children: [Tag] = []) {
      self.kind = kind
      self.name = name
      self.line = line
      self.column = column
      self.children = children
    }

    /// The dot-separated parts of a variable's or section's name; empty for `.`.
    public var nameParts: [String] {
      name == "."
        ? [] : name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// For a partial or parent, whether its name is dynamic (`{{> *name}}`).
    public var isDynamic: Bool { name.hasPrefix("*") }
  }

  /// The template's name, as errors give it.
  public let template: String
  /// The top-level tags, in source order.
  public let tags: [Tag]

  /// Reads the tags of `source`.
  ///
  /// - Throws: ``TemplateError`` for a malformed template, as ``Template/init(source:name:escaping:)``.
  public init(source: String, name: String) throws(TemplateError) {
    try self.init(bytes: Array(source.utf8), name: name)
  }

  /// Reads the tags of a template given as UTF-8 bytes; see ``init(source:name:)``.
  public init(bytes: [UInt8], name: String) throws(TemplateError) {
    let parser = Parser(source: bytes, templateName: name, escaping: .none)
    // The whole parse first: it reports every malformed template exactly as a render would.
    _ = try parser.parse()
    template = name
    tags = parser.outline()
  }
}

extension Parser {
  /// The tags of a template that ``parse()`` accepted, nested as its sections are.
  func outline() -> [TemplateOutline.Tag] {
    var scanner = Scanner(parser: self)
    guard (try? scanner.scan()) != nil else { return [] }
    var stack: [(opener: TemplateOutline.Tag?, tags: [TemplateOutline.Tag])] = [(nil, [])]
    for token in scanner.tokens {
      let kind: TemplateOutline.Tag.Kind
      switch token.kind {
      case .variable(let escaped): kind = .variable(escaped: escaped)
      case .partial: kind = .partial
      case .section(let inverted): kind = .section(inverted: inverted)
      case .parent: kind = .parent
      case .block: kind = .block
      case .close:
        guard stack.count > 1, let frame = stack.popLast(), var opener = frame.opener else {
          continue
        }
        opener.children = frame.tags
        stack[stack.count - 1].tags.append(opener)
        continue
      case .text, .lineStart, .ignored:
        continue
      }
      let place = location(of: token.start)
      let tag = TemplateOutline.Tag(
        kind: kind, name: token.name, line: place.line, column: place.column)
      switch kind {
      case .section, .parent, .block: stack.append((tag, []))
      case .variable, .partial: stack[stack.count - 1].tags.append(tag)
      }
    }
    return stack[0].tags
  }
}
