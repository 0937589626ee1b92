/// A mistake in a template, or a partial a strict render could not find.
///
/// Its description names the template file, line and column (1-based, columns in Unicode
/// scalars): `Templates/todo.md:12:5: section 'items' is never closed`.
public struct TemplateError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What went wrong.
  public enum Kind: Sendable, Equatable {
    /// `{{#name}}` (or `{{^name}}`, `{{$name}}`, `{{<name}}`) has no `{{/name}}`.
    case unclosedSection(String)
    /// `{{/closing}}` appears where the innermost open section is `open`.
    case mismatchedClosingTag(closing: String, open: String)
    /// `{{/name}}` appears with no section open.
    case unopenedClosingTag(String)
    /// A tag's opening delimiter has no closing delimiter after it.
    case unclosedTag(expected: String)
    /// A set-delimiter tag that does not hold exactly two delimiters.
    case badDelimiters(String)
    /// A tag with nothing but whitespace where the name belongs, e.g. `{{ }}`.
    case emptyTagName(String)
    /// A partial or parent that the resolver could not find (strict rendering only).
    case missingPartial(String)
    /// A partial that exists but could not be read.
    case unreadablePartial(String, reason: String)
    /// Sections or partials nested deeper than the engine allows (endless recursion).
    case nestedTooDeeply(limit: Int)
  }

  /// What went wrong.
  public var kind: Kind
  /// The name of the template, usually its path, e.g. `Templates/todo.md`.
  public var template: String
  /// The 1-based line of the tag at fault.
  public var line: Int
  /// The 1-based column, in Unicode scalars, of the tag at fault.
  public var column: Int

  /// Creates an error at a position in a template.
  public init(_ kind: Kind, template: String, line: Int, column: Int) {
    self.kind = kind
    self.template = template
    self.line = line
    self.column = column
  }

  /// The message without the location, e.g. `section 'items' is never closed`.
  public var message: String {
    switch kind {
    case .unclosedSection(let name):
      return "section '\(name)' is never closed"
    case .mismatchedClosingTag(let closing, let open):
      return "closing tag '\(closing)' does not match open section '\(open)'"
    case .unopenedClosingTag(let name):
      return "closing tag '\(name)' has no open section"
    case .unclosedTag(let expected):
      return "tag is never closed; expected '\(expected)'"
    case .badDelimiters(let tag):
      return "bad delimiter change '\(tag)'; write two delimiters, e.g. '{{=<% %>=}}'"
    case .emptyTagName(let tag):
      return "empty tag name in '\(tag)'"
    case .missingPartial(let name):
      return "partial '\(name)' not found"
    case .unreadablePartial(let name, let reason):
      return "partial '\(name)' could not be read: \(reason)"
    case .nestedTooDeeply(let limit):
      return "sections or partials are nested more than \(limit) levels deep"
    }
  }

  public var description: String { "\(template):\(line):\(column): \(message)" }
}
