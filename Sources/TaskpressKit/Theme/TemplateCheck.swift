import Mustache

/// Checks a theme's templates against `TemplateModel` when they are loaded, before any data is
/// read: a name that no page can give a template is an error (`todo.md:1:1: unknown variable
/// 'todo.titel'; did you mean 'todo.title'?`), and a layout without its `{{{content}}}`, a
/// template that overrides nothing, or a body template given twice is a warning.
///
/// Each body template is walked with what its page kind sees, the layout once for each kind
/// (with `content`); sections push what they name, inverted sections push nothing, partials and
/// parents are followed with the context where they are included, and a parent's blocks are
/// replaced by the arguments given to it. A tag in a partial is an error only when it resolves
/// in none of the places the partial is included from.
struct TemplateCheck {
  let theme: Theme
  private var outlines: [String: TemplateOutline] = [:]
  /// Each variable or section tag, by file and position: whether it resolved anywhere, and
  /// the error of the first place it did not.
  private var tags: [TagKey: (resolved: Bool, problem: String?)] = [:]
  /// Errors that do not depend on where a template is included.
  private var errors: [TagKey: String] = [:]
  /// The theme files a walk reached.
  private var reached: Set<String> = []
  /// The partials walked with no blocks given, each with the context it was walked in: the
  /// same partial in the same context finds the same names again, so it is walked once.
  private var walked: Set<Walk> = []

  private struct Walk: Hashable {
    var file: String
    var stack: [Frame]
    var isLayout: Bool
  }
  /// `{{{content}}}` (or `{{& content}}`) tags in the layout and its partials.
  private var contentPlacements: Set<TagKey> = []
  /// Partials nested deeper than this are not followed further: a partial that includes itself
  /// (twice, say) is walked a few hundred times at most, not endlessly.
  static let maximumDepth = 8

  private struct TagKey: Hashable, Comparable {
    var file: String
    var line: Int
    var column: Int

    static func < (a: TagKey, b: TagKey) -> Bool {
      (a.file, a.line, a.column) < (b.file, b.line, b.column)
    }
  }

  /// A context frame: a value of a known shape, or one whose name was unknown (everything
  /// resolves in it, so that one mistake is reported once).
  private enum Frame: Hashable {
    case shape(TemplateModel.Shape)
    case unknown
  }

  init(theme: Theme) {
    self.theme = theme
  }

  /// Checks every template; returns the warnings.
  ///
  /// - Throws: ``ThemeError`` listing every unknown variable and every misused `{{content}}`,
  ///   or the first malformed template (`TemplateError`).
  mutating func run() throws -> [BuildWarning] {
    for path in theme.templatePaths {
      guard let file = theme.files[path] else { continue }
      outlines[path] = try TemplateOutline(bytes: file.contents, name: file.displayPath)
    }
    for kind in PageKind.allCases.map(\.name) {
      let path = try theme.bodyTemplate(kind)
      walkFile(path, stack: [.shape(TemplateModel.body(kind))], isLayout: false)
    }
    for shape in TemplateModel.layout {
      walkFile("layout.html", stack: [.shape(shape)], isLayout: true)
    }
    var problems = errors
    for (key, entry) in tags where !entry.resolved {
      if let problem = entry.problem { problems[key] = problem }
    }
    if !problems.isEmpty {
      throw ThemeError(problems: problems.keys.sorted().compactMap { problems[$0] })
    }
    return warnings()
  }

  // MARK: - Walking

  private mutating func walkFile(_ path: String, stack: [Frame], isLayout: Bool) {
    guard let outline = outlines[path] else { return }
    reached.insert(path)
    walk(outline.tags, file: path, stack: stack, blocks: [:], isLayout: isLayout, depth: 0)
  }

