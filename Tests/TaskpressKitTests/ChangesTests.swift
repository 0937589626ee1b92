import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

/// The record of changes between builds: `changes.html`, `data/changes.json`,
/// `data/history.json` and `feed.xml`.
@Suite struct ChangesTests {
  static let todoSchema = """
    CREATE TABLE todo(pk INTEGER PRIMARY KEY, text VARCHAR(25), priority INTEGER, complete BOOLEAN);
    INSERT INTO todo VALUES (1, 'Buy milk', 1, 0), (2, 'Walk the dog', 2, 0),
      (3, 'Read a book', 3, 1), (4, 'Fix the bike', 2, 0), (5, 'Call mom', 1, 0),
      (6, 'Pay the bills', 1, 1), (7, 'Old errand', 3, 0);
    """

  /// The night's changes: 3 added, 2 completed, 1 reopened, 1 priority changed, 1 text
  /// changed, 1 removed.
  static let nightly = """
    INSERT INTO todo VALUES (8, 'New A', 1, 0), (9, 'New B', 2, 0), (10, 'New C', 3, 0);
    UPDATE todo SET complete = 1 WHERE pk IN (1, 2);
    UPDATE todo SET complete = 0 WHERE pk = 3;
    UPDATE todo SET priority = 3 WHERE pk = 4;
    UPDATE todo SET text = 'Call mum' WHERE pk = 5;
    DELETE FROM todo WHERE pk = 7;
    """

  /// The 9 changes as `data/changes.json` lists them: kind, key, text, from, to, url.
  static let expected: [[String]] = [
    ["added", "8", "New A", "", "", "todos/8.html"],
    ["added", "9", "New B", "", "", "todos/9.html"],
    ["added", "10", "New C", "", "", "todos/10.html"],
    ["completed", "1", "Buy milk", "", "", "todos/1.html"],
    ["completed", "2", "Walk the dog", "", "", "todos/2.html"],
    ["reopened", "3", "Read a book", "", "", "todos/3.html"],
    ["priority", "4", "Fix the bike", "Medium", "Low", "todos/4.html"],
    ["text", "5", "Call mum", "Call mom", "Call mum", "todos/5.html"],
    ["removed", "7", "Old errand", "", "", ""],
  ]

  static let reportFiles = ["changes.html", "data/changes.json", "feed.xml"]

  static func build(_ options: BuildOptions) throws -> [BuildWarning] {
    let warnings = WarningLog()
    _ = try Build.run(
      options, interrupt: InterruptFlag(), reporter: Build.Reporter(warning: warnings.append))
    return warnings.all
  }

  static func change(_ database: String, _ sql: String) throws {
    let connection = try Database.openWritableForTesting(at: database)
    try connection.execute(sql)
  }

  static func json(_ path: String) throws -> [String: Any] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  /// The changes of the newest build in `data/changes.json`, as `expected` lists them.
  static func latestChanges(_ site: String) throws -> [[String]] {
    let builds = try #require(try json(site + "/data/changes.json")["builds"] as? [[String: Any]])
    let changes = try #require(builds.first?["changes"] as? [[String: Any]])
    return changes.map { change in
      [
        change["change"] as? String ?? "?", "\(change["id"] ?? "?")",
        change["text"] as? String ?? "?",
        change["from"] as? String ?? "", change["to"] as? String ?? "",
        change["url"] as? String ?? "",
      ]
    }
  }

