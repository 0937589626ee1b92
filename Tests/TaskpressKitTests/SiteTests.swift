import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressKit

/// Builds a site from SQL text in a temporary folder and reads it back.
struct SiteFixture {
  let folder: String
  var output: String { folder + "/site" }

  init() throws {
    folder = NSTemporaryDirectory() + "taskpress-site-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  }

  func database(_ name: String, _ sql: String) throws -> String {
    let path = folder + "/" + name
    try Database.createForTesting(at: path, sql: sql)
    return path
  }

  @discardableResult
  func build(_ options: BuildOptions, sourceDateEpoch: String? = nil) throws -> BuildSummary {
    var options = options
    if options.output == "site" { options.output = output }
    return try Build.run(
      options, sourceDateEpoch: sourceDateEpoch, interrupt: InterruptFlag(),
      reporter: Build.Reporter(warning: { _ in }))
  }

  func page(_ path: String) throws -> String {
    try String(contentsOfFile: output + "/" + path, encoding: .utf8)
  }

  func exists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: output + "/" + path)
  }
}

let todoTable = "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);"

@Suite struct RoutesTests {
  @Test("links are relative from every depth")
  func relativeLinks() {
    let routes = Routes(prettyURLs: false)
    #expect(routes.link(to: "todos/3", fromFile: "index.html") == "todos/3.html")
    #expect(routes.link(to: "todos/3", fromFile: "todos/2.html") == "3.html")
    #expect(routes.link(to: "", fromFile: "todos/2.html") == "../index.html")
    #expect(routes.link(to: "page/2", fromFile: "page/3.html") == "2.html")
    #expect(
      routes.link(to: "possessions/index", fromFile: "todos/1.html") == "../possessions/index.html")
    #expect(routes.asset("assets/style.css", fromFile: "contacts/7.html") == "../assets/style.css")
  }

  @Test("pretty URLs write folders and link to them")
  func prettyLinks() {
    let routes = Routes(prettyURLs: true)
    #expect(routes.file("todos/3") == "todos/3/index.html")
    #expect(routes.file("") == "index.html")
    #expect(routes.file("404") == "404.html")
    #expect(routes.link(to: "todos/3", fromFile: "index.html") == "todos/3/")
    #expect(routes.link(to: "todos/4", fromFile: "todos/3/index.html") == "../../todos/4/")
    #expect(routes.link(to: "todos/3", fromFile: "todos/3/index.html") == "./")
    #expect(routes.link(to: "", fromFile: "todos/3/index.html") == "../../")
    #expect(routes.link(to: "", fromFile: "index.html") == "./")
    #expect(
      routes.asset("assets/style.css", fromFile: "todos/3/index.html") == "../../assets/style.css")
  }

  @Test("a to-do's link made from the page's prefix equals the one Routes makes")
  func todoLinks() {
    let files = [
      "index.html", "page/2.html", "page/2/index.html", "board.html", "board/index.html",
      "todos/3.html", "todos/3/index.html", "possessions/4.html", "possessions/index.html",
      "contacts/index.html", "404.html",
    ]
    let keys = ["8f3a2c", "ABC", "../x", "<script>"]
    let todos =
      [-12, 0, 3, 4, 12_345_678_901].map {
        Todo(pk: $0, text: "", priority: .high, complete: false)
      }
      + keys.map {
        Todo(pk: TodoKey.number(ofText: $0), text: "", priority: .high, complete: false, key: $0)
      }
    let rows = TodoRows(todos)
    let names = ["-12", "0", "3", "4", "12345678901", "8f3a2c"]
    for pretty in [false, true] {
      let routes = Routes(prettyURLs: pretty)
      let strings = RowStrings(routes: routes, labels: .builtIn(.en))
      for file in files {
        // Only a pretty URL links to its own page as `./`; plain ones need no special case.
        let own: Int? = pretty && file.hasPrefix("todos/3") ? 2 : nil
        let links = TodoLinks(
          todos: rows, texts: rows.texts, strings: strings, fromFile: file, ownPosition: own)
        for position in rows.indices {
          let name = position < names.count ? names[position] : rows.pageName(position)
          #expect(
            links.link(at: position) == routes.link(to: "todos/\(name)", fromFile: file),
            "pretty: \(pretty), from \(file), position \(position)")
        }
      }
    }
  }

  @Test("links to possessions, contacts and photos made from the page's prefix equal Routes'")
  func rowLinks() {
    let files = [
      "index.html", "todos/3.html", "todos/3/index.html", "possessions/index.html",
      "possessions/4.html", "possessions/4/index.html", "contacts/index.html", "contacts/4.html",
      "contacts/4/index.html", "404.html",
    ]
    for pretty in [false, true] {
      let routes = Routes(prettyURLs: pretty)
      let strings = RowStrings(routes: routes, labels: .builtIn(.en))
      for file in files {
        let own: Int64? = pretty && file.contains("/4/") ? 4 : nil
        let possessions = PossessionLinks(strings: strings, fromFile: file, ownID: own)
        let contacts = RowLinks(section: "contacts", routes: routes, fromFile: file, ownID: own)
        for id: Int64 in [Int64.min, -7, 0, 4, 5, 999, Int64.max] {
          #expect(
            possessions.rows.link(id) == routes.link(to: "possessions/\(id)", fromFile: file),
            "pretty: \(pretty), from \(file), id \(id)")
          #expect(
            contacts.link(id) == routes.link(to: "contacts/\(id)", fromFile: file),
            "pretty: \(pretty), from \(file), id \(id)")
        }
        for photo in ["photos/0a1b.jpg", "photos/x.png", "photos/sub/y.gif", "other/z.webp"] {
          #expect(
            possessions.photo(photo) == routes.asset(photo, fromFile: file),
            "pretty: \(pretty), from \(file), \(photo)")
        }
      }
    }
  }

  @Test("absolute URLs for canonical links and the sitemap")
  func absolute() {
    #expect(
      Routes(prettyURLs: false).absolute("", baseURL: "https://x.org/r") == "https://x.org/r/")
    #expect(
      Routes(prettyURLs: false).absolute("todos/3", baseURL: "https://x.org/")
        == "https://x.org/todos/3.html")
    #expect(
      Routes(prettyURLs: true).absolute("todos/3", baseURL: "https://x.org/")
        == "https://x.org/todos/3/")
  }
}

