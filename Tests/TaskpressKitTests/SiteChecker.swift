/// Checks a site built from hostile data against the same build over benign data of the same
/// shape (DESIGN §3, "the safety property"), and returns every violation it finds.
///
/// What it holds the hostile site to:
/// - every page parses with ``HTMLTokenizer`` without a problem;
/// - per page kind (`<body class="page-...">`), the set of distinct (element, sorted attribute
///   names) pairs, comments included, equals the benign site's: data adds no element or
///   attribute, and loses none;
/// - no element outside the benign site's elements, no `on*` or `style` attribute, no
///   `<script>` but the theme's `assets/search.js`, no comment at all, ids unique on a page;
/// - every `href` and `src` is relative (no scheme) and resolves to a file of the site (and
///   its `#fragment` to an id there), except a canonical link, which starts with the base URL;
/// - every link has text;
/// - each expected string is visible in its page's `<body>` text (whitespace-collapsed).
struct SiteChecker {
  /// A string that must be visible as text on a page of the hostile site.
  struct Expectation {
    /// The page, relative to the site's root (`todos/3.html`).
    var file: String
    var text: String
  }

  /// A parsed page.
  struct Page {
    var file: String
    var kind: String
    var tokens: [HTMLTokenizer.Token]
    var problems: [String]
    var ids: [String]

    init(file: String, bytes: [UInt8]) {
      self.file = file
      let tokenizer = HTMLTokenizer(String(decoding: bytes, as: UTF8.self))
      tokens = tokenizer.tokens
      problems = tokenizer.problems
      var kind = "?"
      var ids: [String] = []
      for case .start(let name, let attributes, _) in tokens {
        if name == "body", let body = attributes.first(where: { $0.name == "class" }) {
          kind = body.value
        }
        ids += attributes.filter { $0.name == "id" }.map(\.value)
      }
      self.kind = kind
      self.ids = ids
    }

    /// `tag[attribute,attribute]` for each start tag, `#comment` for each comment.
    var signatures: Set<String> {
      var result: Set<String> = []
      for token in tokens {
        switch token {
        case .start(let name, let attributes, _):
          result.insert("\(name)[\(attributes.map(\.name).sorted().joined(separator: ","))]")
        case .comment: result.insert("#comment")
        default: break
        }
      }
      return result
    }

    /// The text of `<body>`: tags removed, `<br>` as a line break, script content left out.
    var bodyText: String {
      var text = ""
      var inBody = false
      var inScript = false
      for token in tokens {
        switch token {
        case .start(let name, _, _):
          if name == "body" { inBody = true }
          if name == "br" { text += "\n" }
          if name == "script" || name == "style" { inScript = true }
        case .end(let name):
          if name == "body" { inBody = false }
          if name == "script" || name == "style" { inScript = false }
        case .text(let part) where inBody && !inScript:
          text += part
        default: break
        }
      }
      return text
    }
  }

  /// The base URL the site was built with; canonical links start with it.
  let baseURL: String
  /// The sites as path -> bytes (see `Tree.contents`).
  let hostile: [String: [UInt8]]
  let benign: [String: [UInt8]]

  /// HTML whitespace collapsed to single spaces, trimmed.
  static func collapse(_ text: String) -> String {
    text.unicodeScalars.split { ["\u{20}", "\t", "\n", "\r", "\u{C}"].contains($0) }
      .map { String(String.UnicodeScalarView($0)) }.joined(separator: " ")
  }

  static func pages(_ site: [String: [UInt8]]) -> [Page] {
    site.keys.filter { $0.hasSuffix(".html") }.sorted().compactMap { file in
      site[file].map { Page(file: file, bytes: $0) }
    }
  }

  func violations(expecting expectations: [Expectation]) -> [String] {
    var violations: [String] = []
    let hostilePages = Self.pages(hostile)
    let benignPages = Self.pages(benign)
    if hostilePages.isEmpty { violations.append("the hostile site has no pages") }

    // The benign site sets what may occur.
    var benignByKind: [String: Set<String>] = [:]
    var allowedElements: Set<String> = []
    for page in benignPages {
      benignByKind[page.kind, default: []].formUnion(page.signatures)
      for case .start(let name, _, _) in page.tokens { allowedElements.insert(name) }
      for problem in page.problems {
        violations.append("benign \(page.file): \(problem)")
      }
    }
    var hostileByKind: [String: Set<String>] = [:]
    let idsByFile = Dictionary(uniqueKeysWithValues: hostilePages.map { ($0.file, Set($0.ids)) })

    for page in hostilePages {
      let report = { (message: String) in violations.append("\(page.file): \(message)") }
      page.problems.forEach(report)
      hostileByKind[page.kind, default: []].formUnion(page.signatures)
      for id in Set(page.ids) where page.ids.filter({ $0 == id }).count > 1 {
        report("the id '\(id)' occurs more than once")
      }
      checkElements(page, allowed: allowedElements, ids: idsByFile, report: report)
    }

    let kinds = Set(hostileByKind.keys).union(benignByKind.keys)
    for kind in kinds.sorted() {
      let made = hostileByKind[kind] ?? []
      let expected = benignByKind[kind] ?? []
      for extra in made.subtracting(expected).sorted() {
        violations.append("\(kind): \(extra) occurs only with hostile data")
      }
      for missing in expected.subtracting(made).sorted() {
        violations.append("\(kind): \(missing) occurs only with benign data")
      }
    }

    let texts = Dictionary(
      uniqueKeysWithValues: hostilePages.map { ($0.file, Self.collapse($0.bodyText)) })
    for expectation in expectations {
      guard let text = texts[expectation.file] else {
        violations.append("\(expectation.file): no such page")
        continue
      }
      let wanted = Self.collapse(expectation.text)
      if !wanted.isEmpty, !text.contains(wanted) {
        violations.append(
          "\(expectation.file): the text \(String(reflecting: String(wanted.prefix(80)))) "
            + "is not visible")
      }
    }
    return violations
  }

