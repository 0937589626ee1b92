import Mustache
import Synchronization

/// Renders a page: its body template, through cmark when it is Markdown, into `layout.html`.
///
/// Every template of the theme is parsed up front, so a broken template fails the build before
/// anything is written. Each render thread has a renderer of its own (see `Build.stagePages`):
/// what it learns and keeps as it renders (specialized templates, Markdown shapes) is its own.
struct PageRenderer: Sendable {
  /// The body template of each page kind, in the order of `bodyNames`, with the layout.
  private let plainTemplates: [TemplatePair?]
  private let partials: ThemePartials
  private let specialized = SpecializedTemplates()
  /// For each Markdown body, the shapes its pages share (see `MarkdownShapes`).
  private let shapes: [MarkdownShapes?]
  /// Whether every template is valid UTF-8, so that every render is (values are).
  private let templatesAreUTF8: Bool

  static let bodyNames = [
    "index", "board", "todo", "possessions", "possession", "contacts", "contact", "404",
  ]

  /// The place of `page`'s kind in `bodyNames`.
  static func kindNumber(of page: SitePlan.Page) -> Int {
    switch page {
    case .index: 0
    case .board: 1
    case .todo: 2
    case .possessions: 3
    case .possession: 4
    case .contacts: 5
    case .contact: 6
    case .notFound: 7
    }
  }

  init(theme: Theme) throws {
    var templates: [String: Template] = [:]
    var templatesAreUTF8 = true
    for path in theme.templatePaths {
      guard let file = theme.files[path] else { continue }
      templates[path] = try Template(bytes: file.contents, name: file.displayPath)
      if String(validating: file.contents, as: UTF8.self) == nil { templatesAreUTF8 = false }
    }
    self.templatesAreUTF8 = templatesAreUTF8
    partials = ThemePartials(templates: templates)
    guard let layout = templates["layout.html"] else {
      throw ThemeError("the theme has no 'layout.html'")
    }
    let bodies = try Self.bodyNames.map { templates[try theme.bodyTemplate($0)] }
    plainTemplates = bodies.map { body in body.map { TemplatePair(body: $0, layout: layout) } }
    shapes = bodies.map { $0?.escaping == .markdown ? MarkdownShapes() : nil }
  }

  /// What a render thread keeps from page to page: the page's bytes, and the room for the
  /// values its Markdown sets aside. Used by one thread, with one renderer (the templates it
  /// remembers are that renderer's, found by chromes that renderer keeps alive).
  final class Scratch {
    /// The page, as the last `render` left it.
    let output = RenderBuffer(capacity: 16 << 10)
    /// The body of the page, rendered before the layout.
    @exclusivity(unchecked) var body = RenderBuffer(capacity: Scratch.bodyRoom)
    /// The room kept for bodies: a larger one (the board's) is let go once it is in the page.
    static let bodyRoom = 16 << 10
    @exclusivity(unchecked) var markdownValues = MarkdownValues()
    /// The page values that pages of one kind and folder share, moved from page to page.
    let values = ReusedPageValues()
    /// The templates the last page was rendered with, and for which chrome and kind: the
    /// next page of the same folder takes them without a lookup, a lock or a copy.
    @exclusivity(unchecked) var lastTemplates: (chrome: ObjectIdentifier, kind: Int, TemplatePair)?
  }

  /// Renders `page`, which is written to `file` (`plan.file(of: page)`), into
  /// `scratch.output` (emptied first).
  func render(
    _ page: SitePlan.Page, file: String, context: PageContext, into scratch: Scratch
  ) throws {
    scratch.output.removeAll()
    let values = context.values(for: page, file: file, reusing: scratch.values)
    // One object for the body and the layout: `content` set in between is seen by the layout.
    let root = MustacheValue.computed(values)
    let kind = Self.kindNumber(of: page)
    guard let plain = plainTemplates[kind] else { return }
    var templates = plain
    if values.chrome.isShared {
      let chrome = ObjectIdentifier(values.chrome)
      if let last = scratch.lastTemplates, last.chrome == chrome, last.kind == kind {
        templates = last.2
      } else {
        templates = specialized.templates(
          kind: kind, plain: plain, values: values.shared, partials: partials)
        scratch.lastTemplates = (chrome, kind, templates)
      }
    }
    let body = scratch.body
    body.removeAll()
    if let shapes = shapes[kind] {
      scratch.markdownValues.removeAll()
      try templates.body.render(
        root, appendingTo: body, markdownValues: &scratch.markdownValues,
        partials: partials, missingPartials: .throwError)
      // cmark's HTML is valid UTF-8 (it validates its input), so it goes in as bytes.
      values["content"] = .utf8(shapes.htmlBytes(from: body.bytes, values: scratch.markdownValues))
    } else {
      try templates.body.render(
        root, appendingTo: body, partials: partials, missingPartials: .throwError)
      // Templates of valid UTF-8 render valid UTF-8; else a string mends what a template broke.
      values["content"] =
        templatesAreUTF8
        ? .utf8(Array(body.bytes)) : .string(String(decoding: body.bytes, as: UTF8.self))
    }
    try templates.layout.render(
      root, appendingTo: scratch.output, partials: partials, missingPartials: .throwError)
    if body.count > 64 * Scratch.bodyRoom {
      scratch.body = RenderBuffer(capacity: Scratch.bodyRoom)
    }
  }
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

/// The body templates and layout of each page kind specialized for each shared chrome: the
/// parts that show only `site`, `labels` and the layout's links are rendered once per folder
/// and section rather than once per page.
final class SpecializedTemplates: Sendable {
  private struct Entry {
    /// Held so that its identity, which finds the entry, is not reused.
    let chrome: PageContext.Chrome
    /// By page kind (see `PageRenderer.kindNumber(of:)`).
    var templates: [TemplatePair?]
  }

