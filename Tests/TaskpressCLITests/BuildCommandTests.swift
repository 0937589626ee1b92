import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressCLI
@testable import TaskpressKit

/// Every file under `root` (but `.taskpress/`) with its bytes.
func tree(_ root: String) -> [String: Data] {
  var files: [String: Data] = [:]
  guard let enumerator = FileManager.default.enumerator(atPath: root) else { return files }
  while let path = enumerator.nextObject() as? String {
    if path.hasPrefix(".taskpress") { continue }
    var isFolder: ObjCBool = false
    let full = root + "/" + path
    if FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue {
      files[path] = FileManager.default.contents(atPath: full)
    }
  }
  return files
}

@Suite struct BuildCommandTests {
  @Test(
    "builds each real sample database, a page for every row",
    arguments: SampleDatabases.todoCounts.keys.sorted())
  func sampleDatabase(name: String) throws {
    let database = SampleDatabases.path(name)
    let before = try Data(contentsOf: URL(filePath: database))
    let output = try makeTemporaryFolder() + "/site"
    let result = runTaskpress(["build", "--todos", database, "--output", output, "--quiet"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
    let pages = tree(output).keys.filter { $0.hasPrefix("todos/") }
    #expect(pages.count == SampleDatabases.todoCounts[name])
    #expect(try Data(contentsOf: URL(filePath: database)) == before)
  }

  @Test("a todo table without priority exits 1 naming file, table and column; input unchanged")
  func missingPriority() throws {
    let folder = try makeTemporaryFolder()
    let database = folder + "/todo.sqlite"
    try Database.createForTesting(
      at: database,
      sql: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, complete BOOLEAN);"
        + "INSERT INTO todo VALUES (1, 'a', 0);")
    let before = try Data(contentsOf: URL(filePath: database))
    let result = runTaskpress(["build", "--todos", database, "--output", folder + "/site"])
    #expect(result.status == 1)
    #expect(
      result.stderr == """
        error: \(database): table 'todo' has no column 'priority' (found: pk, text, complete)

        """)
    #expect(try Data(contentsOf: URL(filePath: database)) == before)
    #expect(!FileManager.default.fileExists(atPath: folder + "/site"))
  }

