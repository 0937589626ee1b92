import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// When a rebuild may stop before rendering (the inputs are those of the last build) and when
/// it must not. Whether it stopped is read from `--report`: its `phases` are empty then.
@Suite struct RebuildTests {
  /// The `phases` of the report at `path`: empty when the build stopped before rendering.
  private func phases(_ path: String) throws -> [String: Double] {
    let data = try Data(contentsOf: URL(filePath: path))
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    return try #require(object["phases"] as? [String: Double], "no phases in \(object)")
  }

  private func page(_ path: String) -> String {
    String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
  }

  @Test("a rebuild with nothing changed still prints the warnings, and --strict still fails")
  func unchangedStillWarns() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let todos = folder + "/todo.sqlite"
    try Database.createForTesting(
      at: todos,
      sql: SafetyFixtures.todoTable
        + "INSERT INTO todo VALUES (1, 'fine', 1, 0), (42, 'odd', 7, 0);")
    // Written a minute ago, explicitly: a database modified within a tick of the clock is not
    // trusted by the next build, which then reads it (FileTimes).
    try FileTimes.settle(todos)
    let site = folder + "/site"
    let report = folder + "/report.json"
    let warning = "warning: \(todos): todo pk=42: priority 7 is not 1, 2 or 3\n"
    let arguments = ["build", "--todos", todos, "--output", site, "--report", report]
    let first = runTaskpress(arguments)
    #expect(first.status == 0)
    #expect(first.stderr == warning)
    try #require(try !phases(report).isEmpty)

    let again = runTaskpress(arguments)
    #expect(again.status == 0)
    #expect(again.stderr == warning)
    #expect(again.stdout.hasPrefix("built \(site): 0 written, "))
    #expect(again.stdout.contains(" removed, 0 photos, 1 warning in "))
    #expect(try phases(report).isEmpty, "the rebuild did not stop before rendering")
    let before = FolderSnapshot(site, includingState: true)

