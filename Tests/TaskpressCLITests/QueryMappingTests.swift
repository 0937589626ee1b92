import Foundation
@_spi(Testing) import SQLite
import Testing

/// `"query"` in `taskpress.json`: a source read through a read-only `SELECT`.
@Suite struct QueryMappingTests {
  typealias Folder = DatabaseMappingTests.Folder

  /// An app that keeps each task's fields as JSON and its projects in a table of their own;
  /// the archived project's tasks are not published.
  static let app = """
    CREATE TABLE projects(id INTEGER PRIMARY KEY, name TEXT, archived INTEGER);
    CREATE TABLE tasks(id INTEGER PRIMARY KEY, project INTEGER, data TEXT);
    INSERT INTO projects VALUES (1, 'Home', 0), (2, 'Work', 0), (3, 'Old', 1);
    INSERT INTO tasks VALUES (1, 1, '{"title": "Renew passport", "prio": 1, "done": false}');
    INSERT INTO tasks VALUES (2, 2, '{"title": "Call Caitlin", "prio": 2, "done": true}');
    INSERT INTO tasks VALUES (3, 1, '{"title": "Water the plants", "prio": 3, "done": false}');
    INSERT INTO tasks VALUES (4, 2, '{"title": "File the taxes", "prio": 1, "done": true}');
    INSERT INTO tasks VALUES (5, 1, '{"title": "Fix the bicycle", "prio": 7, "done": false}');
    INSERT INTO tasks VALUES (6, 3, '{"title": "Archived", "prio": 1, "done": false}');
    """

  static let query = """
    SELECT t.id AS pk, json_extract(t.data, '$.title') AS text,
      json_extract(t.data, '$.prio') AS priority, json_extract(t.data, '$.done') AS complete
    FROM tasks t JOIN projects p ON p.id = t.project
    WHERE NOT p.archived -- the archived project's tasks stay private
    """

  /// `taskpress.json` reading the to-dos of `data/app.db` through `query`.
  static func config(_ query: String, output: String = "site", extra: String = "") -> String {
    let encoded =
      "\""
      + query.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
      .replacing("\n", with: "\\n") + "\""
    return #"{"todos": {"file": "data/app.db", "query": \#(encoded)}, "output": "\#(output)""#
      + extra + "}"
  }

  /// A folder with `data/app.db` made from `sql`.
  static func folder(_ sql: String = app) throws -> Folder {
    let folder = try Folder()
    try FileManager.default.createDirectory(
      atPath: "\(folder.path)/data", withIntermediateDirectories: true)
    try Database.createForTesting(at: "\(folder.path)/data/app.db", sql: sql)
    return folder
  }