  @Test(
    "files that are not usable databases exit 1 with a message naming the file",
    arguments: [
      ("empty.sqlite", Data(), "file is empty, not a SQLite database"),
      ("notes.txt", Data("remember the milk\n".utf8), "not a SQLite database"),
      (
        "garbage.sqlite",
        Data("SQLite format 3\u{0}".utf8) + Data(repeating: 0xA5, count: 4080),
        "not a SQLite database"
      ),
    ])
  func unusableFiles(name: String, contents: Data, message: String) throws {
    let folder = try makeTemporaryFolder()
    let path = folder + "/" + name
    try contents.write(to: URL(filePath: path))
    let result = runTaskpress(["build", "--todos", path, "--output", folder + "/site"])
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "error: \(path): \(message)\n")
    #expect(try Data(contentsOf: URL(filePath: path)) == contents)
  }

  @Test("a truncated database exits 1 naming the file")
  func truncated() throws {
    let folder = try makeTemporaryFolder()
    let path = folder + "/todo.sqlite"
    var sql =
      "BEGIN; CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);"
    for pk in 1...400 {
      sql += "INSERT INTO todo VALUES (\(pk), '\(String(repeating: "x", count: 100))', 1, 0);"
    }
    sql += "COMMIT;"
    try Database.createForTesting(at: path, sql: sql)
    let whole = try Data(contentsOf: URL(filePath: path))
    for length in [100, 1024, 4096 + 512, whole.count / 2] {
      try whole.prefix(length).write(to: URL(filePath: path))
      let result = runTaskpress(["build", "--todos", path, "--output", folder + "/site"])
      #expect(result.status == 1, "cut at \(length)")
      // Only the start: what SQLite says of a file cut short depends on where it was cut (a
      // header, a page, the schema); each names the file first, and says what to do after.
      #expect(result.stderr.hasPrefix("error: \(path): "), "cut at \(length): \(result.stderr)")
    }
  }

  @Test("a missing database exits 1 naming it")
  func missingDatabase() throws {
    let folder = try makeTemporaryFolder()
    let result = runTaskpress(["build", "--todos", folder + "/nope.sqlite", "--output", folder])
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "error: \(folder)/nope.sqlite: no such file\nthe site in '\(folder)' was not changed\n")
    #expect(!FileManager.default.fileExists(atPath: folder + "/nope.sqlite"))
  }

  @Test("a database locked by a writer exits 1 with a message naming the file")
  func locked() throws {
    let folder = try makeTemporaryFolder()
    let path = folder + "/todo.sqlite"
    try Database.createForTesting(
      at: path,
      sql: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);")
    let writer = try Database.openWritableForTesting(at: path)
    try writer.execute("BEGIN EXCLUSIVE; INSERT INTO todo VALUES (1, 'x', 1, 0);")
    defer { try? writer.execute("ROLLBACK") }
    let io = CapturedIO(environment: [:], currentDirectory: folder)
    let status = BuildCommand.run(
      try Command.parseArguments(
        ["--todos", path, "--output", folder + "/site"], for: Specs.build),
      io: io, interrupt: InterruptFlag(), busyTimeout: .milliseconds(50))
    #expect(status == 1)
    #expect(
      io.stderr
        == "error: \(path): database is locked (another program is writing to it; try again when it"
        + " finishes)\n")
  }

  @Test("warnings go to stderr naming file and row; --strict makes them fatal")
  func warningsAndStrict() throws {
    let folder = try makeTemporaryFolder()
    let path = folder + "/todo.sqlite"
    try Database.createForTesting(
      at: path,
      sql: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);"
        + "INSERT INTO todo VALUES (42, 'odd', 7, 0);")
    let result = runTaskpress(["build", "--todos", path, "--output", folder + "/site"])
    #expect(result.status == 0)
    #expect(result.stderr == "warning: \(path): todo pk=42: priority 7 is not 1, 2 or 3\n")
    #expect(result.stdout.hasPrefix("built \(folder)/site: "))
    #expect(result.stdout.contains(", 1 warning in "))

    let strict = runTaskpress(
      ["build", "--todos", path, "--output", folder + "/strict", "--strict"])
    #expect(strict.status == 1)
    #expect(
      strict.stderr == """
        warning: \(path): todo pk=42: priority 7 is not 1, 2 or 3
        error: 1 warning and --strict is set; the site was not changed

        """)
    #expect(!FileManager.default.fileExists(atPath: folder + "/strict"))
  }

  @Test("sources are read side by side, but errors and warnings come in the order of the sources")
  func sourceOrder() throws {
    let folder = try makeTemporaryFolder()
    let todos = folder + "/todo.sqlite"
    try Database.createForTesting(
      at: todos,
      sql: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);"
        + "INSERT INTO todo VALUES (1, 'one', 7, 0);")
    let contacts = folder + "/contacts.sqlite"
    try Database.createForTesting(
      at: contacts,
      sql: "CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT, address TEXT, phone TEXT);"
        + "INSERT INTO contacts VALUES (1, NULL, 'a', 'b');")
    let built = runTaskpress([
      "build", "--todos", todos, "--contacts", contacts, "--output", folder + "/site",
    ])
    #expect(built.status == 0)
    let lines = built.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
    #expect(lines.count == 2)
    #expect(lines.first?.contains("todo.sqlite: todo pk=1") == true)
    #expect(lines.last?.contains("contacts.sqlite") == true)

    // Both sources missing: the to-dos' error is the one reported, as they come first.
    let failed = runTaskpress([
      "build", "--todos", folder + "/no-todos.sqlite", "--possessions", folder + "/no-p.sqlite",
      "--output", folder + "/other",
    ])
    #expect(failed.status == 1)
    #expect(
      failed.stderr == """
        error: \(folder)/no-todos.sqlite: no such file

        """)
    #expect(!FileManager.default.fileExists(atPath: folder + "/other"))
  }

  @Test("--report writes the summary as JSON; --quiet prints nothing")
  func reportAndQuiet() throws {
    let folder = try makeTemporaryFolder()
    let path = folder + "/todo.sqlite"
    try Database.createForTesting(
      at: path,
      sql: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);"
        + "INSERT INTO todo VALUES (1, 'one', 1, 0);")
    let result = runTaskpress([
      "build", "--todos", path, "--output", folder + "/site", "--quiet",
      "--report", folder + "/report.json",
    ])
    #expect(result.status == 0)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.isEmpty)
    let report = try String(contentsOfFile: folder + "/report.json", encoding: .utf8)
    // index, board, the to-do, 404, changes.html, flow.html, report.html, and five lists (two
    // statuses; High, Medium, Low), and the other files (assets, assets/flow.js among them, data
    // copies, feeds, data/flow.json, the search's index and shard).
    #expect(report.contains("\"written\": 27,"))
    #expect(report.contains("\"pages\": 12,"))
    // The phases end in order, within the build's time.
    let object = try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any]
    let phases = object?["phases"] as? [String: Double] ?? [:]
    #expect(phases.keys.sorted() == ["commit", "read", "render"])
    let seconds = object?["seconds"] as? Double ?? -1
    let ends = ["read", "render", "commit"].map { phases[$0] ?? -1 }
    #expect(ends[0] >= 0 && ends[0] <= ends[1] && ends[1] <= ends[2] && ends[2] <= seconds)
    let again = runTaskpress([
      "build", "--todos", path, "--output", folder + "/site", "--report", folder + "/report.json",
    ])
    #expect(again.stdout.contains(": 0 written, 27 unchanged, 0 removed"))
  }
}
