import Mustache

/// Turns a planned page into bytes: its values, its body template (through cmark when it is
/// Markdown), and `layout.html` around it.
///
/// Each fast path of `RenderPaths` can be switched off on its own; with none, every page goes
/// through `ReferenceRenderer`, the plain path, which the differential tests compare this
/// with. Each render thread has a renderer of its own (see `Build.stagePages`): the shapes and
/// specialized templates it learns are its own, so threads do not share reference counts.
struct PageRenderer: Sendable {
  let paths: RenderPaths
  let templates: ThemeTemplates
  private let reference: ReferenceRenderer
  private let specialized = SpecializedTemplates()
  /// For each Markdown body, by `PageKind.rawValue`, the shapes its pages share.
  private let sharing: [MarkdownSharing?]

  /// A renderer of `theme`'s templates, parsed for it alone, with the fast paths `paths`.
  init(theme: Theme, paths: RenderPaths) throws {
    self.init(templates: try ThemeTemplates(theme: theme), paths: paths)
  }

  /// A renderer for `templates` with the fast paths `paths`, less those that lack what they
  /// require (`RenderPaths.withoutUnmetRequirements`), as a build's are.
  init(templates: ThemeTemplates, paths: RenderPaths) {
    self.paths = paths.withoutUnmetRequirements
    self.templates = templates
    reference = ReferenceRenderer(templates: templates)
    sharing = templates.pairs.map { $0.body.escaping == .markdown ? MarkdownSharing() : nil }
  }

  /// Renders `page`, which is written to `file` (`plan.file(of: page)`), appending its bytes to
  /// `output`; `buffers` is what this thread keeps from page to page.
  func render(
    _ page: SitePlan.Page, file: String, context: PageContext, appendingTo output: RenderBuffer,
    buffers: RenderBuffers
  ) throws {
    let renderPaths = paths.subtracting(.batches)
    guard renderPaths != .reference else {
      let bytes = try reference.render(page, file: file, context: context)
      bytes.withUnsafeBufferPointer { output.append(contentsOf: $0) }
      return
    }
    let reusing = paths.contains(.reusedValues)
    let values = context.values(for: page, file: file, reusing: reusing ? buffers.values : nil)
    // One object for the body and the layout: `content` set in between is seen by the layout.
    let root = MustacheValue.computed(values)
    let kind = PageKind(page)
    let pair = templatePair(kind, values: values, buffers: buffers)
    let handsText = paths.contains(.textHandover)
    let body = buffers.body
    body.removeAll()
    if paths.contains(.markdownSharing), let sharing = sharing[kind.rawValue] {
      buffers.setAside.removeAll()
      try pair.body.render(
        root, appendingTo: body, settingAside: &buffers.setAside, partials: templates.partials,
        missingPartials: .throwError, asksObjectsForText: handsText)
      // cmark's HTML is valid UTF-8 (it validates its input), so it goes in as bytes.
      values["content"] = .utf8(sharing.htmlBytes(from: body.bytes, values: buffers.setAside))
    } else {
      try pair.body.render(
        root, appendingTo: body, partials: templates.partials, missingPartials: .throwError,
        asksObjectsForText: handsText)
      if pair.body.escaping == .markdown {
        values["content"] = .utf8(Markdown.htmlBytes(from: Array(body.bytes)))
      } else {
        // Templates of valid UTF-8 render valid UTF-8; else a string mends what one broke.
        values["content"] =
          templates.areUTF8
          ? .utf8(Array(body.bytes)) : .string(String(decoding: body.bytes, as: UTF8.self))
      }
    }
    try pair.layout.render(
      root, appendingTo: output, partials: templates.partials, missingPartials: .throwError,
      asksObjectsForText: handsText)
    if body.count > 64 * RenderBuffers.bodyRoom {
      buffers.body = RenderBuffer(capacity: RenderBuffers.bodyRoom)
    }
  }

  /// The templates of a page of `kind` with `values`: specialized for its chrome when that
  /// path is on and the chrome is shared, the last page's when it had the same chrome and kind.
  private func templatePair(_ kind: PageKind, values: PageValues, buffers: RenderBuffers)
    -> TemplatePair
  {
    let plain = templates[kind]
    guard paths.contains(.specializedTemplates), values.chrome.isShared else { return plain }
    let chrome = ObjectIdentifier(values.chrome)
    if paths.contains(.reusedValues), let last = buffers.lastPair, last.chrome == chrome,
      last.kind == kind
    {
      return last.2
    }
    let pair = specialized.pair(
      kind, plain: plain, values: values.shared, partials: templates.partials)
    buffers.lastPair = (chrome, kind, pair)
    return pair
  }
}
