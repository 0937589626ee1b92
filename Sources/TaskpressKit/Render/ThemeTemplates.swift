import Mustache

/// Every template of a theme, parsed: the body template of each page kind, the layout, and the
/// partials they include. Parsing them all up front makes a broken template fail the build
/// before anything is written.
final class ThemeTemplates: Sendable {
  /// The body template of each kind (by `PageKind.rawValue`) with the layout around it.
  let pairs: [TemplatePair]
  /// Finds `{{> name}}` among the theme's templates: `name` with the including template's
  /// extension (`nav` from `layout.html` is `nav.html`), then `name` as written.
  let partials: DictionaryPartialResolver
  /// Whether every template is valid UTF-8, so that every render is (values are).
  let areUTF8: Bool

  init(theme: Theme) throws {
    var templates: [String: Template] = [:]
    var areUTF8 = true
    for path in theme.templatePaths {
      guard let file = theme.files[path] else { continue }
      templates[path] = try Template(bytes: file.contents, name: file.displayPath)
      if String(validating: file.contents, as: UTF8.self) == nil { areUTF8 = false }
    }
    self.areUTF8 = areUTF8
    partials = DictionaryPartialResolver(templatesByName: templates)
    guard let layout = templates["layout.html"] else {
      throw ThemeError("the theme has no 'layout.html'")
    }
    pairs = try PageKind.allCases.map { kind in
      let path = try theme.bodyTemplate(kind.name)
      guard let body = templates[path] else {
        throw ThemeError("the theme has no template '\(kind.name).html' or '\(kind.name).md'")
      }
      return TemplatePair(body: body, layout: layout)
    }
  }

  /// The body template and layout of `kind`.
  subscript(kind: PageKind) -> TemplatePair { pairs[kind.rawValue] }
}

/// A page kind's body template and the layout around it.
///
/// A class: a render takes one reference to the pair from a cache rather than copying two
/// templates (and retaining what each holds) for every page.
final class TemplatePair: Sendable {
  let body: Template
  let layout: Template

  init(body: Template, layout: Template) {
    self.body = body
    self.layout = layout
  }
}
