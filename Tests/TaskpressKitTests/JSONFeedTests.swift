import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

/// `feed.json`: a JSON Feed 1.1 with the entries of `feed.xml`.
@Suite struct JSONFeedTests {
  /// The problems of `feed` against the rules of JSON Feed 1.1 (jsonfeed.org/version/1.1): the
  /// version URL, a title, items each with a string id and content_html or content_text, dates
  /// in RFC 3339, URLs as strings, authors as objects with a name.
  static func problems(_ feed: [String: Any]) -> [String] {
    var problems: [String] = []
    let rfc3339 = try? NSRegularExpression(
      pattern: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"#)
    func isDate(_ value: Any?) -> Bool {
      guard let text = value as? String else { return false }
      return rfc3339?.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        && ISO8601DateFormatter().date(from: text) != nil
    }
    if feed["version"] as? String != "https://jsonfeed.org/version/1.1" {
      problems.append("version is not https://jsonfeed.org/version/1.1")
    }
    if (feed["title"] as? String ?? "").isEmpty { problems.append("no title") }
    for key in ["home_page_url", "feed_url"] where feed[key] != nil {
      if !(feed[key] is String) { problems.append("\(key) is not a string") }
    }
    if let authors = feed["authors"] {
      let list = authors as? [[String: Any]] ?? []
      if list.isEmpty || list.contains(where: { !($0["name"] is String) }) {
        problems.append("authors is not a list of objects with a name")
      }
    }
    guard let items = feed["items"] as? [[String: Any]] else {
      return problems + ["items is not a list of objects"]
    }
    var ids: Set<String> = []
    for (index, item) in items.enumerated() {
      guard let id = item["id"] as? String, !id.isEmpty else {
        problems.append("item \(index) has no id")
        continue
      }
      if !ids.insert(id).inserted { problems.append("item \(index): id '\(id)' twice") }
      if !(item["content_html"] is String) && !(item["content_text"] is String) {
        problems.append("item \(index) has neither content_html nor content_text")
      }
      for key in ["date_published", "date_modified"] where item[key] != nil {
        if !isDate(item[key]) { problems.append("item \(index): \(key) is not RFC 3339") }
      }
      if item["url"] != nil, !(item["url"] is String) {
        problems.append("item \(index): url is not a string")
      }
    }
    return problems
  }

  /// The entries of an Atom feed: id, title, updated, link and content (unescaped).
  static func atomEntries(_ xml: String) -> [[String]] {
    func value(_ text: String, _ open: String, _ close: String) -> String {
      guard let start = text.range(of: open), let end = text.range(of: close) else { return "" }
      return String(text[start.upperBound..<end.lowerBound])
        .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
        .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }
    return xml.components(separatedBy: "<entry>").dropFirst().map { entry in
      [
        value(entry, "<id>", "</id>"), value(entry, "<title>", "</title>"),
        value(entry, "<updated>", "</updated>"),
        value(entry, "<link rel=\"alternate\" type=\"text/html\" href=\"", "\"/>"),
        value(entry, "<content type=\"html\">", "</content>"),
      ]
    }
  }

  static func jsonEntries(_ feed: [String: Any]) -> [[String]] {
    (feed["items"] as? [[String: Any]] ?? []).map { item in
      ["id", "title", "date_published", "url", "content_html"].map { item[$0] as? String ?? "?" }
    }
  }

  @Test("valid JSON Feed 1.1, the entries of feed.xml, unchanged by a build that changes nothing")
  func sameEntries() throws {
    for baseURL in [nil, "https://example.org/reports"] {
      let folder = try TemporaryFolder()
      defer { folder.cleanUp() }
      let database = folder.sub("todo.sqlite")
      try Database.createForTesting(at: database, sql: ChangesTests.todoSchema)
      var options = BuildOptions()
      options.todos = database
      options.output = folder.sub("site")
      options.baseURL = baseURL
      options.date = "2026-12-01T06:00:00Z"
      _ = try ChangesTests.build(options)
      // No build with changes yet: a feed of no items.
      let empty = try ChangesTests.json(options.output + "/feed.json")
      #expect(Self.problems(empty) == [])
      #expect((empty["items"] as? [Any])?.isEmpty == true)
      try ChangesTests.change(database, ChangesTests.nightly)
      options.date = "2026-12-02T06:00:00Z"
      _ = try ChangesTests.build(options)
      // Hostile text: quotes, markup, a backslash, control characters, line separators.
      try ChangesTests.change(
        database,
        "UPDATE todo SET text = 'a \"q\" <b>&amp; \\ ' || char(1) || char(9) || char(8232) "
          + "|| ' 日本 😀' WHERE pk = 9;")
      options.date = "2026-12-03T05:30:00Z"
      _ = try ChangesTests.build(options)
      let bytes = try Data(contentsOf: URL(fileURLWithPath: options.output + "/feed.json"))
      let feed = try ChangesTests.json(options.output + "/feed.json")
      #expect(Self.problems(feed) == [])
      let xml = ChangesTests.text(options.output + "/feed.xml")
      #expect(Self.jsonEntries(feed) == Self.atomEntries(xml))
      #expect(Self.jsonEntries(feed).count == 2)
      #expect(Self.jsonEntries(feed).first?[2] == "2026-12-03T05:30:00Z")
      let content = try #require(Self.jsonEntries(feed).first?[4])
      #expect(content.contains("a &quot;q&quot; &lt;b&gt;&amp;amp; \\ \u{FFFD}"))
      if baseURL != nil {
        #expect(feed["feed_url"] as? String == "https://example.org/reports/feed.json")
        #expect(feed["home_page_url"] as? String == "https://example.org/reports/changes.html")
      } else {
        #expect(feed["feed_url"] == nil)
        #expect(Self.jsonEntries(feed).first?[3] == "changes.html#build-3")
      }
      // No change: byte for byte as it was.
      options.date = "2026-12-04T06:00:00Z"
      _ = try ChangesTests.build(options)
      #expect(try Data(contentsOf: URL(fileURLWithPath: options.output + "/feed.json")) == bytes)
      // Every page links to it.
      for page in Tree.contents(options.output).keys where page.hasSuffix(".html") {
        // The 404 page's links are absolute with --base-url (it is served at any depth).
        let root =
          page == "404.html" && baseURL != nil
          ? "https://example.org/reports/"
          : String(repeating: "../", count: page.filter { $0 == "/" }.count)
        #expect(
          ChangesTests.text(options.output + "/" + page).contains(
            "<link rel=\"alternate\" type=\"application/feed+json\" href=\"\(root)feed.json\""),
          "\(page)")
      }
    }
  }

  @Test("quoted strings are JSON that parses back to the text")
  func quoting() throws {
    for text in [
      "", "plain", "\"\\/", "<script>&</script>", "\u{0}\u{1F}\u{7F}", "\u{2028}\u{2029}", "日本語 😀",
    ] {
      let data = Data(("[" + JSONFeed.quoted(text) + "]").utf8)
      let back = try #require(try JSONSerialization.jsonObject(with: data) as? [String])
      #expect(back == [text])
      #expect(!JSONFeed.quoted(text).contains("<"))
    }
  }
}
