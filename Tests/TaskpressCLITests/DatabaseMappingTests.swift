import Foundation
@_spi(Testing) import SQLite
import Testing

/// `taskpress.json` maps another app's database onto the to-dos, possessions and contacts.
@Suite struct DatabaseMappingTests {
  static let rows = [
    (1, "Renew passport", 1, false), (2, "Call Caitlin", 2, true),
    (3, "Water the plants", 3, false),
    (4, "File the taxes", 1, true), (5, "Fix the bicycle", 7, false),
  ]

  final class Folder {
    let path: String
    init() throws {
      path =
        FileManager.default.temporaryDirectory
        .appending(path: "taskpress-mapping-tests-\(UUID().uuidString)").path
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ name: String, _ text: String) throws {
      try Data(text.utf8).write(to: URL(filePath: "\(path)/\(name)"))
    }

    /// `taskpress ARGUMENTS` run in this folder, as a user would; exit status and stderr.
    func taskpress(_ arguments: [String], sourceDateEpoch: String? = nil) throws -> (
      status: Int32, stderr: String
    ) {
      let process = Process()
      process.executableURL = URL(filePath: try TaskpressBinary.require())
      process.arguments = arguments
      process.currentDirectoryURL = URL(filePath: path)
      var environment = ProcessInfo.processInfo.environment
      environment["NO_COLOR"] = "1"
      environment["CI"] = "true"
      environment["SOURCE_DATE_EPOCH"] = sourceDateEpoch
      process.environment = environment
      let errors = Pipe()
      process.standardError = errors
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      let data = errors.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Every file under `folder` but taskpress's own state, with its bytes.
    func tree(_ folder: String) throws -> [String: Data] {
      let root = "\(path)/\(folder)"
      var files: [String: Data] = [:]
      let enumerator = FileManager.default.enumerator(atPath: root)
      while let relative = enumerator?.nextObject() as? String {
        guard !relative.hasPrefix(".taskpress") else { continue }
        var isFolder: ObjCBool = false
        // What is not there (a dangling link) is read too, and the read fails the test.
        _ = FileManager.default.fileExists(atPath: "\(root)/\(relative)", isDirectory: &isFolder)
        if !isFolder.boolValue {
          files[relative] = try Data(contentsOf: URL(filePath: "\(root)/\(relative)"))
        }
      }
      return files
    }
  }

  @Test(
    "tasks(id, title, prio, done) with done as 'true'/'false', mapped, gives the tutorial's site")
  func sameSite() throws {
    let folder = try Folder()
    var tutorial = "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text VARCHAR(25), priority INTEGER,"
    tutorial += " complete BOOLEAN);"
    var app = "CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT, prio INTEGER, done TEXT);"
    for (key, text, priority, done) in Self.rows {
      tutorial += "INSERT INTO todo VALUES (\(key), '\(text)', \(priority), \(done ? 1 : 0));"
      app += "INSERT INTO tasks VALUES (\(key), '\(text)', \(priority), '\(done)');"
    }
    try Database.createForTesting(at: "\(folder.path)/todo.sqlite", sql: tutorial)
    try Database.createForTesting(at: "\(folder.path)/app.db", sql: app)
    try folder.write(
      "taskpress.json",
      """
      {
        "todos": {"file": "app.db", "table": "tasks",
                  "columns": {"pk": "id", "text": "title", "priority": "prio", "complete": "done"}},
        "output": "mapped"
      }
      """)
    let mapped = try folder.taskpress(["build"])
    #expect(mapped.status == 0, "\(mapped.stderr)")
    #expect(mapped.stderr == "warning: app.db: tasks id=5: prio 7 is not 1, 2 or 3\n")
    let plain = try folder.taskpress(["build", "--config", "none.json", "--todos", "todo.sqlite"])
    #expect(plain.status == 64)  // a named config file must exist
    try folder.write("plain.json", "{\"todos\": \"todo.sqlite\", \"output\": \"plain\"}")
    let tutorialBuild = try folder.taskpress(["build", "--config", "plain.json"])
    #expect(tutorialBuild.status == 0, "\(tutorialBuild.stderr)")
    let expected = try folder.tree("plain")
    #expect(expected.count > 10)
    let got = try folder.tree("mapped")
    #expect(got.keys.sorted() == expected.keys.sorted())
    for (name, bytes) in expected {
      #expect(got[name] == bytes, "\(name) differs")
    }
  }