  private mutating func walk(
    _ tags: [TemplateOutline.Tag], file: String, stack: [Frame],
    blocks: [String: (tags: [TemplateOutline.Tag], file: String)], isLayout: Bool, depth: Int
  ) {
    for tag in tags {
      switch tag.kind {
      case .variable(let escaped):
        if isLayout, tag.name == "content" {
          let key = key(tag, in: file)
          if escaped {
            errors[key] = message(
              tag, in: file,
              "'{{content}}' escapes the page's HTML, so every page would show its markup as"
                + " text; write '{{{content}}}'")
            continue
          }
          contentPlacements.insert(key)
        }
        _ = check(tag, in: file, stack: stack)
      case .section(let inverted):
        let found = check(tag, in: file, stack: stack)
        var inner = stack
        if !inverted {
          switch found {
          case .shape(.list(let element)): inner.append(.shape(element))
          case .some(let frame): inner.append(frame)
          case nil: inner.append(.unknown)
          }
        }
        walk(
          tag.children, file: file, stack: inner, blocks: blocks, isLayout: isLayout,
          depth: depth)
      case .partial, .parent:
        if tag.isDynamic {
          var name = tag
          name.name = String(tag.name.dropFirst())
          _ = check(name, in: file, stack: stack)
          continue
        }
        guard let partial = partialPath(tag.name, includedFrom: file) else {
          errors[key(tag, in: file)] = message(
            tag, in: file, "partial '\(tag.name)' not found" + partialSuggestion(tag.name, file))
          continue
        }
        guard depth < Self.maximumDepth, let outline = outlines[partial] else { continue }
        reached.insert(partial)
        if blocks.isEmpty, tag.kind == .partial,
          !walked.insert(Walk(file: partial, stack: stack, isLayout: isLayout)).inserted
        {
          continue
        }
        var inner = blocks
        if tag.kind == .parent {
          for child in tag.children where child.kind == .block && inner[child.name] == nil {
            // The outermost argument for a block wins.
            inner[child.name] = (child.children, file)
          }
        }
        walk(
          outline.tags, file: partial, stack: stack, blocks: inner, isLayout: isLayout,
          depth: depth + 1)
      case .block:
        if let argument = blocks[tag.name] {
          walk(
            argument.tags, file: argument.file, stack: stack, blocks: blocks, isLayout: isLayout,
            depth: depth)
        } else {
          walk(
            tag.children, file: file, stack: stack, blocks: blocks, isLayout: isLayout,
            depth: depth)
        }
      }
    }
  }

  /// Looks `tag`'s name up in `stack`; records whether it resolved. Returns what it names.
  private mutating func check(_ tag: TemplateOutline.Tag, in file: String, stack: [Frame])
    -> Frame?
  {
    let key = key(tag, in: file)
    if let found = Self.resolve(tag.nameParts, in: stack) {
      tags[key] = (true, nil)
      return found
    }
    if tags[key] == nil {
      var text = "unknown variable '\(tag.name)'"
      if tag.name == "content" {
        text += "; only layout.html has the page's body, as '{{{content}}}'"
      } else if let suggestion = suggestion(for: tag, stack: stack) {
        text += "; did you mean '\(suggestion)'?"
      }
      tags[key] = (false, message(tag, in: file, text))
    }
    return nil
  }

  /// What `parts` name in `stack`, looked up as Mustache does: the first part in the nearest
  /// frame that has it, the others inside it (a frame whose field is missing or optional lets
  /// the lookup go on to the frames below).
  private static func resolve(_ parts: [String], in stack: [Frame]) -> Frame? {
    guard let first = parts.first else { return stack.last ?? .unknown }
    frames: for frame in stack.reversed() {
      switch frame {
      case .unknown:
        return .unknown
      case .shape(let shape):
        guard var field = shape.field(first) else { continue }
        for part in parts.dropFirst() {
          guard let next = field.shape.field(part) else { continue frames }
          field = next
        }
        return .shape(field.shape)
      }
    }
    return nil
  }

  private func suggestion(for tag: TemplateOutline.Tag, stack: [Frame]) -> String? {
    var candidates: [String] = []
    for case .shape(let shape) in stack.reversed() {
      candidates += shape.names(depth: max(1, tag.nameParts.count))
    }
    return Suggestion.closest(to: tag.name, in: candidates)
  }

  /// The theme file `{{> name}}` in `includer` finds: `name` with the includer's extension,
  /// then `name` as written (as the build's partial resolver does).
  private func partialPath(_ name: String, includedFrom includer: String) -> String? {
    Self.partialPath(name, includedFrom: includer, outlines)
  }

  private func partialSuggestion(_ name: String, _ includer: String) -> String {
    let suffix = Self.fileExtension(of: includer) ?? ""
    let names = outlines.keys.filter { $0.hasSuffix(suffix) }.map {
      String($0.dropLast(suffix.count))
    }
    return Suggestion.closest(to: name, in: names).map { "; did you mean '\($0)'?" } ?? ""
  }

  private func key(_ tag: TemplateOutline.Tag, in file: String) -> TagKey {
    TagKey(file: file, line: tag.line, column: tag.column)
  }

  private func message(_ tag: TemplateOutline.Tag, in file: String, _ text: String) -> String {
    "\(displayPath(file)):\(tag.line):\(tag.column): \(text)"
  }

  private func displayPath(_ path: String) -> String {
    theme.files[path]?.displayPath ?? path
  }

  // MARK: - Warnings

