import JSONEscaping

/// `feed.json`: a JSON Feed 1.1 (https://jsonfeed.org/version/1.1) with the entries of
/// `feed.xml` (``AtomFeed``): one item per recorded build that changed something, newest first,
/// with the same id, title, date, link and HTML content. Its bytes depend only on the record of
/// changes, so a build that changed nothing leaves it as it was.
enum JSONFeed {
  static let version = "https://jsonfeed.org/version/1.1"

  static func json(
    _ report: ChangeReport, labels: Labels, lang: String, siteTitle: String, routes: Routes,
    baseURL: String?
  ) -> [UInt8] {
    func link(_ name: String) -> String {
      baseURL.map { routes.absolute(name, baseURL: $0) }
        ?? routes.link(to: name, fromFile: "feed.json")
    }
    var json = "{\n"
    json += "  \"version\": \(quoted(version)),\n"
    json += "  \"title\": \(quoted(labels["changes"] + " · " + siteTitle)),\n"
    if let baseURL {
      let base = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
      json += "  \"home_page_url\": \(quoted(link("changes"))),\n"
      json += "  \"feed_url\": \(quoted(base + "feed.json")),\n"
    }
    json += "  \"language\": \(quoted(lang)),\n"
    json += "  \"authors\": [{\"name\": \(quoted(siteTitle))}],\n"
    json += "  \"items\": ["
    for (index, build) in report.builds.enumerated() {
      let page = report.page(ofBuildAt: index)
      let url = link(page == 1 ? "changes" : "changes/\(page)") + "#build-\(build.build)"
      let title =
        labels.format("buildNumber", ["n": "\(build.build)"]) + ": "
        + labels.changesCount(build.changes.count)
      json += index == 0 ? "\n" : ",\n"
      json += "    {\n"
      json += "      \"id\": \(quoted(build.id)),\n"
      json += "      \"url\": \(quoted(url)),\n"
      json += "      \"title\": \(quoted(title)),\n"
      json += "      \"content_html\": \(quoted(AtomFeed.content(build, labels: labels))),\n"
      json += "      \"date_published\": \(quoted(build.date))\n"
      json += "    }"
    }
    json += report.builds.isEmpty ? "]\n" : "\n  ]\n"
    json += "}\n"
    return Array(json.utf8)
  }

  /// `text` as a JSON string (RFC 8259): quoted, with `"`, `\` and the control characters
  /// escaped, and `<`, `>`, `&`, U+2028 and U+2029 too, so that it can also stand in a script.
  static func quoted(_ text: String) -> String {
    JSONText.quoted(text, .script)
  }
}
