import Foundation
import Testing

@_spi(Testing) @testable import SQLite

/// SQL the user wrote (a source's query) runs so that it can only read, one statement, under
/// a time limit.
@Suite struct UntrustedSQLTests {
  static let schema = """
    CREATE TABLE projects(id INTEGER PRIMARY KEY, name TEXT);
    CREATE TABLE tasks(id INTEGER PRIMARY KEY, project INTEGER, data TEXT);
    INSERT INTO projects VALUES (1, 'Home'), (2, 'Work');
    INSERT INTO tasks VALUES (1, 1, '{"title": "Water the plants", "prio": 3}');
    INSERT INTO tasks VALUES (2, 2, '{"title": "File the taxes", "prio": 1}');
    """

  static let limit = TimeLimit(.seconds(30), message: "stopped by the test's limit")

  /// A database made from `schema`, the folder's bytes before, and a check that they are the
  /// same after.
  final class Fixture {
    let folder: TemporaryFolder
    let path: String
    let before: [String: Data]

    init() throws {
      folder = try TemporaryFolder()
      path = folder.path("app.db")
      try Database.createForTesting(at: path, sql: UntrustedSQLTests.schema)
      before = try Self.snapshot(folder)
    }

    static func snapshot(_ folder: TemporaryFolder) throws -> [String: Data] {
      var files: [String: Data] = [:]
      for name in try folder.contents() {
        files[name] = try Data(contentsOf: URL(filePath: folder.path(name)))
      }
      return files
    }

    func expectUnchanged() throws {
      #expect(try Self.snapshot(folder) == before)
    }
  }

  @Test("a join with json_extract reads its rows")
  func readsAJoin() throws {
    let fixture = try Fixture()
    let database = try Database(path: fixture.path)
    let statement = try database.prepareUntrusted(
      """
      SELECT t.id AS pk, json_extract(t.data, '$.title') AS text, p.name AS project
      FROM tasks t JOIN projects p ON p.id = t.project ORDER BY t.id
      """, timeLimit: Self.limit)
    var rows: [String] = []
    try statement.forEachRow { row in
      rows.append(
        "\(row.int64(at: 0) ?? 0) \(row.text(at: 1)?.string ?? "") \(row.text(at: 2)?.string ?? "")"
      )
    }
    #expect(rows == ["1 Water the plants Home", "2 File the taxes Work"])
    #expect(
      (0..<statement.columnCount).map(statement.columnName(at:)) == ["pk", "text", "project"])
    try fixture.expectUnchanged()
  }

  @Test(
    "what is not one statement that reads is refused, naming what it would do",
    arguments: [
      ("DELETE FROM tasks", "may only read, but it would delete rows from 'tasks'"),
      (
        "WITH x AS (SELECT 3, 1, '{}') INSERT INTO tasks SELECT * FROM x",
        "may only read, but it would insert rows into 'tasks'"
      ),
      ("UPDATE tasks SET data = ''", "may only read, but it would update 'tasks'"),
      ("ATTACH DATABASE 'other.db' AS other", "may only read, but it would attach a database"),
      ("PRAGMA journal_mode = DELETE", "may only read, but it would run PRAGMA journal_mode"),
      ("PRAGMA writable_schema = ON", "may only read, but it would run PRAGMA writable_schema"),
      (
        "SELECT load_extension('/tmp/evil')",
        "may only read, but it would call load_extension(), which reaches outside the database"
      ),
      ("BEGIN IMMEDIATE", "may only read, but it would start or end a transaction"),
      ("CREATE TABLE t(x)", "may only read, but it would change the schema"),
      ("DROP TABLE tasks", "may only read, but it would change the schema"),
      (
        "SELECT 1; DELETE FROM tasks",
        "more than one statement: only one SELECT may be given, but more follows at line 1, column 10"
      ),
      (
        "SELECT 1;\nSELECT 2",
        "more than one statement: only one SELECT may be given, but more follows at line 1, column 10"
      ),
      ("SELECT id FORM tasks", "near \"tasks\": syntax error (at line 1, column 16)"),
      ("SELECT id,\n  nope FROM tasks", "no such column: nope (at line 2, column 3)"),
      ("-- nothing", "the SQL holds no statement"),
    ])
  func refused(sql: String, message: String) throws {
    let fixture = try Fixture()
    let database = try Database(path: fixture.path)
    let error = #expect(throws: SQLiteError.self) {
      _ = try database.prepareUntrusted(sql, timeLimit: Self.limit)
    }
    #expect(error?.message == message)
    // The connection still reads, and its own statements (a pragma) are not refused.
    #expect(try database.prepare("PRAGMA page_size").step()?.int64(at: 0) ?? 0 > 0)
    #expect(try database.prepare("SELECT count(*) FROM tasks").step()?.int64(at: 0) == 2)
    try fixture.expectUnchanged()
  }

  @Test("spaces, comments and semicolons after the statement are not a second one")
  func trailingComments() throws {
    let fixture = try Fixture()
    let database = try Database(path: fixture.path)
    let statement = try database.prepareUntrusted(
      "SELECT id FROM tasks -- the ids\n ; ; /* done */ -- end", timeLimit: Self.limit)
    #expect(statement.statementText == "SELECT id FROM tasks -- the ids")
    // Wrapped on lines of their own, the comment cannot hide the closing parenthesis.
    let wrapped = try database.prepareUntrusted(
      "SELECT count(*) FROM (\n\(statement.statementText)\n)", timeLimit: Self.limit)
    #expect(try wrapped.step()?.int64(at: 0) == 2)
  }

  @Test("a recursive query that never ends is stopped by its time limit, with its message")
  func timeLimit() throws {
    let fixture = try Fixture()
    let database = try Database(path: fixture.path)
    let endless = """
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
      SELECT i FROM n WHERE i < 0
      """
    let statement = try database.prepareUntrusted(
      endless, timeLimit: TimeLimit(.milliseconds(100), message: "the query took too long"))
    let error = #expect(throws: SQLiteError.self) { _ = try statement.step() }
    #expect(error?.message == "the query took too long")
    // The limit ends with the run: the connection's other statements run on, unlimited.
    #expect(try database.prepare("SELECT count(*) FROM tasks").step()?.int64(at: 0) == 2)
    let finite = try database.prepareUntrusted(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)"
        + " SELECT count(*) FROM n", timeLimit: Self.limit)
    #expect(try finite.step()?.int64(at: 0) == 1000)
    try fixture.expectUnchanged()
  }
}