@Suite struct DataExportTests {
  let englishStrings = RowStrings(routes: Routes(prettyURLs: false), labels: .builtIn(.en))

  @Test("CSV follows RFC 4180: CRLF, quotes doubled, fields with commas and breaks quoted")
  func csv() {
    var csv = CSVWriter(header: ["a", "b", "c"])
    csv.text("plain")
    csv.text("has,comma")
    csv.integer(-42)
    csv.endRow()
    csv.text("say \"hi\"")
    csv.text("two\nlines")
    csv.integer(nil)
    csv.endRow()
    #expect(
      String(decoding: csv.bytes, as: UTF8.self)
        == "a,b,c\r\nplain,\"has,comma\",-42\r\n\"say \"\"hi\"\"\",\"two\nlines\",\r\n")

    // Rows far longer than the room made for them.
    var long = CSVWriter(header: ["x"], rows: 1)
    let field = String(repeating: "ab\"", count: 400)
    long.text(field)
    long.endRow()
    long.integer(.min)
    long.endRow()
    let doubled = String(repeating: "ab\"\"", count: 400)
    #expect(
      String(decoding: long.bytes, as: UTF8.self)
        == "x\r\n\"\(doubled)\"\r\n-9223372036854775808\r\n")
  }

  @Test("JSON escapes quotes, backslashes and control characters, and keeps key order")
  func json() {
    let todos = [Todo(pk: 7, text: "a \"b\" \\ \n\u{1}", priority: .other(9), complete: true)]
    let bytes = DataExport.todosJSON(todos, strings: englishStrings).array
    #expect(
      String(decoding: bytes, as: UTF8.self) == """
        [
          {
            "pk": 7,
            "text": "a \\"b\\" \\\\ \\n\\u0001",
            "priority": 9,
            "priority_label": "Priority 9",
            "complete": true,
            "status": "Complete"
          }
        ]

        """)
    let parsed = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: Any]]
    #expect(parsed?.first?["text"] as? String == "a \"b\" \\ \n\u{1}")
  }

  @Test("JSON of several rows reads back to the same values, whatever the text holds")
  func jsonRoundTrip() throws {
    let texts = [
      "", "plain", "é☑ 日本語", "tab\tcr\rdel\u{7F}end", "\"quoted\"\\", "\u{1F}\u{0}x",
      String(repeating: "long text ", count: 50) + "\"",
    ]
    let todos = texts.enumerated().map { index, text in
      Todo(
        pk: Int64(index) * 1_000_003 - 3, text: text,
        priority: index % 2 == 0 ? .high : .none, complete: index % 3 == 0)
    }
    let bytes = DataExport.todosJSON(todos, strings: englishStrings).array
    let parsed = try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: Any]])
    #expect(parsed.count == todos.count)
    for (row, todo) in zip(parsed, todos) {
      #expect(row["pk"] as? Int64 == todo.pk)
      #expect(row["text"] as? String == todo.text)
      #expect(row["priority_label"] as? String == (todo.priority == .high ? "High" : "No priority"))
      #expect(row["complete"] as? Bool == todo.complete)
      #expect(Array(row.keys).count == 6)
    }
    #expect(DataExport.todosJSON([], strings: englishStrings).array == Array("[]\n".utf8))
  }

  /// Where `left` and `right` first differ, with a few bytes of each from there.
  static func firstDifference(_ left: [UInt8], _ right: [UInt8]) -> String {
    let index =
      zip(left, right).enumerated().first { $0.element.0 != $0.element.1 }?.offset
      ?? min(left.count, right.count)
    func around(_ bytes: [UInt8]) -> String {
      String(decoding: bytes[index..<min(bytes.count, index + 40)], as: UTF8.self)
    }
    return "\(index): \(around(left).debugDescription) / \(around(right).debugDescription)"
  }

  @Test(
    "the streamed to-do copies are the bytes of the copies made whole, in chunks of 64 KiB",
    arguments: [0, 1, 2_000, 20_000])
  func streamedData(count: Int) throws {
    var random = SystemRandomNumberGenerator()
    let texts = ["", "plain", "a, \"b\"\r\n", "é☑ 日本語", String(repeating: "long ", count: 300)]
    let priorities: [Priority] = [.high, .medium, .low, .none, .other(9)]
    var todos: [Todo] = []
    for index in 0..<count {
      let text = texts[Int.random(in: 0..<texts.count, using: &random)]
      let due: String? = index % 4 == 0 ? nil : "2026-12-0\(index % 9)"
      todos.append(
        Todo(
          pk: Int64(index * 3 - 7), text: text, priority: priorities[index % 5],
          complete: index % 3 == 0, due: due))
    }
    for due in [false, true] {
      var chunks: [Int] = []
      var json: [UInt8] = []
      let rows = TodoRows(todos)
      try DataExport.todosJSON(rows, at: rows.indices, strings: englishStrings, dueDates: due) {
        chunks.append($0.count)
        json += $0
      }
      // Compared as a Bool, with the first difference: a failing comparison of two arrays of
      // megabytes would take minutes to print.
      let wholeJSON = DataExport.todosJSON(todos, strings: englishStrings, dueDates: due).array
      let sameJSON = json == wholeJSON
      #expect(sameJSON, "JSON differs from byte \(Self.firstDifference(json, wholeJSON))")
      var csv: [UInt8] = []
      try DataExport.todosCSV(rows, at: rows.indices, strings: englishStrings, dueDates: due) {
        chunks.append($0.count)
        csv += $0
      }
      let wholeCSV = DataExport.todosCSV(todos, strings: englishStrings, dueDates: due).array
      let sameCSV = csv == wholeCSV
      #expect(sameCSV, "CSV differs from byte \(Self.firstDifference(csv, wholeCSV))")
      // Each chunk holds whole rows and no more than one row past 64 KiB.
      #expect(chunks.allSatisfy { $0 > 0 && $0 < DataExport.chunkSize + 4096 })
      if count == 20_000 { #expect(chunks.count > 10) }
    }
  }
}

