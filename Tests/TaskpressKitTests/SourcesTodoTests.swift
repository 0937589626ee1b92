import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressKit

@Suite struct SourcesTodoTests {
  @Test("priorities, complete states and text repairs follow DESIGN §1, with exact warnings")
  func rules() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("todo-rules")
    let (todos, warnings) = try TodoSource(path: path).load()

    #expect(todos.map(\.pk) == Array(1...12))
    #expect(
      todos.map(\.priority) == [
        .high, .medium, .low, .other(7), .other(0), .none, .none, .none, .high, .high, .high,
        .other(-1),
      ])
    #expect(
      todos.map(\.complete) == [
        true, false, false, true, true, false, false, false, false, false, false, false,
      ])
    #expect(todos[8].text == "")
    #expect(todos[9].text == "Ca\u{FFFD}fe")
    #expect(todos[10].text == "NUL")
    #expect(
      warnings.map(\.description) == [
        "\(path): todo pk=4: priority 7 is not 1, 2 or 3",
        "\(path): todo pk=5: priority 0 is not 1, 2 or 3",
        "\(path): todo pk=6: priority is NULL",
        "\(path): todo pk=7: priority 'abc' is text, not a number",
        "\(path): todo pk=8: priority 2.5 is not a whole number",
        "\(path): todo pk=9: text is NULL",
        "\(path): todo pk=10: text is not valid UTF-8; replaced with U+FFFD",
        "\(path): todo pk=11: text contains NUL bytes; dropped them",
        "\(path): todo pk=12: priority -1 is not 1, 2 or 3",
      ])
    #expect(warnings[0].location == "todo pk=4")
    #expect(warnings[0].message == "priority 7 is not 1, 2 or 3")
  }

  @Test("priorities sort High, Medium, Low, other by number, then none")
  func prioritySort() {
    let shuffled: [Priority] = [.none, .other(7), .low, .other(-1), .high, .other(0), .medium]
    #expect(
      shuffled.sorted() == [.high, .medium, .low, .other(-1), .other(0), .other(7), .none])
    #expect(Priority(2) == .medium)
    #expect(Priority(4).number == 4)
  }

  @Test("table and column names match in any case; extra columns are ignored")
  func caseInsensitive() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("todo-uppercase")
    let (todos, warnings) = try TodoSource(path: path).load()
    #expect(
      todos == [
        Todo(pk: 1, text: "Renew passport", priority: .high, complete: false),
        Todo(pk: 2, text: "Call Caitlin", priority: .medium, complete: true),
      ])
    #expect(warnings == [])
  }

  @Test("a missing column is an error naming the file, table, column and columns found")
  func missingColumn() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("todo-missing-column")
    let error = sourceError { _ = try TodoSource(path: path) }
    #expect(
      error?.description
        == "\(path): table 'todo' has no column 'priority' (found: pk, text, complete)")
  }

  @Test("several missing columns are named together")
  func missingColumns() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("todo-missing-columns")
    let error = sourceError { _ = try TodoSource(path: path) }
    #expect(
      error?.description
        == "\(path): table 'todo' has no columns 'priority' and 'complete' (found: pk, text)")
  }

  @Test("a missing table is an error naming the tables found")
  func missingTable() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("todo-no-table")
    let error = sourceError { _ = try TodoSource(path: path) }
    #expect(error?.description == "\(path): no table 'todo' (found: foo, bar)")

    let empty = try folder.database("no-tables")
    let emptyError = sourceError { _ = try TodoSource(path: empty) }
    #expect(emptyError?.description == "\(empty): no table 'todo' (the file has no tables)")
  }

  @Test("a NULL or repeated pk skips the row with a warning; a text pk is a text key")
  func badKeys() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("todo-bad-keys")
    let (todos, warnings) = try TodoSource(path: path).load()
    #expect(Set(todos.map(\.text)) == ["One", "First with pk 2", "Text pk"])
    #expect(todos.map(\.pk) == todos.map(\.pk).sorted())
    #expect(todos.first { $0.text == "Text pk" }?.key == "x")
    #expect(
      warnings.map(\.description) == [
        "\(path): todo row 1: pk is NULL; row skipped",
        "\(path): todo pk=2: pk 2 is used by more than one row; row skipped",
      ])
  }

  @Test("text keys: UUIDs, numbers written as text, hostile and repeated keys")
  func textKeys() throws {
    let folder = try FixtureFolder()
    let long = String(repeating: "k", count: 10_000)
    let path = try folder.database(
      "text-keys",
      sql: """
        CREATE TABLE todo(pk TEXT PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN);
        INSERT INTO todo VALUES ('8f3a2c', 'Hex', 1, 0);
        INSERT INTO todo VALUES ('42', 'Number as text', 1, 0);
        INSERT INTO todo VALUES ('042', 'Leading zero', 1, 0);
        INSERT INTO todo VALUES ('ABC', 'Upper', 1, 0);
        INSERT INTO todo VALUES ('abc', 'Lower', 1, 0);
        INSERT INTO todo VALUES ('../x', 'Dots', 1, 0);
        INSERT INTO todo VALUES ('<script>', 'Script', 1, 0);
        INSERT INTO todo VALUES ('\u{00E9}', 'Composed', 1, 0);
        INSERT INTO todo VALUES ('e\u{0301}', 'Decomposed', 1, 0);
        INSERT INTO todo VALUES ('\(long)', 'Long', 1, 0);
        INSERT INTO todo VALUES ('', 'Empty', 1, 0);
        """)
    let (todos, warnings) = try TodoSource(path: path).load()
    #expect(
      warnings.map(\.description) == [
        "\(path): todo row 1: pk is empty text; row skipped"
      ])
    #expect(todos.count == 10)
    let rows = TodoRows(todos)
    var names: [String: String] = [:]
    for position in rows.indices {
      let todo = todos[position]
      names[todo.text] = rows.pageName(position)
      #expect(rows.keyText(position) == (todo.key ?? String(todo.pk)))
    }
    #expect(
      todos.first { $0.text == "Number as text" }.map { ($0.pk, $0.key) } ?? (0, "") == (42, nil))
    #expect(names["Hex"] == "8f3a2c")
    #expect(names["Number as text"] == "42")
    #expect(names["Leading zero"] == "042")
    #expect(names["Lower"] == "abc")
    // Every other name is `_` and 16 hexadecimal digits, and no two names are the same even
    // on a file system that ignores case or normalizes Unicode.
    for text in ["Upper", "Dots", "Script", "Composed", "Decomposed", "Long"] {
      let name = try #require(names[text])
      #expect(name.count == 17 && name.hasPrefix("_"), "\(text): \(name)")
      #expect(name.dropFirst().allSatisfy { $0.isHexDigit && !$0.isUppercase })
    }
    let folded = Set(names.values.map { $0.lowercased().precomposedStringWithCanonicalMapping })
    #expect(folded.count == names.count)
    // The names are the same on every read (a key's page never moves).
    let again = try TodoSource(path: path).load().todos
    #expect(
      TodoRows(again).indices.map(TodoRows(again).pageName) == rows.indices.map(rows.pageName))
  }

  @Test("files that are not databases give errors naming the file")
  func notADatabase() throws {
    let folder = try FixtureFolder()
    let missing = folder.url.appending(path: "x.sqlite").path
    #expect(
      sourceError { _ = try TodoSource(path: missing) }?.description == "\(missing): no such file")
    #expect(!FileManager.default.fileExists(atPath: missing))

    let text = folder.url.appending(path: "notes.txt").path
    try Data(String(repeating: "Buy milk\n", count: 20).utf8).write(to: URL(filePath: text))
    #expect(
      sourceError { _ = try TodoSource(path: text) }?.description
        == "\(text): not a SQLite database")

    let empty = folder.url.appending(path: "empty.sqlite").path
    try Data().write(to: URL(filePath: empty))
    #expect(
      sourceError { _ = try TodoSource(path: empty) }?.description
        == "\(empty): file is empty, not a SQLite database")
  }

  @Test("a database locked by a writer is a clear error")
  func locked() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("todo-rules")
    let writer = try Database.openWritableForTesting(at: path)
    try writer.execute("BEGIN EXCLUSIVE; DELETE FROM todo WHERE pk = 1;")
    let error = sourceError { _ = try TodoSource(path: path, busyTimeout: .milliseconds(50)) }
    #expect(
      error?.description
        == "\(path): database is locked (another program is writing to it; try again when it finishes)"
    )
    try writer.execute("ROLLBACK")
  }

  @Test("a source reads one snapshot while another program commits")
  func snapshot() throws {
    let folder = try FixtureFolder()
    let path = try folder.database(
      "wal",
      sql: """
        PRAGMA journal_mode = WAL;
        CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN);
        INSERT INTO todo VALUES (1, 'Before', 1, 0);
        """)
    let source = try TodoSource(path: path)
    let writer = try Database.openWritableForTesting(at: path)
    try writer.execute("INSERT INTO todo VALUES (2, 'After', 1, 0)")
    #expect(try source.load().todos.map(\.text) == ["Before"])
    source.close()
    #expect(try TodoSource(path: path).load().todos.map(\.text) == ["Before", "After"])
  }

  @Test("loading leaves the file byte-identical and creates nothing beside it")
  func readOnly() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("todo-rules")
    let before = try Data(contentsOf: URL(filePath: path))
    do {
      let source = try TodoSource(path: path)
      _ = try source.load()
    }
    #expect(try Data(contentsOf: URL(filePath: path)) == before)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["todo-rules.sqlite"])
  }

  @Test(
    "the real sample databases load",
    arguments: [
      ("IdeaCore_todo_13e068b_todo.sqlite", 4),
      ("aquillano_Todo_669e405_todo.sqlite", 4),
      ("photon-labs_todolist_4f94c00_todo.sqlite", 4),
      ("lbain_Todo-Fun_f61d735_todo1.sqlite", 3),
      ("lbain_Todo-Fun_4a173f4_todo2.sqlite", 1),
      ("photon-labs_todolist_7c71ac1_build_todo.app_todo.sqlite", 4),
    ])
  func sampleDatabases(name: String, count: Int) throws {
    let path = SampleDatabases.path(name)
    let before = try Data(contentsOf: URL(filePath: path))
    let (todos, warnings) = try TodoSource(path: path).load()
    #expect(todos.count == count)
    #expect(warnings == [])
    #expect(todos.map(\.pk) == Array(1...Int64(count)))
    #expect(todos.allSatisfy { !$0.complete && !$0.text.isEmpty })
    #expect(try Data(contentsOf: URL(filePath: path)) == before)
  }

  @Test("the sample with a dueDate column reads its one to-do")
  func sampleWithDueDate() throws {
    let path = SampleDatabases.path("lbain_Todo-Fun_4a173f4_todo2.sqlite")
    let (todos, _) = try TodoSource(path: path).load()
    #expect(todos == [Todo(pk: 1, text: "call Caitlin", priority: .low, complete: false)])
  }
}
