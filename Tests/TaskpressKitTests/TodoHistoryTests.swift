import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

/// Each to-do's history as the builds record it: `data/todo-history.json`.
@Suite struct TodoHistoryTests {
  /// Each to-do of `site`'s `data/todo-history.json`: pk, first build and events
  /// (`3 completed`), or nil when there is no such file.
  static func records(_ site: String) throws -> [Int64: (first: Int, events: [String])]? {
    guard let bytes = readFile(site + "/data/todo-history.json") else { return nil }
    let file = try JSONDecoder().decode(TodoHistory.File.self, from: Data(bytes))
    #expect(file.format == "taskpress-todo-history-1")
    var records: [Int64: (first: Int, events: [String])] = [:]
    for row in file.todos {
      records[row.pk] = (row.first, row.events.map { "\($0.event.build) \($0.event.kind.name)" })
    }
    return records
  }

  static func builds(_ site: String) throws -> [TodoHistory.BuildEntry] {
    let bytes = try #require(readFile(site + "/data/todo-history.json"))
    return try JSONDecoder().decode(TodoHistory.File.self, from: Data(bytes)).builds
  }

  static func build(_ options: BuildOptions) throws {
    #expect(try ChangesTests.build(options) == [])
  }

  @Test(
    "each to-do's first build, status, priority and text changes and removal are recorded, in the same folder or with --previous, and the file stays byte for byte when nothing changed",
    arguments: [false, true])
  func nights(fresh: Bool) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(at: database, sql: ChangesTests.todoSchema)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("night1")
    options.date = "2026-11-30T06:00:00Z"
    try Self.build(options)
    func night(_ number: Int, _ sql: String?) throws {
      if let sql { try ChangesTests.change(database, sql) }
      if fresh {
        options.previous = options.output
        options.output = folder.sub("night\(number)")
      }
      options.date = "2026-12-0\(number)T06:00:00Z"
      try Self.build(options)
    }
    let first = try #require(try Self.records(options.output))
    #expect(first.keys.sorted() == Array(1...7))
    #expect(first.values.allSatisfy { $0.first == 1 && $0.events.isEmpty })
    #expect(
      try Self.builds(options.output) == [
        .init(
          build: 1, date: "2026-11-30T06:00:00Z", added: 7, removed: 0, completed: 0, reopened: 0)
      ])
    try night(2, ChangesTests.nightly)
    // Nothing changed: the same bytes, and no build recorded.
    let after2 = try #require(readFile(options.output + "/data/todo-history.json"))
    try night(3, nil)
    #expect(readFile(options.output + "/data/todo-history.json") == after2)
    // Build 3: pk 1 reopened, pk 8 completed, pk 4's priority back, pk 7 back (a new to-do).
    try night(
      4,
      """
      UPDATE todo SET complete = 0 WHERE pk = 1;
      UPDATE todo SET complete = 1 WHERE pk = 8;
      UPDATE todo SET priority = 2 WHERE pk = 4;
      INSERT INTO todo VALUES (7, 'Old errand again', 3, 0);
      DELETE FROM todo WHERE pk = 9;
      """)
    let records = try #require(try Self.records(options.output))
    let expected: [Int64: (Int, [String])] = [
      1: (1, ["2 completed", "3 reopened"]),
      2: (1, ["2 completed"]),
      3: (1, ["2 reopened"]),
      4: (1, ["2 priority", "3 priority"]),
      5: (1, ["2 text"]),
      6: (1, []),
      7: (3, []),
      8: (2, ["3 completed"]),
      9: (2, ["3 removed"]),
      10: (2, []),
    ]
    #expect(records.keys.sorted() == expected.keys.sorted())
    for (pk, (first, events)) in expected {
      #expect(records[pk]?.first == first, "pk \(pk)")
      #expect(records[pk]?.events == events, "pk \(pk)")
    }
    #expect(
      try Self.builds(options.output) == [
        .init(
          build: 1, date: "2026-11-30T06:00:00Z", added: 7, removed: 0, completed: 0, reopened: 0),
        .init(
          build: 2, date: "2026-12-02T06:00:00Z", added: 3, removed: 1, completed: 2, reopened: 1
        ),
        .init(
          build: 3, date: "2026-12-04T06:00:00Z", added: 1, removed: 1, completed: 1, reopened: 1
        ),
      ])
  }

  @Test(
    "--history-limit drops the builds and the removed to-dos it no longer keeps, but not the events of a to-do still there"
  )
  func limit() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(at: database, sql: ChangesTests.todoSchema)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("site")
    options.historyLimit = 2
    try Self.build(options)
    let nights = [
      "UPDATE todo SET complete = 1 WHERE pk = 1; DELETE FROM todo WHERE pk = 7;",
      "UPDATE todo SET text = 'Walk the cat' WHERE pk = 2;",
      "UPDATE todo SET text = 'Walk the fish' WHERE pk = 2;",
    ]
    for (index, sql) in nights.enumerated() {
      try ChangesTests.change(database, sql)
      options.date = "2026-12-0\(index + 1)"
      try Self.build(options)
    }
    let records = try #require(try Self.records(options.output))
    // Builds 3 and 4 kept: pk 7's removal (build 2) is gone; pk 1's completion stays.
    #expect(records[7] == nil)
    #expect(records[1]?.events == ["2 completed"])
    #expect(records[2]?.events == ["3 text", "4 text"])
    // Build 1 (first seen) and 2 (pk 1's completion) are still named, so still listed.
    #expect(try Self.builds(options.output).map(\.build) == [1, 2, 3, 4])
  }

  @Test(
    "a site of an earlier taskpress (a history, no to-do history) starts each to-do at its oldest build"
  )
  func earlierSite() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(at: database, sql: ChangesTests.todoSchema)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("site")
    try Self.build(options)
    try FileManager.default.removeItem(atPath: options.output + "/data/todo-history.json")
    try ChangesTests.change(database, ChangesTests.nightly)
    options.date = "2026-12-01"
    try Self.build(options)
    let records = try #require(try Self.records(options.output))
    #expect(records[1]?.first == 1)
    #expect(records[1]?.events == ["2 completed"])
    #expect(records[8]?.first == 2)
    // A to-do removed before any to-do history was kept has none.
    #expect(records[7] == nil)
  }

  @Test(
    "a damaged to-do history is an error naming the file and what to do; the site is left as it was",
    arguments: [
      ("{", "not valid JSON"),
      (
        #"{"format": "taskpress-todo-history-9", "builds": [], "todos": []}"#,
        "its format is 'taskpress-todo-history-9', not 'taskpress-todo-history-1'"
      ),
      (
        #"{"format": "taskpress-todo-history-1", "builds": [], "todos": [{"pk":2,"first":1,"events":[]},{"pk":1,"first":1,"events":[]}]}"#,
        "its builds or to-dos are not in increasing order"
      ),
      (
        #"{"format": "taskpress-todo-history-1", "builds": [], "todos": [{"pk":1,"first":1,"events":[[2,"eaten"]]}]}"#,
        "'todos[0].events[0][2]' is not what taskpress writes there"
      ),
    ])
  func damaged(contents: String, detail: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(at: database, sql: ChangesTests.todoSchema)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("site")
    try Self.build(options)
    let path = options.output + "/data/todo-history.json"
    try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
    let before = Tree.snapshot(options.output)
    try ChangesTests.change(database, ChangesTests.nightly)
    #expect(
      throws: BuildError(
        "\(path): not the previous build's to-do history as taskpress writes it (\(detail)); "
          + "delete it to start the record of changes afresh, or give --previous a copy of the "
          + "last published site")
    ) {
      _ = try ChangesTests.build(options)
    }
    #expect(Tree.snapshot(options.output) == before)
  }

  @Test("the file reads back as it was written: random histories, texts with escapes in dates")
  func roundTrip() throws {
    var random = SplitMix(state: 42)
    for _ in 0..<50 {
      var history = TodoHistory()
      history.builds = (1...Int(random.next() % 5 + 1)).map {
        .init(
          build: $0, date: $0 == 1 ? nil : "2026-12-0\($0)" + ($0 == 3 ? "\"\\\n" : ""),
          added: $0, removed: 0,
          completed: 1, reopened: 2)
      }
      var pk: Int64 = -5
      for _ in 0..<Int(random.next() % 20) {
        pk += Int64(random.next() % 3 + 1)
        let events = (0..<Int(random.next() % 4)).map { _ in
          TodoHistory.Event(
            build: Int(random.next() % 9 + 1),
            kind: TodoHistory.Kind.allCases[Int(random.next() % 5)])
        }
        history.append(pk: pk, first: Int(random.next() % 4 + 1), events: events)
      }
      let bytes = history.bytes
      let file = try JSONDecoder().decode(TodoHistory.File.self, from: Data(bytes))
      #expect(TodoHistory(file) == history)
      // Read in one pass when no date has an escape; else left to `JSONDecoder`.
      let escaped = history.builds.contains { $0.date?.contains("\\") == true }
      #expect(bytes.withUnsafeBytes(TodoHistory.parse) == (escaped ? nil : history))
      // Any other form of the same JSON: left to `JSONDecoder`.
      let spaced = Array(
        String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: ",", with: ", ").utf8)
      if !history.builds.isEmpty {
        #expect(spaced.withUnsafeBytes(TodoHistory.parse) == nil)
      }
    }
  }

  // MARK: - The timelines

  static func run(_ options: BuildOptions) throws -> BuildSummary {
    try Build.run(options, interrupt: InterruptFlag(), reporter: Build.Reporter(warning: { _ in }))
  }

  /// The bytes of every file of `site` (the state folder left out).
  static func files(_ site: String) -> [String: [UInt8]] {
    Tree.snapshot(site, includeState: false).compactMapValues {
      $0.kind == "file" ? $0.bytes : nil
    }
  }

  @Test(
    "each to-do's page shows its timeline with dates and links to its builds on changes.html; a one-row rebuild writes at most 16 files (15, and report.html)"
  )
  func timelines() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(at: database, sql: ChangesTests.todoSchema)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("site")
    options.historyLimit = 14
    _ = try Self.run(options)
    try ChangesTests.change(database, ChangesTests.nightly)
    options.date = "2026-12-02T06:00:00Z"
    _ = try Self.run(options)
    let page = ChangesTests.text(options.output + "/todos/4.html")
    #expect(page.contains("<li>Added</li>"))
    #expect(
      page.contains(
        "<li>Priority changed · 2026-12-02 · <a href=\"../changes.html#build-2\">Build 2</a></li>"
      ), "\(page)")
    #expect(
      ChangesTests.text(options.output + "/todos/8.html").contains(
        "<li>Added · 2026-12-02 · <a href=\"../changes.html#build-2\">Build 2</a></li>"))
    // Twelve more builds: build 2 is on the second page of changes, and the first holds its
    // anchor, with a link there.
    for night in 3...14 {
      try ChangesTests.change(database, "UPDATE todo SET text = 'Night \(night)' WHERE pk = 6;")
      options.date = "2026-12-\(night < 10 ? "0" : "")\(night)T06:00:00Z"
      let summary = try Self.run(options)
      // The to-do's page and its neighbours', its index and list pages, the changes, the
      // first page, the data files.
      // (Past ten builds, the later pages of changes shift by one build each time too.)
      let laterChanges = summary.writtenPaths.filter { $0.hasPrefix("changes/") }.count
      // The site search's index: its directory and the shard that holds the row (at most two
      // shard files for a one-row change, Docs/search.md), beside the 15.
      let searchFiles = summary.writtenPaths.filter { $0.hasPrefix("search/") }.count
      #expect(searchFiles <= 2, "\(summary.writtenPaths)")
      // And report.html, the 16th: it lists the latest changes (and the build's date), so every
      // build that changes something rewrites it. flow.html lists the oldest open to-dos'
      // texts: a text change of a complete to-do (pk 6) leaves it as it was.
      #expect(summary.writtenPaths.contains("report.html"), "\(summary.writtenPaths)")
      #expect(!summary.writtenPaths.contains("flow.html"), "\(summary.writtenPaths)")
      #expect(summary.written - laterChanges - searchFiles <= 16, "\(summary.writtenPaths)")
    }
    let changes = ChangesTests.text(options.output + "/changes.html")
    #expect(changes.contains("<li id=\"build-2\"><a href=\"changes/2.html#build-2\">Build 2</a>"))
    #expect(ChangesTests.text(options.output + "/changes/2.html").contains("id=\"build-2\""))
    // Two more: build 2 is no longer kept, but the anchor stays while a timeline names it.
    for night in 15...16 {
      try ChangesTests.change(database, "UPDATE todo SET text = 'Night \(night)' WHERE pk = 6;")
      options.date = "2026-12-\(night)T06:00:00Z"
      _ = try Self.run(options)
    }
    #expect(
      ChangesTests.text(options.output + "/changes.html").contains(
        "<li id=\"build-2\">Build 2 · <time datetime=\"2026-12-02T06:00:00Z\">2026-12-02</time> · no longer listed</li>"
      ))
    #expect(
      ChangesTests.text(options.output + "/todos/4.html").contains(
        "<a href=\"../changes.html#build-2\">Build 2</a>"))
  }

  @Test(
    "the build that starts the to-do histories of an earlier site rewrites the to-dos' pages as a build of every page does",
    arguments: [RenderPaths.all, RenderPaths.reference])
  func startingHistories(paths: RenderPaths) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(at: database, sql: ChangesTests.todoSchema)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("site")
    options.renderPaths = paths
    _ = try Self.run(options)
    try ChangesTests.change(database, ChangesTests.nightly)
    options.date = "2026-12-02"
    _ = try Self.run(options)
    // As a site of an earlier taskpress: no to-do history.
    try FileManager.default.removeItem(atPath: options.output + "/data/todo-history.json")
    try ChangesTests.change(database, "UPDATE todo SET text = 'Walk the cat' WHERE pk = 2;")
    try FileManager.default.copyItem(atPath: options.output, toPath: folder.sub("before"))
    options.date = "2026-12-03"
    _ = try Self.run(options)
    // The same build into a new folder, from a copy of the site before it, every page
    // rendered.
    var fresh = options
    fresh.renderPaths = .reference
    fresh.output = folder.sub("fresh")
    fresh.previous = folder.sub("before")
    _ = try Self.run(fresh)
    let built = Self.files(options.output)
    let expected = Self.files(fresh.output)
    #expect(built.keys.sorted() == expected.keys.sorted())
    for (path, bytes) in expected {
      #expect(built[path] == bytes, "\(path)")
    }
    #expect(ChangesTests.text(options.output + "/todos/1.html").contains("<li>Added</li>"))
  }
}
