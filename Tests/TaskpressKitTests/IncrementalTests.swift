import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressKit

/// Incremental rebuilds (`PageFingerprints`, `RenderPaths.incremental`): a rebuild after any
/// change gives exactly the site a cold build of the same inputs gives, and renders only the
/// pages whose inputs changed.
@Suite struct IncrementalTests {
  /// 30 to-dos of every priority and both states, 6 possessions with photos, 4 contacts.
  static let todos: String = {
    let priorities = ["1", "2", "3", "NULL", "7"]
    let rows = (1...30).map { pk in
      "(\(pk), 'Task \(pk) with *some* text', \(priorities[pk % 5]), \(pk % 3 == 0 ? 1 : 0))"
    }
    return """
      CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN);
      INSERT INTO todo VALUES \(rows.joined(separator: ", "));
      """
  }()

  static let possessions: String = {
    let rows = (1...6).map { id in
      "(\(id), 'Thing \(id)', 'About thing \(id)', X'\(TestPNG.hex(TestPNG.make(seed: id)))')"
    }
    return """
      CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);
      INSERT INTO possessions VALUES \(rows.joined(separator: ", "));
      """
  }()

  static let contacts = """
    CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT, address TEXT, phone TEXT);
    INSERT INTO contacts VALUES (1, 'Ada', 'Here', '1'), (2, 'Bob', 'There', '2'),
      (3, 'Cy', 'Far', '3'), (4, 'Di', 'Near', '4');
    """

  /// A site's inputs in `folder`: the three databases and a templates folder.
  struct Inputs {
    var options: BuildOptions
    let folder: TemporaryFolder
    /// `SOURCE_DATE_EPOCH`, the date pages show; none unless a test sets one.
    var sourceDateEpoch: String?

    init(_ folder: TemporaryFolder) throws {
      self.folder = folder
      options = BuildOptions()
      options.todos = folder.sub("todo.sqlite")
      options.possessions = folder.sub("possessions.sqlite")
      options.contacts = folder.sub("contacts.sqlite")
      options.templates = folder.sub("templates")
      options.output = folder.sub("site")
      options.pageSize = 4
      options.boardLimit = 3
      options.baseURL = "https://example.org/tasks/"
      options.date = "2026-12-01"
      options.jobs = 2
      try Database.createForTesting(at: folder.sub("todo.sqlite"), sql: IncrementalTests.todos)
      try Database.createForTesting(
        at: folder.sub("possessions.sqlite"), sql: IncrementalTests.possessions)
      try Database.createForTesting(
        at: folder.sub("contacts.sqlite"), sql: IncrementalTests.contacts)
      try FileManager.default.createDirectory(
        atPath: folder.sub("templates"), withIntermediateDirectories: true)
    }

    func change(_ database: String, _ sql: String) throws {
      let connection = try Database.openWritableForTesting(at: folder.sub(database))
      try connection.execute(sql)
    }

    func writeTemplate(_ name: String, _ text: String) throws {
      try writeFile(folder.sub("templates/" + name), text)
    }
  }

  static func build(_ options: BuildOptions, sourceDateEpoch: String? = nil) throws
    -> BuildSummary
  {
    try Build.run(
      options, sourceDateEpoch: sourceDateEpoch, interrupt: InterruptFlag(),
      reporter: Build.Reporter { _ in })
  }

  /// Copies the folder `from` to `to` (the site, or its state folder).
  static func copy(_ from: String, _ to: String) throws {
    try FileManager.default.copyItem(atPath: from, toPath: to)
  }