  /// The `<main>` of a page of `folder`'s site.
  static func main(_ folder: Folder, _ page: String) throws -> Substring {
    let html = try String(contentsOfFile: "\(folder.path)/site/\(page)", encoding: .utf8)
    let start = try #require(html.range(of: "<main"))
    let end = try #require(html.range(of: "</main>"))
    return html[start.lowerBound..<end.upperBound]
  }

  @Test("due dates on the index and the to-do pages; overdue marked only when the build has a date")
  func dueOnPages() throws {
    let folder = try Folder()
    try Database.createForTesting(
      at: "\(folder.path)/app.db",
      sql: """
        CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT, prio INTEGER, done TEXT, due);
        INSERT INTO tasks VALUES (1, 'Renew passport', 1, 'no', 1216990000);
        INSERT INTO tasks VALUES (2, 'Call Caitlin', 2, 'yes', '2008-07-01');
        INSERT INTO tasks VALUES (3, 'Water the plants', 3, 'no', '2008-07-25');
        INSERT INTO tasks VALUES (4, 'Fix the bicycle', 3, 'no', 'after the rain');
        INSERT INTO tasks VALUES (5, 'File the taxes', 2, 'no', NULL);
        """)
    try folder.write(
      "taskpress.json",
      """
      {"todos": {"file": "app.db", "table": "tasks",
                 "columns": {"pk": "id", "text": "title", "priority": "prio", "complete": "done",
                             "due": "due"}}}
      """)
    // 2008-07-25T12:00:00Z: to-do 1 and 3 are due that day, 2 was due before but is complete.
    let dated = try folder.taskpress(["build"], sourceDateEpoch: "1216987200")
    #expect(dated.status == 0, "\(dated.stderr)")
    #expect(try Self.main(folder, "todos/1.html").contains("<li>Due: 2008-07-25</li>"))
    #expect(try Self.main(folder, "todos/2.html").contains("<li>Due: 2008-07-01</li>"))
    #expect(try Self.main(folder, "todos/4.html").contains("<li>Due: after the rain</li>"))
    #expect(!(try Self.main(folder, "todos/5.html").contains("Due")))
    for page in ["index.html", "todos/1.html", "todos/2.html", "todos/3.html"] {
      #expect(!(try Self.main(folder, page).contains("Overdue")), "\(page)")
    }

    // A day later, the open to-dos due on the 25th are overdue; the complete one is not.
    let later = try folder.taskpress(["build"], sourceDateEpoch: "1217073600")
    #expect(later.status == 0, "\(later.stderr)")
    #expect(
      try Self.main(folder, "todos/1.html").contains(
        "<li>Due: 2008-07-25 · <strong>Overdue</strong></li>"))
    #expect(try Self.main(folder, "todos/2.html").contains("<li>Due: 2008-07-01</li>"))
    #expect(!(try Self.main(folder, "todos/4.html").contains("Overdue")))
    let index = try Self.main(folder, "index.html")
    #expect(
      index.contains(
        "Renew passport</a> <span class=\"due\">Due 2008-07-25</span> <strong class=\"overdue\">Overdue</strong></li>"
      ))
    #expect(index.contains("Call Caitlin</a> <span class=\"due\">Due 2008-07-01</span></li>"))
    #expect(index.contains("File the taxes</a></li>"))
    #expect(index.components(separatedBy: "Overdue").count == 3)

