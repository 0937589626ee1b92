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
        .init(build: 1, date: nil, added: 7, removed: 0, completed: 0, reopened: 0)
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
        .init(build: 1, date: nil, added: 7, removed: 0, completed: 0, reopened: 0),
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
          build: $0, date: $0 == 1 ? nil : "2026-12-0\($0)\"\\\n", added: $0, removed: 0,
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
      let file = try JSONDecoder().decode(TodoHistory.File.self, from: Data(history.bytes))
      #expect(TodoHistory(file) == history)
    }
  }
}