  /// One entry for each chrome seen (a few: one for each folder and section).
  private let entries = Mutex<[Entry]>([])

  /// `plain` specialized for `values`, made at the first page of its chrome and kind (a
  /// number below `PageRenderer.bodyNames.count`).
  func templates(
    kind: Int, plain: TemplatePair, values: SharedPageValues, partials: ThemePartials
  ) -> TemplatePair {
    entries.withLock { entries in
      let entry: Int
      if let found = entries.firstIndex(where: { $0.chrome === values.chrome }) {
        entry = found
      } else {
        let kinds = PageRenderer.bodyNames.count
        entries.append(Entry(chrome: values.chrome, templates: Array(repeating: nil, count: kinds)))
        entry = entries.count - 1
      }
      if let found = entries[entry].templates[kind] { return found }
      let made = TemplatePair(
        body: plain.body.specialized(for: values, partials: partials, missingPartials: .throwError),
        layout: plain.layout.specialized(
          for: values, partials: partials, missingPartials: .throwError)
      )
      entries[entry].templates[kind] = made
      return made
    }
  }
}

/// Finds `{{> name}}` among the theme's templates: `name` with the including template's
/// extension (`nav` from `layout.html` is `nav.html`), then `name` as written.
///
/// A class: a render holds it as `any PartialResolver`, which for a class is one reference to
/// retain rather than a struct to copy.
final class ThemePartials: PartialResolver {
  /// Templates by their path in the theme (`nav.html`).
  let templates: [String: Template]
  /// The answers for every template asking for any theme file by its name, with or without
  /// extension, worked out once: a page asks for the same few partials 100,000 times.
  private let answers: [String: [String: Template]]

  init(templates: [String: Template]) {
    self.templates = templates
    var names: Set<String> = []
    for path in templates.keys {
      names.insert(path)
      if let suffix = Self.fileExtension(of: path) {
        names.insert(String(path.dropLast(suffix.count)))
      }
    }
    var answers: [String: [String: Template]] = [:]
    for includer in Set(templates.values.map(\.name)) {
      var found: [String: Template] = [:]
      for name in names {
        found[name] = Self.resolve(name, includedFrom: includer, in: templates)
      }
      answers[includer] = found
    }
    self.answers = answers
  }

  func partial(named name: String, includedFrom includer: String) -> Template? {
    answers[includer]?[name] ?? Self.resolve(name, includedFrom: includer, in: templates)
  }

  /// `name` with the including template's extension, then `name` as written.
  static func resolve(
    _ name: String, includedFrom includer: String, in templates: [String: Template]
  ) -> Template? {
    if let suffix = fileExtension(of: includer), !name.hasSuffix(suffix),
      let template = templates[name + suffix]
    {
      return template
    }
    return templates[name]
  }

  /// The extension of the last part of `path`, dot included (`.html`); nil when it has none or
  /// the name starts with its only dot.
  static func fileExtension(of path: String) -> String? {
    let bytes = path.utf8
    var index = bytes.endIndex
    while index > bytes.startIndex {
      let before = bytes.index(before: index)
      switch bytes[before] {
      case UInt8(ascii: "/"):
        return nil
      case UInt8(ascii: "."):
        if before == bytes.startIndex || bytes[bytes.index(before: before)] == UInt8(ascii: "/") {
          return nil
        }
        return String(path[before...])
      default:
        index = before
      }
    }
    return nil
  }
}
