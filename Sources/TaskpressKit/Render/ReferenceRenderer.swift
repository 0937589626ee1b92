import Mustache

/// Renders a page the plain way, which the fast paths are tested against: the page's values
/// made afresh, the body template rendered with every value made (no text handed over), cmark
/// run on the whole Markdown body, and the layout rendered around it. No shared shapes, no
/// specialized templates, no values or buffers kept from one page to the next.
///
/// `PageRenderer` gives the same bytes for every page; the differential tests check that.
struct ReferenceRenderer: Sendable {
  let templates: ThemeTemplates

  /// The bytes of `page`, which is written to `file` (`plan.file(of: page)`).
  func render(_ page: SitePlan.Page, file: String, context: PageContext) throws -> [UInt8] {
    let values = context.values(for: page, file: file)
    // One object for the body and the layout: `content` set in between is seen by the layout.
    let root = MustacheValue.computed(values)
    let pair = templates[PageKind(page)]
    var body: [UInt8] = []
    try pair.body.render(
      root, into: &body, partials: templates.partials, missingPartials: .throwError,
      asksObjectsForText: false)
    if pair.body.escaping == .markdown {
      values["content"] = .string(String(decoding: Markdown.htmlBytes(from: body), as: UTF8.self))
    } else {
      values["content"] = .string(String(decoding: body, as: UTF8.self))
    }
    var output: [UInt8] = []
    try pair.layout.render(
      root, into: &output, partials: templates.partials, missingPartials: .throwError,
      asksObjectsForText: false)
    return output
  }
}