  /// Copies the folder `from` to `to` as `cp -a` does: the files' modification times too, so
  /// that a copy of a site and its state folder is a site its next build finds intact.
  static func copyKeepingTimes(_ from: String, _ to: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/cp")
    process.arguments = ["-a", from, to]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "cp -a \(from) \(to)")
  }

  /// Builds the inputs, keeps a copy of that site, applies `change`, then rebuilds the site in
  /// place (incrementally) and builds the changed inputs cold into a new folder, comparing
  /// with the copy (`--previous`), as the incremental build compares with the site it
  /// replaces. Expects the two sites to be the same, byte for byte; returns the summaries of the
  /// first build and the rebuild. `setUp` changes the inputs before the first build.
  ///
  /// The changed site is also copied as it stands, with its state folder, and rebuilt there
  /// without `RenderPaths.carryOver` (each kept page kept on its own), once without
  /// `RenderPaths.dependents` (every page fingerprinted), once without
  /// `RenderPaths.earlyFileCheck` (the last build's files checked when the pages are staged,
  /// not while the sources are read), and once without `RenderPaths.recordedCopy` (the whole
  /// previous copy of the to-dos read, where the rebuild in place reads only its changed rows):
  /// each twin must give the same bytes and the same summary, and the second the same records
  /// of fingerprints and rows.
  @discardableResult
  static func expectSameAsCold(
    _ name: String, setUp: (inout Inputs) throws -> Void = { _ in },
    change: (inout Inputs) throws -> Void
  ) throws -> (first: BuildSummary, rebuild: BuildSummary) {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    var inputs = try Inputs(folder)
    try setUp(&inputs)
    let first = try build(inputs.options, sourceDateEpoch: inputs.sourceDateEpoch)
    try copy(folder.sub("site"), folder.sub("before"))
    try copy(folder.sub(".site.taskpress"), folder.sub(".before.taskpress"))
    try change(&inputs)
    // Each twin: a copy of the changed site, and what it is rebuilt without.
    let twins: [(folder: String, without: RenderPaths, what: String)] = [
      ("twin", .carryOver, "keeps each page on its own"),
      ("all", .dependents, "fingerprints every page"),
      ("late", .earlyFileCheck, "checks the last build's files when it stages the pages"),
      ("whole", .recordedCopy, "reads the whole previous copy of the to-dos"),
    ]
    for twin in twins {
      try copyKeepingTimes(folder.sub("site"), folder.sub(twin.folder))
      try copyKeepingTimes(folder.sub(".site.taskpress"), folder.sub(".\(twin.folder).taskpress"))
    }

    let rebuild = try build(inputs.options, sourceDateEpoch: inputs.sourceDateEpoch)
    func counts(_ summary: BuildSummary) -> [Int] {
      [summary.written, summary.unchanged, summary.removed, summary.rendered]
    }
    for twin in twins {
      var options = inputs.options
      options.output = folder.sub(twin.folder)
      options.renderPaths = inputs.options.renderPaths.subtracting(twin.without)
      let twinRebuild = try build(options, sourceDateEpoch: inputs.sourceDateEpoch)
      expectSameTrees(
        options.output, inputs.options.output,
        "\(name): the rebuild differs from one that \(twin.what)")
      #expect(
        counts(rebuild) == counts(twinRebuild),
        "\(name): written, unchanged, removed, rendered (\(twin.what))")
      #expect(rebuild.writtenPaths == twinRebuild.writtenPaths, "\(name) (\(twin.what))")
      #expect(rebuild.removedPaths == twinRebuild.removedPaths, "\(name) (\(twin.what))")
    }
    for record in [FingerprintRecord.fileName, RowRecord.fileName] {
      // After the line that names the manifest, which records the files' times.
      func recorded(_ state: String) -> ArraySlice<UInt8>? {
        readFile(folder.sub(state + "/" + record)).map { $0.drop { $0 != UInt8(ascii: "\n") } }
      }
      #expect(recorded(".site.taskpress") != nil, "\(name): \(record)")
      #expect(
        recorded(".site.taskpress") == recorded(".all.taskpress"),
        "\(name): the record of \(record) differs from one of every page")
    }
    var cold = inputs.options
    cold.output = folder.sub("cold")
    cold.previous = folder.sub("before")
    cold.renderPaths = RenderPaths.all.subtracting(.incremental)
    _ = try build(cold, sourceDateEpoch: inputs.sourceDateEpoch)

    expectSameTrees(
      cold.output, inputs.options.output, "\(name): the rebuild differs from a cold build")
    return (first, rebuild)
  }

  /// Expects the tree of the folder `actual` to be that of `expected`, byte for byte; `what`
  /// begins the message naming the files that differ. Returns the tree of `actual`.
  @discardableResult
  static func expectSameTrees(
    _ expected: String, _ actual: String, _ what: String
  ) -> [String: [UInt8]] {
    let actualTree = Tree.contents(actual)
    let expectedTree = Tree.contents(expected)
    let differences = DeterminismTests.differences(expectedTree, actualTree)
    #expect(
      differences.isEmpty,
      "\(what) in \(differences.count) files: \(differences.prefix(8)) \(DifferentialTests.firstDifference(expectedTree, actualTree, differences.first))"
    )
    return actualTree
  }

  /// What every rebuild renders: the pages without a fingerprint (a contact's change shows
  /// on those alone).
  static func alwaysRendered() throws -> Int {
    try expectSameAsCold("a contact's phone") { inputs in
      try inputs.change("contacts.sqlite", "UPDATE contacts SET phone = '9' WHERE id = 2")
    }.rebuild.rendered
  }

  @Test("a one-row change gives the cold build's site and renders only the pages that show it")
  func oneRow() throws {
    let always = try Self.alwaysRendered()
    let (first, rebuild) = try Self.expectSameAsCold("one row's text") { inputs in
      try inputs.change("todo.sqlite", "UPDATE todo SET text = 'Changed' WHERE pk = 13")
      // A nightly build's date: shown only in the record of changes.
      inputs.options.date = "2026-12-02"
    }
    #expect(first.rendered == first.pages)
    // pk 13 (Low, in progress): its page and its two neighbours', its index page, its page of
    // the in-progress list and of the Low list.
    #expect(rebuild.rendered == always + 6, "\(rebuild.writtenPaths)")
    #expect(always < first.pages / 3)
  }

  @Test(
    "a new date rewrites the pages that show it and those of the to-dos whose overdue state flips, not every page"
  )
  func newDate() throws {
    let always = try Self.alwaysRendered()
    let (first, rebuild) = try Self.expectSameAsCold("a new date") { inputs in
      // Due dates: pk 7 (in progress) on 2026-12-02, pk 9 (complete) on 2026-11-01, pk 8 (in
      // progress) long ago; the others none. The first build is on 2026-12-01.
      try inputs.change("todo.sqlite", "ALTER TABLE todo ADD COLUMN due TEXT")
      try inputs.change(
        "todo.sqlite",
        """
        UPDATE todo SET due = '2026-12-02' WHERE pk = 7;
        UPDATE todo SET due = '2026-11-01' WHERE pk = 9;
        UPDATE todo SET due = '2020-01-01' WHERE pk = 8;
        """)
      inputs.options.mapping.todos.columns["due"] = "due"
      inputs.sourceDateEpoch = "1796083200"  // 2026-12-01
    } change: { inputs in
      // The night after: pk 7 is overdue now; pk 8 was and is, pk 9 is complete.
      inputs.sourceDateEpoch = "1796256000"  // 2026-12-03
      inputs.options.date = "2026-12-03"
    }
    #expect(first.rendered == first.pages)
    // pk 7 (Low, in progress): its page and its two neighbours', its index page, its page of
    // the in-progress list and of the Low list; the pages every rebuild renders; and
    // `calendar.html`, which a site with due dates renders every build (it shows the build's
    // month and marks what is overdue on its date).
    #expect(rebuild.rendered == always + 7, "\(rebuild.writtenPaths)")
    let todoPages = rebuild.writtenPaths.filter { $0.hasPrefix("todos/") }
    // Its neighbours (the Low to-dos 2 and 12) are rendered: the built-in to-do page does not
    // show a neighbour's overdue state, so their bytes are the same.
    #expect(Set(todoPages) == ["todos/7.html"])
    // The date is on the first page, the changes page and report.html (the page to print says
    // when it was made), in no other page. flow.html has the day too, as the numbers' date (the
    // day of the last build that changed a count: here the first, cold build's), which a new
    // date does not change: the new date did not rewrite it.
    #expect(!rebuild.writtenPaths.contains("flow.html"))
    let shown = try Self.dateShown()
    #expect(shown == ["changes.html", "flow.html", "index.html", "report.html"], "\(shown)")
  }

  @Test(
    "completing a to-do rewrites the summaries and the pages it leaves, enters or shifts, not every list page"
  )
  func completion() throws {
    let (_, rebuild) = try Self.expectSameAsCold("a completion") { inputs in
      try inputs.change("todo.sqlite", "UPDATE todo SET complete = 1 WHERE pk = 28")
    }
    let written = Set(rebuild.writtenPaths)
    // The summaries show the counts; the to-do's page shows its status.
    #expect(written.isSuperset(of: ["index.html", "board.html", "todos/28.html"]))
    // The lists and index pages that do not list it are as they were: no site-wide count.
    for path in [
      "priority/high/index.html", "priority/medium/index.html", "priority/low/index.html",
      "status/in-progress/index.html", "status/complete/index.html", "page/2.html",
    ] {
      #expect(!written.contains(path), "\(path)")
    }
  }

  /// The pages of a site built with a date that show it.
  static func dateShown() throws -> [String] {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let inputs = try Inputs(folder)
    _ = try build(inputs.options, sourceDateEpoch: "1796083200")
    return Tree.contents(folder.sub("site")).filter { path, bytes in
      path.hasSuffix(".html") && String(decoding: bytes, as: UTF8.self).contains("2026-12-01\">")
    }.keys.sorted()
  }

  @Test(
    "each kind of row change gives the cold build's site",
    arguments: [
      ("priority", "todo.sqlite", "UPDATE todo SET priority = 1 WHERE pk = 13"),
      ("completed", "todo.sqlite", "UPDATE todo SET complete = 1 WHERE pk = 14"),
      ("added", "todo.sqlite", "INSERT INTO todo VALUES (31, 'New', 2, 0)"),
      ("removed", "todo.sqlite", "DELETE FROM todo WHERE pk = 1"),
      (
        "a possession's name", "possessions.sqlite",
        "UPDATE possessions SET name = 'X' WHERE id = 3"
      ),
      (
        "a possession's photo", "possessions.sqlite",
        "UPDATE possessions SET photo = X'\(TestPNG.hex(TestPNG.make(seed: 99)))' WHERE id = 4"
      ),
      ("a contact", "contacts.sqlite", "UPDATE contacts SET phone = '9' WHERE id = 2"),
    ])
  func rowChanges(name: String, database: String, sql: String) throws {
    try Self.expectSameAsCold(name) { inputs in
      try inputs.change(database, sql)
    }
  }

  @Test(
    "a template change gives the cold build's site; another kind's template renders none of the to-do pages"
  )
  func templates() throws {
    try Self.expectSameAsCold("todo.md") { inputs in
      let text = try #require(Theme.builtIn.text(of: "todo.md"))
      try inputs.writeTemplate("todo.md", text + "\nEdited.\n")
    }
    try Self.expectSameAsCold("a partial") { inputs in
      let text = try #require(Theme.builtIn.text(of: "prevnext.md"))
      try inputs.writeTemplate("prevnext.md", text.replacingOccurrences(of: "→", with: "=>"))
    }
    let (first, rebuild) = try Self.expectSameAsCold("board.html") { inputs in
      let text = try #require(Theme.builtIn.text(of: "board.html"))
      try inputs.writeTemplate("board.html", text + "\n<p>Edited.</p>\n")
    }
    let always = try Self.alwaysRendered()
    #expect(rebuild.rendered == always)
    #expect(rebuild.rendered < first.pages)
  }

  @Test("a label change and an option change give the cold build's site")
  func labelsAndOptions() throws {
    try Self.expectSameAsCold("a label") { inputs in
      try inputs.writeTemplate("labels.json", #"{"en": {"task": "Chore"}}"#)
    }
    try Self.expectSameAsCold("the title") { inputs in inputs.options.title = "Other" }
    try Self.expectSameAsCold("the base URL") { inputs in
      inputs.options.baseURL = "https://example.com/"
    }
    try Self.expectSameAsCold("the page size") { inputs in inputs.options.pageSize = 5 }
    try Self.expectSameAsCold("pretty URLs") { inputs in inputs.options.prettyURLs = true }
    try Self.expectSameAsCold("the locale") { inputs in inputs.options.locale = .ja }
    try Self.expectSameAsCold("the data copies") { inputs in
      inputs.options.dataCopies = [.todos]
    }
  }

  @Test("the markdown option turned on and off, and a Markdown text edited: the cold build's site")
  func markdownOption() throws {
    try Self.expectSameAsCold("markdown on") { inputs in
      try inputs.change(
        "todo.sqlite", "UPDATE todo SET text = 'Fix **login** in `a.py`' WHERE pk = 3")
    } change: { inputs in
      inputs.options.markdown = [.todoText, .possessionDescription]
    }
    try Self.expectSameAsCold("markdown off") { inputs in
      inputs.options.markdown = [.todoText]
    } change: { inputs in
      inputs.options.markdown = []
    }
    try Self.expectSameAsCold("a Markdown text edited") { inputs in
      inputs.options.markdown = [.todoText]
    } change: { inputs in
      try inputs.change(
        "todo.sqlite", "UPDATE todo SET text = '*new* [x](https://a.example/)' WHERE pk = 5")
    }
  }

  @Test(
    "a gallery of several pages: each change, and the page size, gives the cold build's site",
    arguments: [
      ("a name on page 2", "UPDATE possessions SET name = 'X' WHERE id = 5"),
      ("a possession added", "INSERT INTO possessions VALUES (7, 'New', '', NULL)"),
      ("the first removed", "DELETE FROM possessions WHERE id = 1"),
      ("the last two removed: a page fewer", "DELETE FROM possessions WHERE id > 4"),
    ])
  func galleryPages(name: String, sql: String) throws {
    // 6 possessions, 4 a page: two pages.
    let (first, rebuild) = try Self.expectSameAsCold(name) { inputs in
      inputs.options.galleryPageSize = 4
    } change: { inputs in
      try inputs.change("possessions.sqlite", sql)
    }
    #expect(first.writtenPaths.contains("possessions/page/2.html"))
    if name == "a name on page 2" {
      // Possession 5's page and its neighbours', and the gallery page it is on, not page 1.
      #expect(rebuild.rendered == (try Self.alwaysRendered()) + 4)
      #expect(rebuild.writtenPaths.contains("possessions/page/2.html"))
      #expect(!rebuild.writtenPaths.contains("possessions/index.html"))
    }
  }

  @Test("the gallery's page size changed: the cold build's site")
  func galleryPageSize() throws {
    try Self.expectSameAsCold("more pages") { inputs in inputs.options.galleryPageSize = 2 }
    try Self.expectSameAsCold("one page") { inputs in
      inputs.options.galleryPageSize = 2
    } change: { inputs in
      inputs.options.galleryPageSize = 0
    }
  }

  @Test("a kept page that was edited or deleted by hand is rendered again")
  func handEdits() throws {
    try Self.expectSameAsCold("edited and deleted pages") { inputs in
      let site = inputs.options.output
      try writeFile(site + "/todos/20.html", "edited")
      try FileManager.default.removeItem(atPath: site + "/todos/21.html")
      try writeFile(site + "/page/3.html", "edited")
      inputs.options.date = "2026-12-02"
    }
  }

  @Test("damaged, missing or foreign fingerprints make a full render with the same site")
  func damagedRecord() throws {
    for damage in ["cut", "missing", "foreign"] {
      let (first, rebuild) = try Self.expectSameAsCold(damage) { inputs in
        let path = inputs.folder.sub(".site.taskpress/fingerprints")
        let bytes = try #require(readFile(path))
        switch damage {
        case "cut": try Data(bytes.prefix(bytes.count - 5)).write(to: URL(fileURLWithPath: path))
        case "missing": try FileManager.default.removeItem(atPath: path)
        default:
          var foreign = bytes
          foreign[0] = foreign[0] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
          try Data(foreign).write(to: URL(fileURLWithPath: path))
        }
        try inputs.change("todo.sqlite", "UPDATE todo SET text = 'Changed' WHERE pk = 13")
      }
      #expect(rebuild.rendered == first.pages, "\(damage)")
    }
  }

  @Test("with the rows' record, a page that shows no changed row is not fingerprinted again")
  func unlookedPages() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let inputs = try Inputs(folder)
    _ = try Self.build(inputs.options)
    // The recorded fingerprint of pk 30's page, far from pk 13, made wrong: a rebuild that
    // fingerprints that page renders it again; one that does not look at it keeps the record.
    let path = folder.sub(".site.taskpress/" + FingerprintRecord.fileName)
    let bytes = try #require(readFile(path))
    let headerEnd = try #require(bytes.firstIndex(of: UInt8(ascii: "\n"))) + 1
    let record = try #require(FingerprintRecord(bytes: Array(bytes[headerEnd...])))
    let key = FingerprintRecord.key("todos/30.html")
    #expect(record[key: key] != nil)
    let wrong = record.updating([(key, .zero)])
    try Data(bytes[..<headerEnd] + wrong.bytes).write(to: URL(fileURLWithPath: path))
    try inputs.change("todo.sqlite", "UPDATE todo SET text = 'Changed' WHERE pk = 13")
    try Self.copyKeepingTimes(folder.sub("site"), folder.sub("all"))
    try Self.copyKeepingTimes(folder.sub(".site.taskpress"), folder.sub(".all.taskpress"))

    let rebuild = try Self.build(inputs.options)
    var all = inputs.options
    all.output = folder.sub("all")
    all.renderPaths = RenderPaths.all.subtracting(.dependents)
    let allRebuild = try Self.build(all)
    #expect(allRebuild.rendered == rebuild.rendered + 1)
    let kept = try #require(readFile(path))
    #expect(
      FingerprintRecord(bytes: Array(kept.drop { $0 != UInt8(ascii: "\n") }.dropFirst()))?[key: key]
        == .zero)
    Self.expectSameTrees(all.output, inputs.options.output, "the rebuilds")
  }

  // MARK: - The fingerprints themselves

  static func plan(_ todos: [Todo], possessions: [Possession] = [], pageSize: Int = 4) -> SitePlan {
    var data = SiteData()
    data.todos = todos
    data.hasTodos = true
    data.possessions = possessions
    data.hasPossessions = !possessions.isEmpty
    return SitePlan(data: data, pageSize: pageSize, routes: Routes(prettyURLs: false))
  }

  static let rows: [Todo] = (1...12).map {
    Todo(pk: Int64($0), text: "Task \($0)", priority: .medium, complete: false, due: nil)
  }

  static func fingerprints(
    _ plan: SitePlan, theme: Theme = .builtIn, labels: [String: String] = [:],
    options: BuildOptions = BuildOptions()
  ) throws -> [String: KeyedHash] {
    var texts = try theme.labels(.en).labels.texts
    texts.merge(labels) { $1 }
    let fingerprints = PageFingerprints(
      plan: plan, theme: theme, labels: Labels(texts: texts), options: options,
      generated: nil, sourceDateEpoch: nil, key: .test)
    var result: [String: KeyedHash] = [:]
    for page in plan.pages {
      let file = plan.file(of: page)
      result[file] = fingerprints.fingerprint(of: page, file: file, photoFiles: [:])
    }
    return result
  }

  /// The files whose fingerprint differs between `before` and `after`.
  static func changed(_ before: [String: KeyedHash], _ after: [String: KeyedHash]) -> Set<String> {
    Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
  }

  @Test(
    "the fingerprint catches a change to each field of a row, on the pages that show the row and no others",
    arguments: ["text", "priority", "complete", "due", "pk"])
  func eachField(field: String) throws {
    let before = try Self.fingerprints(Self.plan(Self.rows))
    var rows = Self.rows
    switch field {
    case "text": rows[5].text = "Task 6, changed"
    case "priority": rows[5].priority = .other(2)
    case "complete": rows[5].complete = true
    case "due": rows[5].due = "2026-12-24"
    default: rows[11].pk = 112
    }
    let changed = Self.changed(before, try Self.fingerprints(Self.plan(rows)))
    switch field {
    case "text", "due":
      // The row's page and its neighbours', its index page (2 of 3), and its page of each
      // list it is on: nothing else.
      #expect(
        changed == [
          "todos/5.html", "todos/6.html", "todos/7.html", "page/2.html",
          "status/in-progress/page/2.html", "priority/medium/page/2.html",
        ])
    case "pk":
      #expect(changed.isSuperset(of: ["todos/11.html", "todos/112.html", "page/3.html"]))
      #expect(!changed.contains("todos/10.html"))
    case "complete":
      // The row moves from the in-progress list to the complete one: its page and its
      // neighbours', its index page, its page of the medium list, the page of the in-progress
      // list it leaves and the one after it (whose first to-do moves up), and the complete
      // list's page it enters. The counts are on the summary pages only (rendered by every
      // build): no other index or list page changes.
      #expect(
        changed == [
          "todos/5.html", "todos/6.html", "todos/7.html", "page/2.html",
          "priority/medium/page/2.html", "status/in-progress/page/2.html",
          "status/in-progress/page/3.html", "status/complete/index.html",
        ])
    default:
      // A list appears (Other priorities): every index and list page links to it.
      #expect(changed.isSuperset(of: ["todos/5.html", "todos/6.html", "page/2.html"]))
      #expect(!changed.contains("todos/4.html"))
      #expect(!changed.contains("todos/3.html"))
    }
  }

  static func pageFingerprints(_ plan: SitePlan) throws -> PageFingerprints {
    PageFingerprints(
      plan: plan, theme: .builtIn, labels: try Theme.builtIn.labels(.en).labels,
      options: BuildOptions(),
      generated: nil, sourceDateEpoch: nil, key: .test)
  }

  @Test(
    "the rows' record finds exactly the pages whose fingerprints a row's text changes, on every position and list",
    arguments: [4, 5])
  func rowRecord(pageSize: Int) throws {
    // Every priority and both states, so that each row is on a status list and a priority one.
    let rows = Self.rows.enumerated().map { offset, row in
      var row = row
      row.priority = [.high, .medium, .low, .other(7), Priority.none][offset % 5]
      row.complete = offset % 3 == 0
      return row
    }
    let before = Self.plan(rows, pageSize: pageSize)
    let beforeFingerprints = try Self.pageFingerprints(before)
    let record = try #require(
      RowRecord(
        bytes: RowRecord(layout: beforeFingerprints.todoLayout, rows: beforeFingerprints.todoRows)
          .bytes))
    #expect(record.rows.count == rows.count)
    #expect(beforeFingerprints.pages(showingChangesSince: record) == [])
    var options = BuildOptions()
    options.pageSize = pageSize
    let beforeFiles = try Self.fingerprints(before, options: options)
    for position in rows.indices {
      var changedRows = rows
      // The row at `position` in index order.
      let pk = before.todos.pk(position)
      let offset = try #require(changedRows.firstIndex { $0.pk == pk })
      changedRows[offset].text += ", changed"
      if position % 2 == 0 { changedRows[offset].due = "2026-12-24" }
      let after = Self.plan(changedRows, pageSize: pageSize)
      let changed = Self.changed(beforeFiles, try Self.fingerprints(after, options: options))
      let afterFingerprints = try Self.pageFingerprints(after)
      let found = try #require(afterFingerprints.pages(showingChangesSince: record))
      #expect(Set(found.map(after.file(of:))) == changed, "position \(position)")
      #expect(found.allSatisfy(PageFingerprints.showsTodoRowsOnly), "position \(position)")
    }
  }

  @Test(
    "the rows' record is not used when a change moves rows, adds one or changes a possession's id")
  func rowRecordLayout() throws {
    let possessions = (1...3).map {
      Possession(id: Int64($0), name: "Thing", description: "", photo: nil)
    }
    let plan = Self.plan(Self.rows, possessions: possessions)
    let fingerprints = try Self.pageFingerprints(plan)
    let record = RowRecord(layout: fingerprints.todoLayout, rows: fingerprints.todoRows)
    #expect(fingerprints.pages(showingChangesSince: record) == [])
    var moved = Self.rows
    moved[3].priority = .high
    var completed = Self.rows
    completed[3].complete = true
    var renumbered = Self.rows
    renumbered[11].pk = 112
    var otherIDs = possessions
    otherIDs[2].id = 9
    for (name, changed) in [
      ("priority", Self.plan(moved, possessions: possessions)),
      ("complete", Self.plan(completed, possessions: possessions)),
      ("pk", Self.plan(renumbered, possessions: possessions)),
      (
        "added",
        Self.plan(
          Self.rows
            + [Self.rows[0]].map {
              var row = $0
              row.pk = 13
              return row
            }, possessions: possessions)
      ),
      ("a possession's id", Self.plan(Self.rows, possessions: otherIDs)),
      ("a possession fewer", Self.plan(Self.rows, possessions: Array(possessions.prefix(2)))),
    ] {
      #expect(
        try Self.pageFingerprints(changed).pages(showingChangesSince: record) == nil, "\(name)")
    }
  }

  @Test("the fingerprint catches a change of the labels, the options and the page's template chain")
  func chain() throws {
    let plan = Self.plan(Self.rows)
    let before = try Self.fingerprints(plan)
    let label = try Self.fingerprints(plan, labels: ["task": "Chore"])
    #expect(Self.changed(before, label) == Set(before.keys).filter { before[$0] != nil })
    for change in ["title", "baseURL", "prettyURLs", "noindex", "locale", "pageSize"] {
      var options = BuildOptions()
      switch change {
      case "title": options.title = "Other"
      case "baseURL": options.baseURL = "https://example.org/"
      case "prettyURLs": options.prettyURLs = true
      case "noindex": options.noindex = true
      case "locale": options.locale = .ja
      default: options.pageSize = 3
      }
      let after = try Self.fingerprints(plan, options: options)
      #expect(Self.changed(before, after).contains("todos/6.html"), "\(change)")
    }
    // Only jobs and where things go do not reach a page.
    var options = BuildOptions()
    options.jobs = 7
    options.output = "elsewhere"
    options.quiet = true
    #expect(Self.changed(before, try Self.fingerprints(plan, options: options)).isEmpty)

    func theme(_ name: String, _ text: String) throws -> Theme {
      let folder = try TemporaryFolder()
      defer { folder.cleanUp() }
      try writeFile(folder.sub(name), text)
      return try Theme.load(overrides: folder.path)
    }
    let todoTemplate = try Self.fingerprints(plan, theme: try theme("todo.md", "{{todo.text}}"))
    let board = try Self.fingerprints(plan, theme: try theme("board.html", "<p>board</p>"))
    let layout = try Self.fingerprints(
      plan, theme: try theme("layout.html", "<main>{{{content}}}</main>"))
    #expect(
      Self.changed(before, todoTemplate) == Set(before.keys.filter { $0.hasPrefix("todos/") }))
    #expect(Self.changed(before, board).isEmpty)
    #expect(Self.changed(before, layout) == Set(before.keys).filter { before[$0] != nil })
    // A body template included as a partial is in the chain of the pages that include it.
    let included = try Self.fingerprints(
      plan, theme: try theme("todo.md", "{{> board.html}}\n{{todo.text}}"))
    let includedBoard = try {
      let folder = try TemporaryFolder()
      defer { folder.cleanUp() }
      try writeFile(folder.sub("todo.md"), "{{> board.html}}\n{{todo.text}}")
      try writeFile(folder.sub("board.html"), "<p>board</p>")
      return try Self.fingerprints(plan, theme: try Theme.load(overrides: folder.path))
    }()
    #expect(Self.changed(included, includedBoard).contains("todos/6.html"))
  }

  /// What each fingerprinted kind of page can show, as `PageFingerprints` covers it: a variable
  /// added to the template model fails this test until the fingerprint looks at it.
  @Test(
    "the fingerprint covers every variable the template model gives its pages, and every option")
  func coverage() {
    func names(_ kind: String) -> [String] {
      (TemplateModel.pages[kind] ?? []).map(\.name)
    }
    #expect(
      names("todo") == [
        "todo", "list", "boardURL", "timeline", "previous", "next", "hasNeighbours",
      ])
    #expect(names("possession") == ["possession", "previous", "next", "hasNeighbours"])
    #expect(names("possessions") == ["possessions", "pagination"])
    #expect(names("list") == ["list", "todos", "pagination", "lists"])
    #expect(
      TemplateModel.common.map(\.name) == [
        "site", "page", "root", "assets", "home", "nav", "data", "labels",
      ])
    #expect(
      TodoValue.Field.allCases.map(\.rawValue) == [
        "pk", "text", "title", "priority", "complete", "status", "check", "url", "due",
        "dueDate", "overdue", "textHTML", "titleHTML", "titleMarkdown",
      ])
    let properties = Set(Mirror(reflecting: BuildOptions()).children.compactMap(\.label))
    #expect(
      properties == PageFingerprints.optionsShown.union(PageFingerprints.optionsNotShown),
      "every option is either in the fingerprint or does not reach a page")
  }

  @Test("the record reads back what it wrote, and refuses bytes that are not one")
  func record() throws {
    let record = FingerprintRecord(
      [(3, 30), (1, 10), (2, 20), (3, 31)].map { (key: $0, value: KeyedHash(low: $1, high: $0)) })
    #expect(record.count == 3)
    let read = try #require(FingerprintRecord(bytes: record.bytes))
    #expect(read == record)
    #expect(FingerprintRecord(bytes: Array(record.bytes.dropLast())) == nil)
    #expect(FingerprintRecord(bytes: Array("taskpress-fingerprints 3\n".utf8)) == nil)
    let file = "todos/3.html"
    let keyed = FingerprintRecord([(FingerprintRecord.key(file), KeyedHash(value: 42))])
    #expect(keyed[file] == KeyedHash(value: 42))
    #expect(keyed["todos/4.html"] == nil)
    // A path given twice keeps the fingerprint given last, wherever the two are.
    let key = FingerprintRecord.key(file)
    let twice = FingerprintRecord(
      [(key, 1), (0, 5), (key, 2), (.max, 6)].map { (key: $0, value: KeyedHash(value: $1)) })
    #expect(twice[file] == KeyedHash(value: 2) && twice.count == 3)
  }
}