@Suite struct SiteBuildTests {
  /// The start of a 3 x 2 PNG, as hex for SQL blob literals: enough for the sniffer.
  /// A real 3×2 PNG (hex), different for each `seed`.
  static func png(_ seed: Int, padding: Int = 0) -> String {
    TestPNG.hex(TestPNG.make(seed: seed, padding: padding))
  }

  /// Databases in `site` of `photos` possessions, each with a distinct PNG, and `todos` to-dos
  /// with the priority `priority(pk)`; returns their paths.
  static func photosAndTodos(
    _ site: SiteFixture, photos: Int, todos: Int, priority: (Int) -> Int
  ) throws -> (possessions: String, todos: String) {
    let rows = (1...photos).map {
      "(\($0), 'P\($0)', '', X'\(png($0))')"
    }
    let possessions = try site.database(
      "p.sqlite",
      "CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);"
        + "INSERT INTO possessions VALUES \(rows.joined(separator: ", "));")
    let todoRows = (1...todos).map { "(\($0), 'task \($0)', \(priority($0)), 0)" }
    let todoPath = try site.database(
      "t.sqlite", todoTable + "INSERT INTO todo VALUES \(todoRows.joined(separator: ", "));")
    return (possessions, todoPath)
  }

  @Test("the index sorts High, Medium, Low, other, none, then pk, and paginates")
  func indexOrderAndPages() throws {
    let site = try SiteFixture()
    let todos = try site.database(
      "todo.sqlite",
      todoTable + """
        INSERT INTO todo VALUES (1, 'low one', 3, 0), (2, 'none', NULL, 0), (3, 'high b', 1, 1),
          (4, 'other', 7, 0), (5, 'medium', 2, 0), (6, 'high a', 1, 0);
        """)
    var options = BuildOptions()
    options.todos = todos
    options.pageSize = 4
    try site.build(options)
    let first = try site.page("index.html")
    let order = [">high b<", ">high a<", ">medium<", ">low one<"].map {
      first.range(of: $0)?.lowerBound
    }
    #expect(order.allSatisfy { $0 != nil })
    #expect(order.compactMap { $0 } == order.compactMap { $0 }.sorted())
    #expect(
      first.contains(
        "<li class=\"todo priority-high is-complete\"><span class=\"check\">"
          + "<span aria-hidden=\"true\">☑</span><span class=\"visually-hidden\">Complete</span>"
          + "</span> <svg class=\"icon\" role=\"img\" aria-label=\"High\"><use href=\"#icon-high\">"
          + "</use></svg> <a href=\"todos/3.html\">high b</a></li>"))
    #expect(first.contains("<a href=\"page/2.html\">"))
    let second = try site.page("page/2.html")
    #expect(second.contains("Priority 7"))
    #expect(second.contains("No priority"))
    #expect(
      second.range(of: ">other<")?.lowerBound ?? second.endIndex
        < second.range(of: ">none<")?.lowerBound ?? second.startIndex)
    // prev/next follow the index order across pages: before 'low one' comes 'medium' (on the
    // first page), after it 'other' (on the second)
    let low = try site.page("todos/1.html")
    #expect(
      low.contains(
        "<a href=\"5.html\">← Previous: medium</a> · <a href=\"4.html\">Next: other →</a>"),
      "\(low)")
    let top = try site.page("todos/3.html")
    #expect(top.contains("<p><a href=\"6.html\">Next: high a →</a></p>"), "\(top)")
    #expect(!top.contains("Previous"))
    let last = try site.page("todos/2.html")
    #expect(last.contains("<p><a href=\"4.html\">← Previous: other</a></p>"), "\(last)")
    #expect(!last.contains("Next:"))
  }

  @Test("page size 0 puts every to-do on one page")
  func onePage() throws {
    let site = try SiteFixture()
    var sql = "BEGIN;" + todoTable
    for pk in 1...250 { sql += "INSERT INTO todo VALUES (\(pk), 't\(pk)', 1, 0);" }
    var options = BuildOptions()
    options.todos = try site.database("todo.sqlite", sql + "COMMIT;")
    options.pageSize = 0
    try site.build(options)
    #expect(!site.exists("page/2.html"))
    #expect(try site.page("index.html").contains("t250"))
  }

  @Test("--pretty-urls, --base-url and --locale ja")
  func prettyBaseURLAndLocale() throws {
    let site = try SiteFixture()
    var options = BuildOptions()
    options.todos = try site.database(
      "todo.sqlite", todoTable + "INSERT INTO todo VALUES (1, 'x', 1, 1);")
    options.prettyURLs = true
    options.baseURL = "https://example.org/tasks"
    options.locale = .ja
    try site.build(options)
    let page = try site.page("todos/1/index.html")
    #expect(page.contains("<html lang=\"ja\">"))
    #expect(page.contains("<link rel=\"canonical\" href=\"https://example.org/tasks/todos/1/\">"))
    #expect(page.contains("高"))
    #expect(page.contains("完了"))
    #expect(page.contains("href=\"../../board/\""))
    let sitemap = try site.page("sitemap.xml")
    #expect(sitemap.contains("<loc>https://example.org/tasks/</loc>"))
    #expect(sitemap.contains("<loc>https://example.org/tasks/board/</loc>"))
    #expect(!sitemap.contains("404"))
  }

  @Test("no sitemap and no canonical link without --base-url")
  func noBaseURL() throws {
    let site = try SiteFixture()
    var options = BuildOptions()
    options.todos = try site.database(
      "todo.sqlite", todoTable + "INSERT INTO todo VALUES (1, 'x', 1, 1);")
    try site.build(options)
    #expect(!site.exists("sitemap.xml"))
    #expect(!(try site.page("index.html").contains("canonical")))
  }

  @Test("SOURCE_DATE_EPOCH is the only date in the output")
  func date() throws {
    let site = try SiteFixture()
    var options = BuildOptions()
    options.todos = try site.database("todo.sqlite", todoTable)
    try site.build(options, sourceDateEpoch: "1796083200")
    #expect(try site.page("index.html").contains("<time datetime=\"2026-12-01\">2026-12-01</time>"))
    let error = #expect(throws: BuildError.self) {
      try site.build(options, sourceDateEpoch: "yesterday")
    }
    #expect(
      error?.description
        == "SOURCE_DATE_EPOCH: invalid value 'yesterday': expected seconds since 1970")
  }

  @Test("photos are exported once per content, named by hash, with width and height")
  func photos() throws {
    let site = try SiteFixture()
    let (first, second) = (SiteBuildTests.png(0), SiteBuildTests.png(1))
    let possessions = try site.database(
      "p.sqlite",
      """
      CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);
      INSERT INTO possessions VALUES (1, 'A', 'first', X'\(first)'), (2, 'B', '', X'\(first)'),
        (3, 'C', '', X'\(second)'), (4, 'D', '', NULL), (5, 'E', '', X'3C7376673E');
      """)
    var options = BuildOptions()
    options.possessions = possessions
    let summary = try site.build(options)
    #expect(summary.photos == 2)
    let photos = try FileManager.default.contentsOfDirectory(atPath: site.output + "/photos")
    #expect(photos.count == 2)
    #expect(photos.allSatisfy { $0.hasSuffix(".png") && $0.count == 20 })
    let page = try site.page("possessions/1.html")
    #expect(page.contains("width=\"3\" height=\"2\""))
    #expect(page.contains("alt=\"Photo of A\""))
    let list = try site.page("possessions/index.html")
    #expect(list.components(separatedBy: "<img ").count == 4)
    let json = try site.page("data/possessions.json")
    #expect(json.contains("\"photo\": \"photos/"))
    #expect(json.contains("\"photo\": null"))
  }

  @Test(
    "an interrupt while pages render and photos are staged ends the build, site unchanged",
    arguments: [1, 2, 4])
  func interruptWithPhotos(jobs: Int) throws {
    let site = try SiteFixture()
    let (possessions, todos) = try Self.photosAndTodos(site, photos: 2000, todos: 5000) { _ in 1 }
    var options = BuildOptions()
    options.possessions = possessions
    options.todos = todos
    options.output = site.output
    options.jobs = jobs
    // The first progress report (after a batch of pages) stops the build, wherever the photos
    // are by then; the threads waiting for them must give up too.
    let interrupt = InterruptFlag()
    let reporter = Build.Reporter(warning: { _ in }, progress: { _, _ in interrupt.set() })
    #expect {
      try Build.run(options, interrupt: interrupt, reporter: reporter)
    } throws: { error in
      String(describing: error).contains("interrupted")
    }
    let left = (try? FileManager.default.contentsOfDirectory(atPath: site.output)) ?? []
    #expect(left.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: stateFolder(site.output) + "/staging"))
  }

  // That they are streamed (memory does not grow with them) is measured on the binary, in
  // TaskpressCLITests' BinaryTests.
  @Test("photos above the in-memory limit are named and shared like small ones")
  func largePhotos() throws {
    let site = try SiteFixture()
    let size = Int(Build.photoBufferLimit) + 100_000
    let big = TestPNG.make(seed: 1, padding: size)
    let small = TestPNG.make(seed: 2)
    let possessions = try site.database(
      "p.sqlite",
      """
      CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);
      INSERT INTO possessions VALUES (1, 'big', '', X'\(TestPNG.hex(big))'),
        (2, 'big again', '', X'\(TestPNG.hex(big))'), (3, 'small', '', X'\(TestPNG.hex(small))');
      """)
    var options = BuildOptions()
    options.possessions = possessions
    let summary = try site.build(options)
    #expect(summary.photos == 2)
    let photos = try FileManager.default.contentsOfDirectory(atPath: site.output + "/photos")
    let sizes = try photos.map {
      try FileManager.default.attributesOfItem(atPath: site.output + "/photos/" + $0)[.size] as? Int
    }
    // The big one is decoded by libvips (it is streamed) into a WebP; the small one is
    // published as stored.
    #expect(sizes.compactMap { $0 }.contains(small.count))
    #expect(photos.filter { $0.hasSuffix(".webp") }.count == 1)
    // Both big rows show the one file.
    let first = try site.page("possessions/1.html")
    let second = try site.page("possessions/2.html")
    let bigName = photos.first { first.contains($0) } ?? "?"
    #expect(second.contains(bigName))
  }

  @Test(
    "a photo that cannot be written fails the build, with pages rendering beside it on 1 to 4 threads",
    arguments: [1, 2, 4])
  func photoFailure(jobs: Int) throws {
    let site = try SiteFixture()
    let (possessions, todos) = try Self.photosAndTodos(site, photos: 300, todos: 500) {
      $0 % 3 + 1
    }
    // A file of the user's where the photos' folder goes: taskpress may not replace it.
    try FileManager.default.createDirectory(atPath: site.output, withIntermediateDirectories: true)
    try Data("mine".utf8).write(to: URL(filePath: site.output + "/photos"))
    var options = BuildOptions()
    options.possessions = possessions
    options.todos = todos
    options.jobs = jobs
    #expect {
      try site.build(options)
    } throws: { error in
      String(describing: error).contains("photos")
    }
    // Nothing was written: the user's file is all there is.
    let left = try FileManager.default.contentsOfDirectory(atPath: site.output)
    #expect(left == ["photos"])
    #expect(try site.page("photos") == "mine")
  }

  @Test("contacts: a list sorted by name with letter links, a page each")
  func contacts() throws {
    let site = try SiteFixture()
    let contacts = try site.database(
      "c.sqlite",
      """
      CREATE TABLE CONTACTS(ID INTEGER PRIMARY KEY, NAME TEXT, ADDRESS TEXT, PHONE TEXT);
      INSERT INTO CONTACTS VALUES (1, 'zoe', 'Z St', '1'), (2, 'Adam', 'A St', '2'),
        (3, 'bea', 'B St', '3');
      """)
    var options = BuildOptions()
    options.contacts = contacts
    try site.build(options)
    let list = try site.page("contacts/index.html")
    let adam = try #require(list.range(of: ">Adam<"))
    let bea = try #require(list.range(of: ">bea<"))
    let zoe = try #require(list.range(of: ">zoe<"))
    #expect(adam.lowerBound < bea.lowerBound && bea.lowerBound < zoe.lowerBound)
    #expect(list.contains("<a href=\"#letter-Z\">Z</a>"))
    #expect(list.contains("search.js"))
    #expect(try site.page("contacts/3.html").contains("B St"))
  }

  @Test("a theme folder overrides a template, and a missing partial names it and the template")
  func templateOverrides() throws {
    let site = try SiteFixture()
    let theme = site.folder + "/theme"
    try FileManager.default.createDirectory(atPath: theme, withIntermediateDirectories: true)
    try "# Custom {{todo.text}}\n".write(
      toFile: theme + "/todo.md", atomically: true, encoding: .utf8)
    var options = BuildOptions()
    options.todos = try site.database(
      "todo.sqlite", todoTable + "INSERT INTO todo VALUES (1, 'x', 1, 0);")
    options.templates = theme
    try site.build(options)
    #expect(try site.page("todos/1.html").contains("<h1>Custom x</h1>"))

    try "{{> nowhere}}\n".write(toFile: theme + "/board.html", atomically: true, encoding: .utf8)
    let before = try site.page("board.html")
    #expect {
      try site.build(options)
    } throws: { error in
      "\(error)" == "\(theme)/board.html:1:1: partial 'nowhere' not found"
    }
    #expect(try site.page("board.html") == before)
  }

  @Test("an HTML template with bytes that are not UTF-8 makes pages of valid UTF-8")
  func invalidUTF8Template() throws {
    let site = try SiteFixture()
    let theme = site.folder + "/theme"
    try FileManager.default.createDirectory(atPath: theme, withIntermediateDirectories: true)
    let board =
      Array("<p>Board \u{00E9} ".utf8) + [0xFF, 0xC3] + Array("{{labels.board}}</p>\n".utf8)
    try Data(board).write(to: URL(fileURLWithPath: theme + "/board.html"))
    var options = BuildOptions()
    options.todos = try site.database(
      "todo.sqlite", todoTable + "INSERT INTO todo VALUES (1, 'x', 1, 0);")
    options.templates = theme
    try site.build(options)
    // Each broken byte shows as U+FFFD, and the page reads as UTF-8.
    let page = try site.page("board.html")
    #expect(page.contains("<p>Board \u{00E9} \u{FFFD}\u{FFFD}"))
    // A theme of valid UTF-8 renders its pages as they are.
    try "<p>Board \u{00E9}</p>\n".write(
      toFile: theme + "/board.html", atomically: true, encoding: .utf8)
    try site.build(options)
    #expect(try site.page("board.html").contains("<p>Board \u{00E9}</p>"))
  }

  @Test("labels.json in a theme overrides labels; unknown labels are errors")
  func labels() throws {
    let site = try SiteFixture()
    let theme = site.folder + "/theme"
    try FileManager.default.createDirectory(atPath: theme, withIntermediateDirectories: true)
    try #"{"en": {"board": "Kanban"}}"#.write(
      toFile: theme + "/labels.json", atomically: true, encoding: .utf8)
    var options = BuildOptions()
    options.todos = try site.database("todo.sqlite", todoTable)
    options.templates = theme
    try site.build(options)
    #expect(try site.page("board.html").contains("<h1>Kanban</h1>"))
    try #"{"en": {"bored": "x"}}"#.write(
      toFile: theme + "/labels.json", atomically: true, encoding: .utf8)
    #expect(
      throws: ThemeError(
        "\(theme)/labels.json:1:9: unknown label 'bored' in 'en'; did you mean 'board'?")
    ) {
      try site.build(options)
    }
  }
}

