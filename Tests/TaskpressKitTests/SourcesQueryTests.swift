import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressKit

/// Sources mapped by a query (`"query"` in `taskpress.json`): read as if the query's result
/// were a table, reading only, under a time limit.
@Suite struct SourcesQueryTests {
  /// An app keyed by rows, its to-dos' fields in JSON, its projects in a table of their own.
  static let app = """
    CREATE TABLE projects(id INTEGER PRIMARY KEY, name TEXT, archived INTEGER);
    CREATE TABLE tasks(id INTEGER PRIMARY KEY, project INTEGER, data TEXT);
    INSERT INTO projects VALUES (1, 'Home', 0), (2, 'Old', 1);
    INSERT INTO tasks VALUES (1, 1, '{"title": "Water the plants", "prio": 3, "done": false}');
    INSERT INTO tasks VALUES (2, 2, '{"title": "Archived task", "prio": 1, "done": true}');
    INSERT INTO tasks VALUES (3, 1, '{"title": "File the taxes", "prio": 1, "done": true,
      "due": 1216990000}');
    CREATE TABLE things(id INTEGER PRIMARY KEY, label TEXT);
    CREATE TABLE pictures(thing INTEGER, bytes BLOB);
    INSERT INTO things VALUES (1, 'Bicycle'), (2, 'Lamp');
    CREATE TABLE people(id INTEGER PRIMARY KEY, data TEXT);
    INSERT INTO people VALUES (7, '{"name": "Caitlin", "phone": "555-0100"}');
    """

  static let todoQuery = """
    SELECT t.id AS pk, json_extract(t.data, '$.title') AS text,
      json_extract(t.data, '$.prio') AS priority, json_extract(t.data, '$.done') AS complete
    FROM tasks t JOIN projects p ON p.id = t.project
    WHERE NOT p.archived -- archived projects are not published
    """

  static func query(_ sql: String) -> SourceMapping {
    var mapping = SourceMapping()
    mapping.query = sql
    return mapping
  }

  @Test("a query with a join and json_extract publishes its rows, in key order")
  func joinAndJSON() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("app", sql: Self.app)
    let source = try TodoSource(path: path, mapping: Self.query(Self.todoQuery))
    #expect(!source.hasDueDates)
    let (todos, warnings) = try source.load()
    #expect(
      todos == [
        Todo(pk: 1, text: "Water the plants", priority: .low, complete: false),
        Todo(pk: 3, text: "File the taxes", priority: .high, complete: true),
      ])
    #expect(warnings == [])
  }

  @Test("an optional field is read when the query returns it")
  func optionalField() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("app", sql: Self.app)
    let sql = Self.todoQuery.replacing(
      "\nFROM tasks", with: ", json_extract(t.data, '$.due') AS due\nFROM tasks")
    let source = try TodoSource(path: path, mapping: Self.query(sql))
    #expect(source.hasDueDates)
    #expect(try source.load().todos.map(\.due) == [nil, "2008-07-25T12:46:40Z"])
  }

  @Test("a required field the query lacks is an error naming its result columns")
  func missingField() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("app", sql: Self.app)
    let sql = "SELECT id AS pk, data AS text, 1 AS priorty, 0 AS complete FROM tasks"
    let error = sourceError { _ = try TodoSource(path: path, mapping: Self.query(sql)) }
    #expect(
      error?.description
        == "\(path): the \"todos\" query has no column 'priority' (found: pk, text, priorty,"
        + " complete); did you mean 'priorty'? (a result column is named by its field:"
        + " SELECT title AS text)")
  }

  @Test(
    "a query that would do more than read, or is not one statement, is an error naming the source",
    arguments: [
      ("DELETE FROM tasks", "may only read, but it would delete rows from 'tasks'"),
      ("ATTACH 'x.db' AS x", "may only read, but it would attach a database"),
      (
        "SELECT 1 AS pk; DELETE FROM tasks",
        "more than one statement: only one SELECT may be given, but more follows at line 1,"
          + " column 16"
      ),
      ("SELECT id AS pk FROM taks", "no such table: taks"),
      ("SELECT id AS pk,\n  nope FROM tasks", "no such column: nope (at line 2, column 3)"),
    ])
  func refused(sql: String, message: String) throws {
    let folder = try FixtureFolder()
    let path = try folder.database("app", sql: Self.app)
    let before = try Data(contentsOf: URL(filePath: path))
    let error = sourceError { _ = try TodoSource(path: path, mapping: Self.query(sql)) }
    #expect(error?.description == "\(path): the \"todos\" query: \(message)")
    #expect(try Data(contentsOf: URL(filePath: path)) == before)
  }

  @Test("a query that never ends is stopped at the limit, with an error naming it")
  func timeLimit() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("app", sql: Self.app)
    let sql = """
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
      SELECT i AS pk, 'x' AS text, 1 AS priority, 0 AS complete FROM n WHERE i < 0
      """
    let source = try TodoSource(
      path: path, mapping: Self.query(sql), queryTimeout: .milliseconds(100))
    let error = sourceError { _ = try source.load() }
    #expect(
      error?.description
        == "\(path): the \"todos\" query stopped after 0.1 s (--query-timeout); make it read"
        + " less (an index on what it joins or filters on helps), or give it longer with"
        + " --query-timeout SECONDS")
  }

  @Test("possessions through a query: photos are read by id through the query, limits kept")
  func possessions() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("app", sql: Self.app)
    let png = TestPNG.make(width: 3, height: 2)
    do {
      let database = try Database.openWritableForTesting(at: path)
      try database.execute(
        "INSERT INTO pictures VALUES (1, X'\(TestPNG.hex(png))'), (2, X'00010203')")
    }
    let sql = """
      SELECT things.id, things.label AS name, '' AS description, pictures.bytes AS photo
      FROM things LEFT JOIN pictures ON pictures.thing = things.id
      """
    let source = try PossessionSource(path: path, mapping: Self.query(sql))
    let (possessions, warnings) = try source.load()
    #expect(possessions.map(\.name) == ["Bicycle", "Lamp"])
    let photo = try #require(possessions[0].photo)
    #expect(photo.format == .png && photo.width == 3 && photo.height == 2)
    #expect(try source.readPhoto(photo) == png)
    var streamed: [UInt8] = []
    try source.streamPhoto(photo, chunkSize: 7) { streamed += $0 }
    #expect(streamed == png)
    #expect(
      warnings.map(\.description) == [
        "\(path): possessions id=2: photo is not a recognized image (starts with 00 01 02 03)"
      ])
  }

  @Test("contacts through a query")
  func contacts() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("app", sql: Self.app)
    let sql = """
      SELECT id, json_extract(data, '$.name') AS name, '' AS address,
        json_extract(data, '$.phone') AS phone FROM people
      """
    let (contacts, warnings) = try ContactSource(path: path, mapping: Self.query(sql)).load()
    #expect(contacts == [Contact(id: 7, name: "Caitlin", address: "", phone: "555-0100")])
    #expect(warnings == [])
  }

  @Test("the query is part of the mapping's key")
  func key() {
    #expect(Self.query("SELECT 1").key != Self.query("SELECT 2").key)
    #expect(Self.query("SELECT 1").key != SourceMapping().key)
  }
}