  private func checkElements(
    _ page: Page, allowed: Set<String>, ids: [String: Set<String>],
    report: (String) -> Void
  ) {
    var openLinks: [String] = []
    for token in page.tokens {
      switch token {
      case .start(let name, let attributes, _):
        if !allowed.contains(name) { report("<\(name)> is not an element of the theme") }
        for attribute in attributes {
          if attribute.name.hasPrefix("on") { report("<\(name)> has '\(attribute.name)'") }
          if attribute.name == "style" { report("<\(name)> has a style attribute") }
        }
        let values = Dictionary(
          attributes.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        if name == "script" {
          let src = values["src"] ?? ""
          // The theme's three scripts: the contacts' filter, the site search, and the flow
          // pages' days open and overdue as of the reader's day.
          let theme = ["assets/search.js", "assets/site-search.js", "assets/flow.js"]
          if Set(attributes.map(\.name)) != ["src", "defer"]
            || !theme.contains(where: { src.hasSuffix("/" + $0) || src == $0 })
          {
            report(
              "a <script> that is not one of the theme's (search.js, site-search.js, flow.js)")
          }
        }
        if name == "style" { report("a <style> element") }
        for key in ["href", "src", "action", "formaction", "srcset", "poster", "data"] {
          guard let url = values[key] else { continue }
          if key == "srcset" {
            // Candidates `URL 320w, URL 640w`: each URL is checked.
            for candidate in url.split(separator: ",") {
              let parts = candidate.split(separator: " ")
              guard parts.count == 2, let width = parts[1].dropLast().nonEmptyInt,
                parts[1].hasSuffix("w"), width > 0
              else {
                report("<\(name) srcset> has a candidate '\(candidate)' that is not 'URL 123w'")
                continue
              }
              checkURL(
                String(parts[0]), attribute: key, element: name, from: page.file, ids: ids,
                report: report)
            }
            continue
          }
          if name == "link", values["rel"] == "canonical", key == "href" {
            if !url.hasPrefix(baseURL) { report("the canonical link '\(url)' is off the site") }
            continue
          }
          let base = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
          if page.file == "404.html", !baseURL.isEmpty, url.hasPrefix(base) {
            // Served for missing addresses at any depth, 404.html links absolutely into the
            // site: checked as the same link from the site's root.
            let path = String(url.dropFirst(base.count))
            checkURL(
              path.isEmpty ? "./" : path, attribute: key, element: name, from: page.file, ids: ids,
              report: report)
            continue
          }
          checkURL(url, attribute: key, element: name, from: page.file, ids: ids, report: report)
        }
        if name == "a" { openLinks.append("") }
      case .text(let text):
        if !openLinks.isEmpty { openLinks[openLinks.count - 1] += text }
      case .end(let name) where name == "a":
        if let text = openLinks.popLast(), Self.collapse(text).isEmpty {
          report("a link has no text")
        }
      case .comment(let text):
        report("a comment <!--\(text.prefix(40))-->")
      default: break
      }
    }
  }

  private func checkURL(
    _ url: String, attribute: String, element: String, from file: String,
    ids: [String: Set<String>], report: (String) -> Void
  ) {
    let describe = "<\(element) \(attribute)=\(String(reflecting: String(url.prefix(60))))>"
    if url.isEmpty {
      report("\(describe) is empty")
      return
    }
    // A scheme is letters, digits, `+`, `-`, `.` before a `:` that comes before any `/?#`.
    let beforePath = url.prefix { !"/?#".contains($0) }
    if beforePath.contains(":") {
      report("\(describe) has a scheme")
      return
    }
    if url.hasPrefix("/") || url.contains("\\")
      || url.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
    {
      report("\(describe) is not a plain relative URL")
      return
    }
    var path = url
    var fragment: String?
    if let hash = path.firstIndex(of: "#") {
      fragment = String(path[path.index(after: hash)...])
      path = String(path[..<hash])
    }
    if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
    var target: String
    if path.isEmpty {
      target = file
    } else {
      var parts = file.split(separator: "/").dropLast().map(String.init)
      for part in path.split(separator: "/", omittingEmptySubsequences: false) {
        switch part {
        case "", ".": continue
        case "..":
          if parts.popLast() == nil {
            report("\(describe) leaves the site")
            return
          }
        default: parts.append(String(part))
        }
      }
      target = parts.joined(separator: "/")
      if path.hasSuffix("/") || path == "." || path == ".." {
        target += target.isEmpty ? "index.html" : "/index.html"
      }
    }
    guard hostile[target] != nil else {
      report("\(describe) points at '\(target)', which the site does not have")
      return
    }
    if let fragment, !fragment.isEmpty, let targetIDs = ids[target], !targetIDs.contains(fragment) {
      report("\(describe) points at an id that '\(target)' does not have")
    }
  }
}

extension Substring {
  fileprivate var nonEmptyInt: Int? { isEmpty ? nil : Int(self) }
}