@Suite struct LinkCheckerTests {
  @Test("finds href and src values, skipping comments and decoding entities")
  func targets() {
    let html = Array(
      #"<a href="a.html?x=1&amp;y=2">x</a><!-- <a href="no.html"> --><img src='p.png' alt=x><link href=s.css>"#
        .utf8)
    #expect(LinkChecker.linkTargets(in: html) == ["a.html?x=1&y=2", "p.png", "s.css"])
  }

  @Test("external links, fragments and schemes are not followed")
  func internalPaths() {
    #expect(LinkChecker.internalPath("https://x.org/") == nil)
    #expect(LinkChecker.internalPath("mailto:a@b") == nil)
    #expect(LinkChecker.internalPath("#content") == nil)
    #expect(LinkChecker.internalPath("//cdn.example/x.js") == nil)
    #expect(LinkChecker.internalPath("../a%20b.html#x") == "../a b.html")
  }

  @Test("reports each broken link with its page")
  func broken() throws {
    let site = try SiteFixture()
    try FileManager.default.createDirectory(
      atPath: site.output + "/sub", withIntermediateDirectories: true)
    try #"<a href="sub/">ok</a><a href="missing.html">x</a><img src="../up.png">"#.write(
      toFile: site.output + "/index.html", atomically: true, encoding: .utf8)
    try #"<a href="../index.html">ok</a>"#.write(
      toFile: site.output + "/sub/index.html", atomically: true, encoding: .utf8)
    let report = try LinkChecker.check(site: site.output)
    #expect(report.pages == 2)
    #expect(report.links == 4)
    #expect(
      report.broken.map(\.description) == [
        "index.html: 'missing.html' does not resolve: no file 'missing.html' in the site",
        "index.html: '../up.png' points outside the site",
      ])
  }
}