  @Test("a query with a join and json_extract publishes the tutorial's site for the same rows")
  func sameSite() throws {
    let folder = try Self.folder()
    var tutorial = "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text VARCHAR(25), priority INTEGER,"
    tutorial += " complete BOOLEAN);"
    for (key, text, priority, done) in DatabaseMappingTests.rows {
      tutorial += "INSERT INTO todo VALUES (\(key), '\(text)', \(priority), \(done ? 1 : 0));"
    }
    try Database.createForTesting(at: "\(folder.path)/todo.sqlite", sql: tutorial)
    try folder.write("taskpress.json", Self.config(Self.query, output: "queried"))
    let queried = try folder.taskpress(["build"])
    #expect(queried.status == 0, "\(queried.stderr)")
    #expect(queried.stderr == "warning: data/app.db: todo pk=5: priority 7 is not 1, 2 or 3\n")
    try folder.write("plain.json", #"{"todos": "todo.sqlite", "output": "plain"}"#)
    let plain = try folder.taskpress(["build", "--config", "plain.json"])
    #expect(plain.status == 0, "\(plain.stderr)")
    let expected = try folder.tree("plain")
    let got = try folder.tree("queried")
    #expect(expected.count > 10)
    #expect(got.keys.sorted() == expected.keys.sorted())
    for (name, bytes) in expected {
      #expect(got[name] == bytes, "\(name) differs")
    }
  }

  /// Every file of `folder/data` with its bytes.
  static func dataFolder(_ folder: Folder) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: "\(folder.path)/data") {
      files[name] = try Data(contentsOf: URL(filePath: "\(folder.path)/data/\(name)"))
    }
    return files
  }

  static let refusals: [(String, String)] = [
    ("DELETE FROM tasks", "may only read, but it would delete rows from 'tasks'"),
    (
      "WITH gone AS (SELECT 9, 1, '{}') INSERT INTO tasks SELECT * FROM gone",
      "may only read, but it would insert rows into 'tasks'"
    ),
    (
      "SELECT 1 AS pk; DROP TABLE tasks",
      "more than one statement: only one SELECT may be given, but more follows at line 1,"
        + " column 16"
    ),
    (
      "ATTACH DATABASE 'data/copy.db' AS copy",
      "may only read, but it would attach a database"
    ),
    ("PRAGMA journal_mode = DELETE", "may only read, but it would run PRAGMA journal_mode"),
    (
      "SELECT load_extension('data/evil') AS pk",
      "may only read, but it would call load_extension(), which reaches outside the database"
    ),
    (
      "SELECT id AS pk, title AS text FORM tasks",
      "near \"FORM\": syntax error (at line 1, column 32)"
    ),
    (
      """
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
      SELECT i AS pk, 'x' AS text, 1 AS priority, 0 AS complete FROM n WHERE i < 0
      """,
      "stopped after 1 s (--query-timeout); make it read less (an index on what it joins or"
        + " filters on helps), or give it longer with --query-timeout SECONDS"
    ),
  ]

  @Test(
    "a query that writes, attaches, runs a pragma or an extension, is two statements, or never ends: an error naming the file and the source, nothing written, the database's folder unchanged",
    arguments: refusals)
  func refused(sql: String, message: String) throws {
    let folder = try Self.folder()
    try folder.write("taskpress.json", Self.config(sql, extra: #", "query-timeout": 1"#))
    let before = try Self.dataFolder(folder)
    let result = try folder.taskpress(["build"])
    #expect(result.status == 1)
    let separator = message.hasPrefix("stopped") ? " " : ": "
    #expect(result.stderr == "error: data/app.db: the \"todos\" query\(separator)\(message)\n")
    #expect(try Self.dataFolder(folder) == before)
    #expect(!FileManager.default.fileExists(atPath: "\(folder.path)/site"))
  }

  static let usages: [([String], String, String)] = [
    (
      ["build"],
      #"{"todos": {"file": "app.db", "query": "SELECT 1", "table": "tasks", "where": "1"}}"#,
      "error: taskpress.json:1:2: key 'todos': \"query\" reads its own rows and names its own"
        + " columns: drop \"table\", \"where\", or drop \"query\" (give either a query, or a"
        + " table with columns and where)\n"
    ),
    (
      ["build"], #"{"todos": {"file": "app.db", "query": " ; "}}"#,
      "error: taskpress.json:1:2: key 'todos': \"query\" must be a non-empty string\n"
    ),
    (
      ["build", "--todos", "app.db", "--query-timeout", "0"], "{}",
      "error: '--query-timeout': invalid value '0': expected a number of seconds above 0, at"
        + " most 86400 (a day), such as '30' or '2.5'\n"
    ),
    (
      ["build", "--todos", "app.db", "--query-timeout", "ten"], "{}",
      "error: '--query-timeout': invalid value 'ten': expected a number of seconds above 0, at"
        + " most 86400 (a day), such as '30' or '2.5'\n"
    ),
    (
      ["build", "--todos", "app.db"], #"{"query-timeout": -1}"#,
      "error: taskpress.json:1:2: key 'query-timeout': invalid value '-1': expected a number of"
        + " seconds above 0, at most 86400 (a day), such as '30' or '2.5'\n"
    ),
  ]

  @Test(
    "a query beside a table, columns or where, and a bad --query-timeout, are usage errors",
    arguments: usages)
  func usage(arguments: [String], config: String, message: String) throws {
    let folder = try Folder()
    try folder.write("taskpress.json", config)
    let result = try folder.taskpress(arguments)
    #expect(result.status == 64)
    #expect(result.stderr == message)
  }

  @Test("a rebuild after an edit of the rows, and after an edit of the query, equals a cold build")
  func rebuild() throws {
    let folder = try Self.folder()
    try folder.write("taskpress.json", Self.config(Self.query))
    #expect(try folder.taskpress(["build"], sourceDateEpoch: "1780000000").status == 0)
    let edits = [
      (
        "UPDATE tasks SET data = json_set(data, '$.title', 'Renew the passport') WHERE id = 1;"
          + " UPDATE projects SET archived = 0 WHERE id = 3",
        Self.query
      ),
      ("DELETE FROM tasks WHERE id = 2", Self.query.replacing("NOT p.archived", with: "1")),
    ]
    for (index, (sql, query)) in edits.enumerated() {
      do {
        let database = try Database.openWritableForTesting(at: "\(folder.path)/data/app.db")
        try database.execute(sql)
      }
      try folder.write("taskpress.json", Self.config(query))
      // The cold twin compares with the site the rebuild replaces, as the rebuild does.
      try FileManager.default.copyItem(
        atPath: "\(folder.path)/site", toPath: "\(folder.path)/before\(index)")
      let rebuilt = try folder.taskpress(["build"], sourceDateEpoch: "1780000000")
      #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
      try folder.write("cold.json", Self.config(query, output: "cold\(index)"))
      let cold = try folder.taskpress(
        ["build", "--config", "cold.json", "--previous", "before\(index)"],
        sourceDateEpoch: "1780000000")
      #expect(cold.status == 0, "\(cold.stderr)")
      let expected = try folder.tree("cold\(index)")
      let got = try folder.tree("site")
      #expect(got.keys.sorted() == expected.keys.sorted(), "after edit \(index)")
      for (name, bytes) in expected {
        #expect(got[name] == bytes, "\(name) differs after edit \(index)")
      }
    }
    let data = try String(contentsOfFile: "\(folder.path)/site/data/todos.json", encoding: .utf8)
    #expect(data.contains("Renew the passport") && data.contains("Archived"))
  }
}