    // Without a date nothing is overdue; in Japanese the day reads as a Japanese date.
    let undated = try folder.taskpress(["build", "--locale", "ja"])
    #expect(undated.status == 0, "\(undated.stderr)")
    #expect(try Self.main(folder, "todos/1.html").contains("<li>期限: 2008年7月25日</li>"))
    #expect(!(try Self.main(folder, "index.html").contains("期限切れ")))
  }

  @Test("a filter and a due date: only the open to-dos, each data copy with its due date")
  func filterAndDue() throws {
    let folder = try Folder()
    try Database.createForTesting(
      at: "\(folder.path)/app.db",
      sql: """
        CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT, prio INTEGER, done TEXT, due);
        INSERT INTO tasks VALUES (1, 'Renew passport', 1, 'no', 1216990000);
        INSERT INTO tasks VALUES (2, 'Call Caitlin', 2, 'yes', NULL);
        INSERT INTO tasks VALUES (3, 'Water the plants', 3, 'no', NULL);
        """)
    try folder.write(
      "taskpress.json",
      """
      {"todos": {"file": "app.db", "table": "tasks", "where": "done <> 'yes'",
                 "columns": {"pk": "id", "text": "title", "priority": "prio", "complete": "done",
                             "due": "due"}}}
      """)
    let result = try folder.taskpress(["build"])
    #expect(result.status == 0, "\(result.stderr)")
    let csv = try String(contentsOfFile: "\(folder.path)/site/data/todos.csv", encoding: .utf8)
    #expect(
      csv == """
        pk,text,priority,priority_label,complete,status,due\r
        1,Renew passport,1,High,0,In Progress,2008-07-25T12:46:40Z\r
        3,Water the plants,3,Low,0,In Progress,\r

        """)
    let json = try String(contentsOfFile: "\(folder.path)/site/data/todos.json", encoding: .utf8)
    #expect(
      json.contains("\"due\":\"2008-07-25T12:46:40Z\"")
        || json.contains("\"due\": \"2008-07-25T12:46:40Z\""))
    #expect(!FileManager.default.fileExists(atPath: "\(folder.path)/site/todos/2.html"))
  }

  @Test(
    "mistakes in a mapping are usage errors with the key and a suggestion",
    arguments: [
      (
        #"{"todos": {"file": "app.db", "tabel": "tasks"}}"#,
        "error: taskpress.json:1:2: key 'todos': unknown key 'tabel'; did you mean 'table'? (the keys are 'file', 'app', 'table', 'columns', 'where', 'query', 'photo-folder', 'values', 'dates')\n"
      ),
      (
        #"{"todos": {"file": "app.db", "columns": {"titel": "title"}}}"#,
        "error: taskpress.json:1:2: key 'todos': unknown field 'titel' in \"columns\" (the fields are 'pk', 'text', 'priority', 'complete', 'due')\n"
      ),
      (
        #"{"contacts": {"file": "app.db", "columns": {"phon": "tel"}}}"#,
        "error: taskpress.json:1:2: key 'contacts': unknown field 'phon' in \"columns\"; did you mean 'phone'? (the fields are 'id', 'name', 'address', 'phone')\n"
      ),
      (
        #"{"todos": {"table": "tasks"}}"#,
        "error: taskpress.json:1:2: key 'todos': \"file\" is missing: the database to read\n"
      ),
      (
        #"{"todos": {"file": "app.db", "columns": "title"}}"#,
        "error: taskpress.json:1:2: key 'todos': \"columns\" must be an object of strings, e.g. {\"text\": \"title\"}\n"
      ),
    ])
  func mistakes(config: String, message: String) throws {
    let folder = try Folder()
    try folder.write("taskpress.json", config)
    let result = try folder.taskpress(["build"])
    #expect(result.status == 64)
    #expect(result.stderr == message)
  }

  @Test("a table not found suggests the closest name, through the build")
  func closestTable() throws {
    let folder = try Folder()
    try Database.createForTesting(
      at: "\(folder.path)/app.db", sql: "CREATE TABLE todo(pk, text, priority, complete);")
    try folder.write("taskpress.json", #"{"todos": {"file": "app.db", "table": "todos"}}"#)
    let result = try folder.taskpress(["build"])
    #expect(result.status == 1)
    #expect(
      result.stderr == """
        error: app.db: no table 'todos' (found: todo); did you mean 'todo'?

        """)
  }
}
