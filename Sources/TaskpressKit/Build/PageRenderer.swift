import Mustache

/// Renders a page: its body template, through cmark when it is Markdown, into `layout.html`.
///
/// Every template of the theme is parsed once, up front, so a broken template fails the build
/// before anything is written.
struct PageRenderer: Sendable {
  /// The body template of each page kind (`index`, `todo`, ...).
  private let bodies: [String: Template]
  private let layout: Template
  private let partials: ThemePartials

  static let bodyNames = [
    "index", "board", "todo", "possessions", "possession", "contacts", "contact", "404",
  ]

  init(theme: Theme) throws {
    var templates: [String: Template] = [:]
    for path in theme.templatePaths {
      guard let file = theme.files[path] else { continue }
      templates[path] = try Template(bytes: file.contents, name: file.displayPath)
    }
    partials = ThemePartials(templates: templates)
    guard let layout = templates["layout.html"] else {
      throw ThemeError("the theme has no 'layout.html'")
    }
    self.layout = layout
    var bodies: [String: Template] = [:]
    for name in Self.bodyNames {
      let path = try theme.bodyTemplate(name)
      bodies[name] = templates[path]
    }
    self.bodies = bodies
  }

  func render(_ page: SitePlan.Page, context: PageContext) throws -> [UInt8] {
    var values = context.values(for: page)
    guard let body = bodies[PageContext.kind(of: page)] else { return [] }
    var rendered: [UInt8] = []
    try body.render(
      .object(values), into: &rendered, partials: partials, missingPartials: .throwError)
    let content = String(decoding: rendered, as: UTF8.self)
    values["content"] = .string(body.escaping == .markdown ? Markdown.html(from: content) : content)
    var output: [UInt8] = []
    output.reserveCapacity(rendered.count + 4096)
    try layout.render(
      .object(values), into: &output, partials: partials, missingPartials: .throwError)
    return output
  }
}

/// Finds `{{> name}}` among the theme's templates: `name` with the including template's
/// extension (`nav` from `layout.html` is `nav.html`), then `name` as written.
struct ThemePartials: PartialResolver {
  /// Templates by their path in the theme (`nav.html`).
  let templates: [String: Template]

  func partial(named name: String, includedFrom includer: String) -> Template? {
    let file = includer.split(separator: "/").last.map(String.init) ?? includer
    if let dot = file.lastIndex(of: "."), dot != file.startIndex {
      let suffix = String(file[dot...])
      if !name.hasSuffix(suffix), let template = templates[name + suffix] {
        return template
      }
    }
    return templates[name]
  }
}