@Suite struct PaginationTests {
  @Test("index pages link to the first, the last and two on each side of the current page")
  func window() {
    #expect(PageContext.pageWindow(current: 1, total: 1) == [1])
    #expect(PageContext.pageWindow(current: 2, total: 4) == [1, 2, 3, 4])
    #expect(PageContext.pageWindow(current: 1, total: 1000) == [1, 2, 3, nil, 1000])
    #expect(
      PageContext.pageWindow(current: 500, total: 1000) == [
        1, nil, 498, 499, 500, 501, 502, nil, 1000,
      ])
    #expect(PageContext.pageWindow(current: 4, total: 1000) == [1, 2, 3, 4, 5, 6, nil, 1000])
  }
}

@Suite struct RebuildTests {
  func todos(_ site: SiteFixture, text: String = "x") throws -> BuildOptions {
    var options = BuildOptions()
    options.todos = try site.database(
      "todo-\(UUID().uuidString).sqlite",
      todoTable + "INSERT INTO todo VALUES (1, '\(text)', 1, 0);")
    return options
  }

  @Test("a rebuild with nothing changed stops before rendering and writes nothing")
  func nothingChanged() throws {
    let site = try SiteFixture()
    let options = try todos(site)
    let database = try #require(options.todos)
    // Each write to the database is dated a minute back (explicitly, not by waiting for the
    // clock's tick): a file modified within a tick of a build is never trusted by the next.
    try FileTimes.settle(database)
    let first = try site.build(options)
    #expect(first.written > 0)
    #expect(first.phases.map(\.name) == ["read", "render", "commit"])
    let again = try site.build(options)
    #expect(again.written == 0)
    #expect(again.unchanged == first.written)
    #expect(again.pages == first.pages)
    // Stopped before rendering: no phase ran.
    #expect(again.phases.isEmpty)

    // After a real build that changed files, and one that changed none, the same.
    let writer = try Database.openWritableForTesting(at: database)
    try writer.execute("UPDATE todo SET text = 'changed' WHERE pk = 1")
    try FileTimes.settle(database)
    #expect(try site.build(options).phases.count == 3)
    #expect(try site.build(options).phases.isEmpty)
    // A change to the database that no page shows.
    try writer.execute("CREATE TABLE notes(x); INSERT INTO notes VALUES (1);")
    try FileTimes.settle(database)
    let unchangedFiles = try site.build(options)
    #expect(unchangedFiles.phases.count == 3)
    #expect(unchangedFiles.written == 0)
    #expect(try site.build(options).phases.isEmpty)
  }

