/// `feed.xml`: an Atom feed (RFC 4287) with one entry per recorded build that changed
/// something, newest first. Its bytes depend only on the record of changes, so a build that
/// changed nothing leaves it as it was.
enum AtomFeed {
  /// Changes listed in an entry's content; the rest are counted.
  static let itemsPerEntry = 100

  static func xml(
    _ report: ChangeReport, labels: Labels, lang: String, siteTitle: String, routes: Routes,
    baseURL: String?
  ) -> [UInt8] {
    func link(_ name: String) -> String {
      baseURL.map { routes.absolute(name, baseURL: $0) }
        ?? routes.link(to: name, fromFile: "feed.xml")
    }
    var xml = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    xml += "<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"\(escape(lang))\">\n"
    xml += "  <id>\(escape(report.feedID))</id>\n"
    xml += "  <title>\(escape(labels["changes"] + " · " + siteTitle))</title>\n"
    // The latest recorded build, or the start of 1970 when none is dated yet.
    let updated = report.builds.first?.date ?? "1970-01-01T00:00:00Z"
    xml += "  <updated>\(escape(updated))</updated>\n"
    xml += "  <author><name>\(escape(siteTitle))</name></author>\n"
    xml += "  <generator>taskpress</generator>\n"
    xml += "  <link rel=\"alternate\" type=\"text/html\" href=\"\(escape(link("changes")))\"/>\n"
    if let baseURL {
      let base = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
      xml +=
        "  <link rel=\"self\" type=\"application/atom+xml\" href=\"\(escape(base))feed.xml\"/>\n"
    }
    for (index, build) in report.builds.enumerated() {
      let page = report.page(ofBuildAt: index)
      let url = link(page == 1 ? "changes" : "changes/\(page)") + "#build-\(build.build)"
      let title =
        labels.format("buildNumber", ["n": "\(build.build)"]) + ": "
        + labels.changesCount(build.changes.count)
      xml += "  <entry>\n"
      xml += "    <id>\(escape(build.id))</id>\n"
      xml += "    <title>\(escape(title))</title>\n"
      xml += "    <updated>\(escape(build.date))</updated>\n"
      xml += "    <link rel=\"alternate\" type=\"text/html\" href=\"\(escape(url))\"/>\n"
      xml += "    <content type=\"html\">\(escape(content(build, labels: labels)))</content>\n"
      xml += "  </entry>\n"
    }
    xml += "</feed>\n"
    return Array(xml.utf8)
  }

  /// An entry's HTML: each kind's changes as a list, linked to the items' pages.
  static func content(_ build: BuildChanges, labels: Labels) -> String {
    var html = ""
    var start = 0
    var shown = 0
    while start < build.changes.count {
      let kind = build.changes[start].kind
      var end = start
      while end < build.changes.count, build.changes[end].kind == kind { end += 1 }
      html += "<h3>\(escape(labels[build.changes[start].labelKey])) (\(end - start))</h3><ul>"
      for change in build.changes[start..<end] where shown < itemsPerEntry {
        shown += 1
        let title = escape(change.text.isEmpty ? "#\(change.id)" : change.text)
        html += "<li>"
        html += change.url.map { "<a href=\"\(escape($0))\">\(title)</a>" } ?? title
        if let from = change.from, let to = change.to {
          html += " (\(escape(from)) → \(escape(to)))"
        }
        html += "</li>"
      }
      html += "</ul>"
      start = end
    }
    if build.changes.count > shown {
      html +=
        "<p>\(escape(labels.format("moreChanges", ["n": "\(build.changes.count - shown)"])))</p>"
    }
    return html
  }

  /// `text` escaped for XML, with the characters XML 1.0 cannot hold replaced by U+FFFD.
  static func escape(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
      default:
        let value = scalar.value
        let allowed =
          (value >= 0x20 && value <= 0xD7FF) || (value >= 0xE000 && value <= 0xFFFD)
          || value >= 0x10000
        result.unicodeScalars.append(allowed ? scalar : "\u{FFFD}")
      }
    }
    return result
  }
}