  /// Every `href` in `text` (with `&quot;` as quotes too, as in an Atom entry's content).
  static func links(_ text: String) -> [String] {
    let plain = text.replacingOccurrences(of: "&quot;", with: "\"")
    let pattern = try? NSRegularExpression(pattern: #"href="([^"]*)""#)
    let range = NSRange(plain.startIndex..., in: plain)
    return (pattern?.matches(in: plain, range: range) ?? []).compactMap {
      Range($0.range(at: 1), in: plain).map { String(plain[$0]) }
    }
  }

  static func text(_ path: String) -> String {
    String(decoding: readFile(path) ?? [], as: UTF8.self)
  }

  /// The nightly scenario, into the same folder each night or, with `fresh`, into a new folder
  /// each night with `--previous` the last night's.
  @Test(
    "a night's changes are listed exactly, each linked to its page; a build with no change leaves the record byte for byte",
    arguments: [false, true])
  func nightly(fresh: Bool) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(at: database, sql: Self.todoSchema)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("night1")
    options.date = "2026-11-30T06:00:00Z"
    try #require(try Self.build(options) == [])
    // The first build compared with nothing: a history of one build with its date, no changes.
    let first = try Self.json(options.output + "/data/history.json")
    let firstBuilds = try #require(first["builds"] as? [[String: Any]])
    #expect(firstBuilds.count == 1)
    #expect(firstBuilds.first?["date"] as? String == "2026-11-30T06:00:00Z")
    #expect(Self.text(options.output + "/feed.xml").contains("<entry>") == false)

    try Self.change(database, Self.nightly)
    let databaseBytes = readFile(database)
    if fresh {
      options.previous = options.output
      options.output = folder.sub("night2")
    }
    options.date = "2026-12-01T06:00:00Z"
    try #require(try Self.build(options) == [])
    let site = options.output
    #expect(try Self.latestChanges(site) == Self.expected)

    // changes.html: the 9, grouped, each linked to a page that exists; the removed one shows
    // its last text and links nowhere.
    let page = Self.text(site + "/changes.html")
    let section = try #require(
      page.components(separatedBy: "<section").dropFirst().first?.components(
        separatedBy: "</section>"
      ).first)
    let links = Self.links(section)
    #expect(links == Self.expected.map(\.[5]).filter { !$0.isEmpty })
    for link in links { #expect(readFile(site + "/" + link) != nil, "\(link)") }
    #expect(section.contains("<li><span class=\"removed\">Old errand</span></li>"))
    #expect(section.contains("<span class=\"change-detail\">Medium → Low</span>"))
    #expect(section.contains("<span class=\"change-detail\">Call mom → Call mum</span>"))
    for (label, count) in [
      ("Tasks added", 3), ("Tasks completed", 2), ("Tasks reopened", 1), ("Priority changed", 1),
      ("Text changed", 1), ("Tasks removed", 1),
    ] {
      #expect(section.contains("<h3>\(label) <span class=\"count\">\(count)</span></h3>"))
    }

    // feed.xml: one entry, with the 9.
    let feed = Self.text(site + "/feed.xml")
    #expect(feed.components(separatedBy: "<entry>").count == 2)
    #expect(feed.contains("<id>tag:taskpress.invalid,2026-12-01:build-2</id>"))
    #expect(feed.contains("<title>Build 2: 9 changes</title>"))
    #expect(feed.contains("  <updated>2026-12-01T06:00:00Z</updated>\n"))
    let content = try #require(feed.components(separatedBy: "<content type=\"html\">").last)
    #expect(content.components(separatedBy: "&lt;li&gt;").count == 10)
    let feedLinks = Self.links(feed)
    #expect(feedLinks == ["changes.html", "changes.html#build-2"] + links)
    for link in feedLinks { #expect(readFile(site + "/" + link.prefix { $0 != "#" }) != nil) }
    // The first index page shows the latest changes.
    let latest = Self.text(site + "/index.html")
    #expect(latest.contains("<h2 id=\"report-changes\">Latest changes</h2>"))
    #expect(
      latest.contains(
        "<p class=\"changes-when\"><a href=\"changes.html\">9 changes</a> · <time datetime=\"2026-12-01T06:00:00Z\">2026-12-01</time></p>"
      ))

    // A night with no change: nothing new, and the record's bytes as they were, whatever the
    // date.
    let before = Self.reportFiles.map { readFile(site + "/" + $0) }
    let history = readFile(site + "/data/history.json")
    if fresh {
      options.previous = site
      options.output = folder.sub("night3")
    }
    options.date = "2026-12-02T06:00:00Z"
    try #require(try Self.build(options) == [])
    // changes.html only says the build's date (`--date`, as `SOURCE_DATE_EPOCH` would) in its
    // footer.
    let dated = Self.reportFiles.map { readFile(options.output + "/" + $0) }
    #expect(dated.dropFirst() == before.dropFirst())
    let generated = "<time datetime=\"2026-12-0"
    #expect(
      dated.first.flatMap { $0.map { String(decoding: $0, as: UTF8.self) } }?
        .replacingOccurrences(of: generated + "2\">2026-12-02", with: generated + "1\">2026-12-01")
        == before.first.flatMap { $0.map { String(decoding: $0, as: UTF8.self) } })
    #expect(readFile(options.output + "/data/history.json") == history)
    let builds = try #require(
      try Self.json(options.output + "/data/history.json")["builds"] as? [[String: Any]])
    #expect(builds.map { $0["build"] as? Int } == [1, 2])
    #expect(
      builds.map { $0["date"] as? String } == ["2026-11-30T06:00:00Z", "2026-12-01T06:00:00Z"])
    #expect(builds.last?["changes"] as? Int == 9)
    // Nothing was written to the database.
    #expect(readFile(database) == databaseBytes)
  }

  @Test(
    "three dated nights: history has the three dates, the trend's axis shows them, the front page says what changed since the last build"
  )
  func threeNights() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(at: database, sql: Self.todoSchema)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("site")
    for (night, sql) in [
      "", "UPDATE todo SET complete = 1 WHERE pk IN (1, 2);",
      "INSERT INTO todo VALUES (8, 'New A', 1, 0), (9, 'New B', 2, 0); UPDATE todo SET complete = 1 WHERE pk = 4;",
    ].enumerated() {
      if !sql.isEmpty { try Self.change(database, sql) }
      options.date = "2026-12-0\(night + 1)T06:00:00Z"
      try #require(try Self.build(options) == [])
    }
    let builds = try #require(
      try Self.json(options.output + "/data/history.json")["builds"] as? [[String: Any]])
    #expect(
      builds.map { $0["date"] as? String } == [
        "2026-12-01T06:00:00Z", "2026-12-02T06:00:00Z", "2026-12-03T06:00:00Z",
      ])
    let index = Self.text(options.output + "/index.html")
    #expect(
      index.contains(
        "<p class=\"chart-axis chart-axis-trend\"><span>2026-12-01</span><span>2026-12-02</span><span>2026-12-03</span></p>"
      ), "\(index)")
    // Night 2: 4 of 7 complete (57%); night 3: 5 of 9 (55%).
    #expect(
      index.contains(
        "<p class=\"progress-change\">+1 completed, +2 added since the last build: 57% → 55% complete</p>"
      ))
    // The trend's values: 0 and the largest count.
    #expect(index.contains(#"<text x="60" y="292">0</text>"#))
  }

  @Test("possessions: added, removed, photo changed, name and description changed")
  func possessions() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("possessions.sqlite")
    // Real PNGs, different for each seed (a photo that does not decode is not published).
    let png = { (seed: Int) in SiteBuildTests.png(seed) }
    try Database.createForTesting(
      at: database,
      sql: """
        CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);
        INSERT INTO possessions VALUES (1, 'Lamp', 'brass', X'\(png(1))'),
          (2, 'Chair', 'oak', X'\(png(2))'), (3, 'Desk', '', NULL), (4, 'Rug', 'red', NULL);
        """)
    var options = BuildOptions()
    options.possessions = database
    options.output = folder.sub("site")
    options.date = "2026-12-01"
    _ = try Self.build(options)
    try Self.change(
      database,
      """
      INSERT INTO possessions VALUES (5, 'Clock', '', NULL);
      UPDATE possessions SET photo = X'\(png(9))' WHERE id = 1;
      UPDATE possessions SET name = 'Armchair' WHERE id = 2;
      UPDATE possessions SET description = 'walnut' WHERE id = 3;
      DELETE FROM possessions WHERE id = 4;
      """)
    _ = try Self.build(options)
    let builds = try #require(
      try Self.json(options.output + "/data/changes.json")["builds"] as? [[String: Any]])
    let changes = try #require(builds.first?["changes"] as? [[String: Any]])
    #expect(
      changes.map { "\($0["source"] ?? "") \($0["change"] ?? "") \($0["id"] ?? "")" } == [
        "possessions added 5", "possessions photo 1", "possessions name 2",
        "possessions description 3", "possessions removed 4",
      ])
    #expect(
      changes.map { $0["url"] as? String } == [
        "possessions/5.html", "possessions/1.html", "possessions/2.html", "possessions/3.html", nil,
      ])
    #expect(changes[2]["from"] as? String == "Chair")
    #expect(changes[2]["to"] as? String == "Armchair")
    let page = Self.text(options.output + "/changes.html")
    #expect(page.contains("<h3>Photo changed <span class=\"count\">1</span></h3>"))
    #expect(page.contains("<li><span class=\"removed\">Rug</span></li>"))
  }

  @Test("without published data copies the snapshot is kept in the state folder")
  func snapshotInState() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(at: database, sql: Self.todoSchema)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("site")
    options.dataCopies = []
    options.date = "2026-12-01T06:00:00Z"
    _ = try Self.build(options)
    #expect(readFile(options.output + "/data/todos.json") == nil)
    #expect(readFile(folder.sub(".site.taskpress/snapshot-todos.json")) != nil)
    try Self.change(database, Self.nightly)
    _ = try Self.build(options)
    #expect(try Self.latestChanges(options.output) == Self.expected)
    // Published again: the data copy is the snapshot, the state's copy goes.
    options.dataCopies = [.todos]
    _ = try Self.build(options)
    #expect(readFile(folder.sub(".site.taskpress/snapshot-todos.json")) == nil)
    #expect(readFile(options.output + "/data/todos.json") != nil)
  }

  @Test(
    "a damaged or foreign previous record is an error naming the file; the site is left as it was",
    arguments: [
      ("data/todos.json", "[{\"pk\": 1", "not valid JSON"),
      ("data/todos.json", "[{\"pk\": 1, \"complete\": false}]", "'[0]' has no 'text'"),
      ("data/todos.json", "{\"todos\": []}", "the top level is not what taskpress writes there"),
      (
        "data/history.json", "{\"format\": \"other-2\", \"feed\": \"x\", \"builds\": []}",
        "its format is 'other-2', not 'taskpress-history-1'"
      ),
      (
        "data/changes.json", "{\"format\": \"taskpress-changes-1\", \"builds\": [{\"build\": 2}]}",
        "'builds[0]' has no 'id'"
      ),
    ])
  func damagedPrevious(file: String, contents: String, detail: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(at: database, sql: Self.todoSchema)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("site")
    _ = try Self.build(options)
    try Data(contents.utf8).write(to: URL(fileURLWithPath: options.output + "/" + file))
    let before = Tree.snapshot(options.output)
    try Self.change(database, Self.nightly)
    let what =
      file.hasSuffix("todos.json") ? "data" : file.hasSuffix("history.json") ? "history" : "changes"
    #expect(
      throws: BuildError(
        "\(options.output)/\(file): not the previous build's \(what) as taskpress writes it "
          + "(\(detail)); delete it to start the record of changes afresh, or give --previous a "
          + "copy of the last published site")
    ) {
      _ = try Self.build(options)
    }
    #expect(Tree.snapshot(options.output) == before)
  }

  @Test("a --previous folder with no taskpress data is a warning, and the history starts")
  func emptyPrevious() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(at: database, sql: Self.todoSchema)
    try FileManager.default.createDirectory(
      atPath: folder.sub("empty"), withIntermediateDirectories: true)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("site")
    options.previous = folder.sub("empty")
    #expect(
      try Self.build(options) == [
        BuildWarning(
          file: folder.sub("empty"),
          message: "holds no data of a taskpress build (data/history.json, data/todos.json, ...), "
            + "so the history of changes starts with this build")
      ])
    let builds = try #require(
      try Self.json(options.output + "/data/history.json")["builds"] as? [[String: Any]])
    #expect(builds.count == 1)
  }

  @Test(
    "the history keeps --history-limit builds; earlier builds are on further pages of changes.html")
  func historyLimitAndPages() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(at: database, sql: Self.todoSchema)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("site")
    options.baseURL = "https://example.org/reports/"
    options.historyLimit = 12
    _ = try Self.build(options)
    for night in 1...13 {
      try Self.change(database, "UPDATE todo SET text = 'Night \(night)' WHERE pk = 1;")
      options.date = "2026-12-\(night < 10 ? "0" : "")\(night)"
      _ = try Self.build(options)
    }
    // 14 builds made; the last 12 kept (3 to 14), all of them with changes.
    let history = try #require(
      try Self.json(options.output + "/data/history.json")["builds"] as? [[String: Any]])
    #expect(history.map { $0["build"] as? Int } == Array(3...14))
    let changes = try #require(
      try Self.json(options.output + "/data/changes.json")["builds"] as? [[String: Any]])
    #expect(changes.map { $0["build"] as? Int } == Array((3...14).reversed()))
    #expect(changes.first?["id"] as? String == "tag:example.org,2026-12-13:build-14")
    // 10 builds a page: builds 14 to 5, then 4 and 3.
    let second = Self.text(options.output + "/changes/2.html")
    #expect(second.contains("id=\"build-4\""))
    #expect(second.contains("id=\"build-3\""))
    // The first page lists builds 14 to 5; it holds build 4's anchor only among the earlier
    // builds a to-do's timeline links to, with a link to the second page.
    #expect(
      !Self.text(options.output + "/changes.html").contains(
        "<section class=\"build\" id=\"build-4\""))
    #expect(
      Self.text(options.output + "/changes.html").contains(
        "<li id=\"build-4\"><a href=\"changes/2.html#build-4\">"))
    #expect(readFile(options.output + "/changes/3.html") == nil)
    // Absolute links in the feed with --base-url; entries on the second page link there.
    let feed = Self.text(options.output + "/feed.xml")
    #expect(feed.contains("<id>https://example.org/reports/feed.xml</id>"))
    #expect(
      feed.contains(
        "<link rel=\"self\" type=\"application/atom+xml\" href=\"https://example.org/reports/feed.xml\"/>"
      ))
    #expect(feed.contains("href=\"https://example.org/reports/changes/2.html#build-3\""))
    #expect(feed.contains("href=&quot;https://example.org/reports/todos/1.html&quot;"))
    #expect(Self.links(feed).allSatisfy { $0.hasPrefix("https://example.org/reports/") })
  }

  @Test("every page links to the feed")
  func feedLinkOnEveryPage() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(at: database, sql: Self.todoSchema)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("site")
    _ = try Self.build(options)
    let pages = Tree.contents(options.output).keys.filter { $0.hasSuffix(".html") }.sorted()
    // 13 pages (flow.html and report.html among them), and the filtered lists: two statuses
    // and three priorities.
    #expect(pages.count == 18)
    for page in pages {
      let root = String(repeating: "../", count: page.filter { $0 == "/" }.count)
      #expect(
        Self.text(options.output + "/" + page).contains(
          "<link rel=\"alternate\" type=\"application/atom+xml\" href=\"\(root)feed.xml\" "
            + "title=\"Changes · Task report\">"), "\(page)")
    }
  }

  @Test("dates: ISO 8601 dates and date-times, as UTC")
  func dates() {
    #expect(BuildDate.normalize("2026-12-01") == "2026-12-01T00:00:00Z")
    #expect(BuildDate.normalize("2026-12-01T08:30:00Z") == "2026-12-01T08:30:00Z")
    #expect(BuildDate.normalize("2026-12-01T10:30+02:00") == "2026-12-01T08:30:00Z")
    #expect(BuildDate.normalize("2026-12-01T00:30:15.25-01:00") == "2026-12-01T01:30:15Z")
    #expect(BuildDate.normalize("2024-02-29") == "2024-02-29T00:00:00Z")
    for bad in [
      "", "2026-13-01", "2025-02-29", "2026-12-01T08:30", "2026-12-01 08:30Z", "tomorrow",
      "2026-12-01T24:00Z",
    ] {
      #expect(BuildDate.normalize(bad) == nil, "\(bad)")
    }
    #expect(BuildDate.format(1_795_953_600) == "2026-11-29T12:00:00Z")
  }
}