    let strict = runTaskpress(arguments + ["--strict"])
    #expect(strict.status == 1)
    #expect(
      strict.stderr == warning + "error: 1 warning and --strict is set; the site was not changed\n")
    #expect(strict.stdout.isEmpty)
    let changes = FolderSnapshot(site, includingState: true).differences(from: before)
    #expect(changes.isEmpty, "the failed build changed the site: \(changes)")
  }

  @Test("a rebuild with nothing changed exits, prints and reports as the build that read the data")
  func unchangedAsCold() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let todos = folder + "/todo.sqlite"
    try Database.createForTesting(
      at: todos,
      sql: SafetyFixtures.todoTable
        + "INSERT INTO todo VALUES (1, NULL, 1, 0), (2, 'odd', 7, 0), (3, 'also odd', 0, 0);")
    var earlier = timespec()
    clock_gettime(CLOCK_REALTIME, &earlier)
    earlier.tv_sec -= 10
    var times = [earlier, earlier]
    try #require(utimensat(AT_FDCWD, todos, &times, 0) == 0)
    let report = folder + "/report.json"
    /// The status, stderr and the report's warnings of a build of `todos` into `site`.
    func build(_ site: String, _ extra: [String] = [], environment: [String: String] = [:])
      throws -> (Int32, String, String)
    {
      let result = runTaskpress(
        ["build", "--todos", todos, "--output", folder + "/" + site, "--report", report] + extra,
        environment: environment)
      let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(filePath: report)))
      let warnings = try #require((object as? [String: Any])?["warningList"])
      let text = try JSONSerialization.data(withJSONObject: warnings, options: [.sortedKeys])
      return (result.status, result.stderr, String(decoding: text, as: UTF8.self))
    }
    let cold = try build("site")
    #expect(cold.0 == 0)
    #expect(cold.1.split(separator: "\n").count == 3)
    let plain = ["TASKPRESS_RENDER": "no-recorded-warnings"]
    #expect(try build("site") == cold)
    #expect(try build("site", environment: plain) == cold)
    #expect(try phases(report).isEmpty)

    let strictCold = try build("other", ["--strict"])
    #expect(strictCold.0 == 1)
    #expect(
      strictCold.1
        == cold.1 + "error: 3 warnings and --strict is set; the site was not changed\n")
    #expect(strictCold.2 == cold.2)
    #expect(try build("site", ["--strict"]) == strictCold)
    #expect(try build("site", ["--strict"], environment: plain) == strictCold)
    #expect(try build("site", ["--quiet"]) == (0, "", cold.2))
  }

  @Test("a changed template forces a real build, though the data did not change")
  func themeChange() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let todos = folder + "/todo.sqlite"
    try SafetyFixtures.todos(at: todos, count: 5)
    try FileTimes.settle(todos)  // a minute ago: the rebuild may stop early, whatever the tick
    let templates = folder + "/templates"
    try FileManager.default.createDirectory(atPath: templates, withIntermediateDirectories: true)
    let template = templates + "/todo.md"
    try Data("# {{todo.title}}.\n".utf8).write(to: URL(filePath: template))
    let site = folder + "/site"
    let report = folder + "/report.json"
    let arguments = [
      "build", "--todos", todos, "--templates", templates, "--output", site, "--report", report,
    ]
    #expect(runTaskpress(arguments).status == 0)
    #expect(page(site + "/todos/3.html").contains("<h1>task 3.</h1>"))
    #expect(runTaskpress(arguments).stdout.hasPrefix("built \(site): 0 written, "))
    try #require(try phases(report).isEmpty)

    // Same size, same modification time: only the bytes say that it changed.
    let attributes = try FileManager.default.attributesOfItem(atPath: template)
    try Data("# {{todo.title}}!\n".utf8).write(to: URL(filePath: template))
    try FileManager.default.setAttributes(
      [.modificationDate: try #require(attributes[.modificationDate])], ofItemAtPath: template)
    let changed = runTaskpress(arguments)
    #expect(changed.status == 0)
    #expect(changed.stdout.hasPrefix("built \(site): 5 written, "))
    #expect(try !phases(report).isEmpty)
    #expect(page(site + "/todos/3.html").contains("<h1>task 3!</h1>"))
  }

  @Test("a changed SOURCE_DATE_EPOCH forces a real build and dates the pages anew")
  func sourceDateEpochChange() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let todos = folder + "/todo.sqlite"
    try SafetyFixtures.todos(at: todos, count: 5)
    try FileTimes.settle(todos)  // a minute ago: the rebuild may stop early, whatever the tick
    let site = folder + "/site"
    let report = folder + "/report.json"
    let arguments = ["build", "--todos", todos, "--output", site, "--report", report]
    #expect(runTaskpress(arguments, environment: ["SOURCE_DATE_EPOCH": "0"]).status == 0)
    #expect(page(site + "/index.html").contains("1970-01-01"))
    let same = runTaskpress(arguments, environment: ["SOURCE_DATE_EPOCH": "0"])
    #expect(same.stdout.hasPrefix("built \(site): 0 written, "))
    try #require(try phases(report).isEmpty)

    let later = runTaskpress(arguments, environment: ["SOURCE_DATE_EPOCH": "86400"])
    #expect(later.status == 0)
    #expect(try !phases(report).isEmpty)
    #expect(page(site + "/index.html").contains("1970-01-02"))
    #expect(!page(site + "/index.html").contains("1970-01-01"))
  }

  @Test("a changed taskpress binary forces a real build, though its pages are the same")
  func binaryChange() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let binary = folder + "/taskpress"
    // Copied by cp, a process of its own: a descriptor this process opened to write the copy
    // could be inherited by a child another test spawns meanwhile, and the copy could not run.
    let copy = try ChildTaskpress(
      executable: "/bin/cp", arguments: [try TaskpressBinary.require(), binary], in: folder
    ).wait()
    try #require(copy.status == 0, "\(copy.stderr)")
    let todos = folder + "/todo.sqlite"
    try SafetyFixtures.todos(at: todos, count: 5)
    try FileTimes.settle(todos)  // a minute ago: the rebuild may stop early, whatever the tick
    let site = folder + "/site"
    let report = folder + "/report.json"
    func build() throws -> ChildTaskpress.Result {
      try ChildTaskpress(
        executable: binary,
        arguments: ["build", "--todos", todos, "--output", site, "--report", report], in: folder
      ).wait()
    }
    try #require(try build().status == 0)
    #expect(try build().stdout.hasPrefix("built \(site): 0 written, "))
    try #require(try phases(report).isEmpty)

    // Another build of taskpress: here the same bytes with another modification time.
    let later = Date().addingTimeInterval(60)
    try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: binary)
    let rebuilt = try build()
    #expect(rebuilt.status == 0)
    #expect(rebuilt.stdout.hasPrefix("built \(site): 0 written, "))
    #expect(try !phases(report).isEmpty, "the new binary trusted the old one's build")
  }

  @Test("a WAL database is read and left as it was: no -wal or -shm file left, same bytes")
  func walDatabaseUntouched() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let data = folder + "/data"
    try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
    let todos = data + "/todo.sqlite"
    try Database.createForTesting(
      at: todos,
      sql: "PRAGMA journal_mode=WAL;" + SafetyFixtures.todoTable
        + "INSERT INTO todo VALUES (1, 'from the WAL database', 1, 0);")
    try #require(FileManager.default.contentsOfDirectory(atPath: data) == ["todo.sqlite"])
    try age(data, by: 5)
    let before = FolderSnapshot(data)

    let result = try runBinary(
      ["build", "--todos", todos, "--output", folder + "/site"], in: folder)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(page(folder + "/site/todos/1.html").contains("from the WAL database"))
    let changes = FolderSnapshot(data).differences(from: before)
    #expect(changes.isEmpty, "the build changed the database's folder: \(changes)")
  }
}