  private func warnings() -> [BuildWarning] {
    var warnings: [BuildWarning] = []
    let layout = displayPath("layout.html")
    if contentPlacements.isEmpty {
      warnings.append(
        BuildWarning(
          file: layout,
          message:
            "the layout has no '{{{content}}}', so every page would be empty; put it where a"
            + " page's body goes"))
    } else if contentPlacements.count > 1 {
      warnings.append(
        BuildWarning(
          file: layout,
          message:
            "'{{{content}}}' is in the layout \(contentPlacements.count) times, so every page"
            + " would show its body \(contentPlacements.count) times; keep one"))
    }
    let builtIn = BuiltinTheme.files.keys.filter { !$0.hasPrefix("assets/") }.sorted()
    for path in theme.templatePaths where theme.isUserFile(path) {
      let (base, suffix) = Self.split(path)
      if PageKind.allCases.contains(where: { $0.name == base }), suffix == ".md",
        theme.isUserFile(base + ".html")
      {
        warnings.append(
          BuildWarning(
            file: displayPath(path),
            message:
              "ignored: '\(base).html' is in the same folder and is used instead (when a page's"
              + " template is there as both, the .html one is used); remove one of them"))
        continue
      }
      guard !reached.contains(path), BuiltinTheme.files[path] == nil else { continue }
      var message = "overrides no file of the theme and no template includes it"
      if let suggestion = Suggestion.closest(to: path, in: builtIn) {
        message += "; did you mean '\(suggestion)'?"
      }
      warnings.append(BuildWarning(file: displayPath(path), message: message))
    }
    // Other files outside `assets/` are not used at all: a misnamed `label.json`, say.
    let known = builtIn + ["labels.json"]
    for path in theme.files.keys.sorted() where theme.isUserFile(path) {
      guard !path.hasPrefix("assets/"), !theme.templatePaths.contains(path), !known.contains(path)
      else { continue }
      var message = "is not used: only templates (.html, .md), labels.json and assets/ are"
      if let suggestion = Suggestion.closest(to: path, in: known) {
        message += "; did you mean '\(suggestion)'?"
      }
      warnings.append(BuildWarning(file: displayPath(path), message: message))
    }
    return warnings
  }

  /// The extension of the last part of `path`, dot included (`.html`); nil when it has none or
  /// the name starts with its only dot.
  static func fileExtension(of path: String) -> String? {
    let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
    return String(name[dot...])
  }

  /// `todo` and `.md` of `todo.md`.
  private static func split(_ path: String) -> (String, String) {
    guard let suffix = Self.fileExtension(of: path) else { return (path, "") }
    return (String(path.dropLast(suffix.count)), suffix)
  }
}

// MARK: - Which templates a page reads

extension TemplateCheck {
  /// The templates a page of each kind can read when it is rendered, by `PageKind.rawValue`:
  /// its body template and `layout.html`, with every partial and parent (`{{<parent}}`) they
  /// reach, found by the walk the check makes (the same outlines, the same lookup of a
  /// partial's file). Nil for a kind whose set is not known — a dynamic name (`{{>*name}}`), a
  /// partial not found, a template that does not parse, a body template missing: that page
  /// depends on every template (fail closed).
  static func templateFiles(_ theme: Theme) -> [Set<String>?] {
    var outlines: [String: TemplateOutline] = [:]
    for path in theme.templatePaths {
      guard let file = theme.files[path],
        let outline = try? TemplateOutline(bytes: file.contents, name: file.displayPath)
      else { return PageKind.allCases.map { _ in nil } }
      outlines[path] = outline
    }
    return PageKind.allCases.map { kind in
      guard let body = try? theme.bodyTemplate(kind.name) else { return nil }
      var reached: Set<String> = []
      var pending = [body, "layout.html"]
      while let path = pending.popLast() {
        guard reached.insert(path).inserted else { continue }
        guard let outline = outlines[path] else { return nil }
        var tags = outline.tags
        while let tag = tags.popLast() {
          tags += tag.children
          guard tag.kind == .partial || tag.kind == .parent else { continue }
          guard !tag.isDynamic, let found = partialPath(tag.name, includedFrom: path, outlines)
          else { return nil }
          pending.append(found)
        }
      }
      return reached
    }
  }

  /// The theme file `{{> name}}` in `includer` finds among `outlines`: `name` with the
  /// includer's extension, then `name` as written (as the build's partial resolver does).
  static func partialPath(
    _ name: String, includedFrom includer: String, _ outlines: [String: TemplateOutline]
  ) -> String? {
    if let suffix = fileExtension(of: includer), !name.hasSuffix(suffix),
      outlines[name + suffix] != nil
    {
      return name + suffix
    }
    return outlines[name] == nil ? nil : name
  }
}