  @Test("a changed database, option, theme or output file makes a real build")
  func changes() throws {
    let site = try SiteFixture()
    var options = try todos(site)
    try site.build(options)
    // The database changes.
    let database = try #require(options.todos)
    let writer = try Database.openWritableForTesting(at: database)
    try writer.execute("UPDATE todo SET text = 'changed' WHERE pk = 1")
    let afterEdit = try site.build(options)
    #expect(afterEdit.written > 0)
    #expect(try site.page("todos/1.html").contains("changed"))
    // An option changes.
    options.locale = .ja
    #expect(try site.build(options).written > 0)
    // The theme changes: an override of the to-do page.
    let templates = site.folder + "/templates"
    try FileManager.default.createDirectory(atPath: templates, withIntermediateDirectories: true)
    try "# mine: {{todo.title}}\n".write(
      toFile: templates + "/todo.md", atomically: false, encoding: .utf8)
    options.templates = templates
    let themed = try site.build(options)
    #expect(themed.phases.count == 3)
    #expect(try site.page("todos/1.html").contains("<h1>mine: changed</h1>"))
    // Only its bytes change: the same size, the same modification time.
    let attributes = try FileManager.default.attributesOfItem(atPath: templates + "/todo.md")
    try "# MINE: {{todo.title}}\n".write(
      toFile: templates + "/todo.md", atomically: false, encoding: .utf8)
    try FileManager.default.setAttributes(
      [.modificationDate: try #require(attributes[.modificationDate])],
      ofItemAtPath: templates + "/todo.md")
    #expect(try site.build(options).phases.count == 3)
    #expect(try site.page("todos/1.html").contains("<h1>MINE: changed</h1>"))
    // A generated file is edited or deleted by hand: it is put back.
    try "edited".write(toFile: site.output + "/board.html", atomically: false, encoding: .utf8)
    try FileManager.default.removeItem(atPath: site.output + "/todos/1.html")
    let repaired = try site.build(options)
    #expect(repaired.written == 2)
    #expect(try site.page("board.html").contains("<h1>"))
    #expect(site.exists("todos/1.html"))
  }
}
