import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressKit

/// Databases that do not follow the tutorial's schema, read through a mapping, and values as
/// other apps store them.
@Suite struct SourcesMappingTests {
  static let tasks = """
    CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT, prio INTEGER, done TEXT, due INTEGER);
    INSERT INTO tasks VALUES (1, 'Renew passport', 1, 'false', 1216990000);
    INSERT INTO tasks VALUES (2, 'Call Caitlin', 2, 'true', NULL);
    INSERT INTO tasks VALUES (3, 'Water the plants', 3, 'false', '2026-12-24');
    CREATE TABLE notes(x);
    """

  static let mapping = SourceMapping(
    table: "tasks", columns: ["pk": "id", "text": "title", "priority": "prio", "complete": "done"])

  @Test("a tasks(id, title, prio, done) table read through a mapping gives the usual to-dos")
  func mapped() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("app", sql: Self.tasks)
    let (todos, warnings) = try TodoSource(path: path, mapping: Self.mapping).load()
    // Its `due` column is read as the due date without being mapped.
    #expect(
      todos == [
        Todo(
          pk: 1, text: "Renew passport", priority: .high, complete: false,
          due: "2008-07-25T12:46:40Z"),
        Todo(pk: 2, text: "Call Caitlin", priority: .medium, complete: true),
        Todo(pk: 3, text: "Water the plants", priority: .low, complete: false, due: "2026-12-24"),
      ])
    #expect(warnings == [])
  }

  @Test("a due-date column: seconds since 1970 as a UTC time, text as stored, NULL as none")
  func dueDates() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("app", sql: Self.tasks)
    var mapping = Self.mapping
    mapping.columns["due"] = "due"
    let source = try TodoSource(path: path, mapping: mapping)
    #expect(source.hasDueDates)
    let (todos, _) = try source.load()
    #expect(todos.map(\.due) == ["2008-07-25T12:46:40Z", nil, "2026-12-24"])

    let sample = SampleDatabases.path("lbain_Todo-Fun_4a173f4_todo2.sqlite")
    let due = SourceMapping(columns: ["due": "dueDate"])
    #expect(
      try TodoSource(path: sample, mapping: due).load().todos.map(\.due) == ["2008-07-25T12:46:40Z"]
    )
  }

  @Test("a column named due (in any case) is the due date when the mapping names none")
  func dueByDefault() throws {
    let folder = try FixtureFolder()
    // The mapped table, its `due` column not named in the mapping.
    let tasks = try TodoSource(path: folder.database("app", sql: Self.tasks), mapping: Self.mapping)
    #expect(tasks.hasDueDates)
    #expect(try tasks.load().todos.map(\.due) == ["2008-07-25T12:46:40Z", nil, "2026-12-24"])
    // The usual `todo` table with a `Due` column.
    let path = try folder.database(
      "todo",
      sql: """
        CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete, Due TEXT);
        INSERT INTO todo VALUES (1, 'Pay rent', 1, 0, '2026-12-31');
        """)
    let source = try TodoSource(path: path)
    #expect(source.hasDueDates)
    #expect(try source.load().todos.map(\.due) == ["2026-12-31"])
    // A mapped column wins over `due`; a table without one has no due dates (`dueDate` is
    // another app's column, read only when mapped).
    let mapped = try TodoSource(path: path, mapping: SourceMapping(columns: ["due": "text"]))
    #expect(try mapped.load().todos.map(\.due) == ["Pay rent"])
    let sample = try TodoSource(path: SampleDatabases.path("lbain_Todo-Fun_4a173f4_todo2.sqlite"))
    #expect(!sample.hasDueDates)
    #expect(try sample.load().todos.map(\.due) == [nil])
  }

  @Test("a filter publishes only the rows it keeps; a bad one names itself and the table")
  func filter() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("app", sql: Self.tasks)
    var mapping = Self.mapping
    mapping.filter = "done = 'false'"
    #expect(try TodoSource(path: path, mapping: mapping).load().todos.map(\.pk) == [1, 3])
    mapping.filter = "dne = 'false'"
    let error = sourceError { _ = try TodoSource(path: path, mapping: mapping) }
    #expect(
      error?.description
        == "\(path): the filter 'dne = 'false'' for table 'tasks': no such column: dne")
    mapping.filter = "1); DELETE FROM tasks; SELECT (1"
    #expect(
      sourceError { _ = try TodoSource(path: path, mapping: mapping) }?.description
        == "\(path): the filter '\(mapping.filter ?? "")' for table 'tasks': more than one statement"
    )
    #expect(try TodoSource(path: path, mapping: Self.mapping).load().todos.count == 3)
  }

  @Test("a missing table suggests the closest name found")
  func closestTable() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("app", sql: Self.tasks)
    let error = sourceError {
      _ = try TodoSource(path: path, mapping: SourceMapping(table: "task"))
    }
    #expect(
      error?.description == "\(path): no table 'task' (found: tasks, notes); did you mean 'tasks'?")
    let sample = SampleDatabases.path("aquillano_Todo_669e405_todo.sqlite")
    let todos = sourceError {
      _ = try TodoSource(path: sample, mapping: SourceMapping(table: "todos"))
    }
    #expect(todos?.description == "\(sample): no table 'todos' (found: todo); did you mean 'todo'?")
    let far = sourceError { _ = try TodoSource(path: path) }
    #expect(far?.description == "\(path): no table 'todo' (found: tasks, notes)")
  }

  @Test("a mapped column that is missing is named as mapped")
  func missingMappedColumn() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("app", sql: Self.tasks)
    var mapping = Self.mapping
    mapping.columns["text"] = "titel"
    let error = sourceError { _ = try TodoSource(path: path, mapping: mapping) }
    #expect(
      error?.description
        == "\(path): table 'tasks' has no column 'titel' (found: id, title, prio, done, due)")
  }

  @Test("complete as text reads as people mean it; other text is a warning naming the row")
  func completeAsText() throws {
    let folder = try FixtureFolder()
    let values = [
      "'true'", "'TRUE'", "' yes '", "'1'", "'done'", "'Done'", "'false'", "'No'", "'0'",
      "'maybe'", "''", "NULL", "0", "1", "2",
    ]
    var sql = "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text, priority, complete);"
    for (index, value) in values.enumerated() {
      sql += "INSERT INTO todo VALUES (\(index + 1), 't', 1, \(value));"
    }
    let path = try folder.database("todo", sql: sql)
    let (todos, warnings) = try TodoSource(path: path).load()
    #expect(
      todos.map(\.complete) == [
        true, true, true, true, true, true, false, false, false, true, true, false, false, true,
        true,
      ])
    #expect(
      warnings.map(\.description) == [
        "\(path): todo pk=10: complete 'maybe' is not true/false, yes/no, 1/0 or done; shown as Complete",
        "\(path): todo pk=11: complete '' is not true/false, yes/no, 1/0 or done; shown as Complete",
      ])
  }

  @Test("warnings name the mapped table and columns")
  func mappedWarnings() throws {
    let folder = try FixtureFolder()
    let path = try folder.database(
      "app",
      sql: Self.tasks + "INSERT INTO tasks VALUES (4, NULL, 1, 'sometimes', NULL);")
    let (_, warnings) = try TodoSource(path: path, mapping: Self.mapping).load()
    #expect(
      warnings.map(\.description) == [
        "\(path): tasks id=4: title is NULL",
        "\(path): tasks id=4: done 'sometimes' is not true/false, yes/no, 1/0 or done; shown as Complete",
      ])
  }

  @Test("contacts and possessions read through mappings")
  func otherSources() throws {
    let folder = try FixtureFolder()
    let path = try folder.database(
      "app",
      sql: """
        CREATE TABLE people(pid INTEGER PRIMARY KEY, full_name TEXT, street TEXT, tel TEXT);
        INSERT INTO people VALUES (1, 'Ada', NULL, NULL), (2, 'Grace', 'Arlington', '555-0102');
        CREATE TABLE things(key INTEGER PRIMARY KEY, label TEXT, notes TEXT, picture BLOB);
        INSERT INTO things VALUES (5, 'Kettle', 'steel', NULL), (6, 'Lamp', 'old', NULL);
        """)
    let contacts = SourceMapping(
      table: "people",
      columns: ["id": "pid", "name": "full_name", "address": "street", "phone": "tel"])
    let (people, peopleWarnings) = try ContactSource(path: path, mapping: contacts).load()
    #expect(
      people == [
        Contact(id: 1, name: "Ada", address: "", phone: ""),
        Contact(id: 2, name: "Grace", address: "Arlington", phone: "555-0102"),
      ])
    #expect(peopleWarnings == [])
    let possessions = SourceMapping(
      table: "things",
      columns: ["id": "key", "name": "label", "description": "notes", "photo": "picture"],
      filter: "label <> 'Lamp'")
    let (things, _) = try PossessionSource(path: path, mapping: possessions).load()
    #expect(things == [Possession(id: 5, name: "Kettle", description: "steel", photo: nil)])
  }
}
