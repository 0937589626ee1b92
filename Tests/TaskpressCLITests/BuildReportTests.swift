import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressCLI
@testable import TaskpressKit

/// A to-do database with one row per `(pk, text, priority)`.
private func todoDatabase(_ path: String, _ rows: [(Int, String, Int)]) throws {
  let values = rows.map { "(\($0.0), '\($0.1)', \($0.2), 0)" }.joined(separator: ", ")
  try Database.createForTesting(
    at: path,
    sql: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);"
      + "INSERT INTO todo VALUES \(values);")
}

private func jsonObject(_ path: String) throws -> [String: Any] {
  let data = try #require(FileManager.default.contents(atPath: path), "no report at \(path)")
  return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

/// The report's JSON Schema, in the repository.
let reportSchemaPath = URL(filePath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .appending(path: "Docs/report.schema.json").path

@Suite struct BuildReportTests {
  @Test(
    "a report path that cannot be written is a usage error before anything is built",
    arguments: [
      (
        "missing/r.json",
        "is in a folder that does not exist ('FOLDER/missing'); create it or give another path"
      ),
      ("", "is a folder; give the path of a file, such as 'FOLDER/report.json'"),
      (
        "todo.sqlite/r.json", "is in 'FOLDER/todo.sqlite', which is not a folder; give another path"
      ),
    ])
  func unwritableReport(relative: String, problem: String) throws {
    let folder = try makeTemporaryFolder()
    try todoDatabase(folder + "/todo.sqlite", [(1, "one", 1)])
    let report = relative.isEmpty ? folder : folder + "/" + relative
    let result = runTaskpress([
      "build", "--todos", folder + "/todo.sqlite", "--output", folder + "/site", "--report", report,
    ])
    #expect(result.status == 64)
    #expect(
      result.stderr
        == "error: '--report': '\(report)' \(problem.replacingOccurrences(of: "FOLDER", with: folder))\n"
    )
    #expect(result.stdout.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: folder + "/site"))
    #expect(!FileManager.default.fileExists(atPath: folder + "/.site.taskpress"))
  }

  @Test("a bad report path in taskpress.json names the file and the key")
  func reportInConfig() throws {
    let folder = try makeTemporaryFolder()
    try todoDatabase(folder + "/todo.sqlite", [(1, "one", 1)])
    try Data(#"{"todos": "todo.sqlite", "output": "site", "report": "nowhere/r.json"}"#.utf8)
      .write(to: URL(filePath: folder + "/taskpress.json"))
    let result = runTaskpress(["build", "--config", folder + "/taskpress.json"])
    #expect(result.status == 64)
    #expect(
      result.stderr == "error: \(folder)/taskpress.json: key 'report': '\(folder)/nowhere/r.json' "
        + "is in a folder that does not exist ('\(folder)/nowhere'); create it or give another path\n"
    )
    #expect(!FileManager.default.fileExists(atPath: folder + "/site"))
  }

  @Test(
    "the report lists the version, the folders, every warning, and the paths written and removed")
  func reportContents() throws {
    let folder = try makeTemporaryFolder()
    let database = folder + "/todo.sqlite"
    try todoDatabase(database, [(1, "one", 1), (2, "two", 7)])
    let site = folder + "/site"
    let report = folder + "/report.json"
    let first = runTaskpress(["build", "--todos", database, "-o", site, "--report", report, "-q"])
    #expect(first.status == 0)
    var object = try jsonObject(report)
    #expect(object["version"] as? String == taskpressVersion)
    #expect(object["status"] as? String == "built")
    #expect(object["exitStatus"] as? Int == 0)
    #expect(object["output"] as? String == site)
    #expect(object["state"] as? String == folder + "/.site.taskpress")
    #expect(object["warnings"] as? Int == 1)
    let warnings = object["warningList"] as? [[String: String]]
    #expect(
      warnings == [
        [
          "file": database, "table": "todo", "row": "pk=2",
          "message": "priority 7 is not 1, 2 or 3",
          "text": "\(database): todo pk=2: priority 7 is not 1, 2 or 3",
        ]
      ])
    let written = object["writtenPaths"] as? [String] ?? []
    #expect(written.count == object["written"] as? Int)
    #expect(written.contains("todos/2.html") && written == written.sorted())
    #expect(object["removedPaths"] as? [String] == [])

    // One row fewer: its page is removed, the pages that list it are written again.
    try FileManager.default.removeItem(atPath: database)
    try todoDatabase(database, [(1, "one", 1)])
    let second = runTaskpress(["build", "--todos", database, "-o", site, "--report", report])
    #expect(second.status == 0)
    object = try jsonObject(report)
    // The list of other priorities goes with it.
    #expect(object["removedPaths"] as? [String] == ["priority/other/index.html", "todos/2.html"])
    #expect((object["writtenPaths"] as? [String])?.contains("index.html") == true)
    #expect(object["warningList"] as? [Any] != nil && object["warnings"] as? Int == 0)
  }

  @Test("the report written in pieces is its JSON text, byte for byte, escapes and all")
  func streamedReport() throws {
    let odd = [
      "todos/1.html", "a \"quoted\" \\ name.html", "tab\tline\nreturn\r.html",
      "\u{1}\u{1F}\u{7F}.html", "é/ü 𝄞.html", "",
    ]
    for count in [0, 1, 6, 20_000] {
      var summary = BuildSummary()
      summary.writtenPaths = PathList((0..<count).map { odd[$0 % odd.count] + "\($0)" })
      summary.removedPaths = Array(odd.prefix(count % 7))
      summary.phases = [.init("read", 0.5)]
      let report = BuildReport(
        status: .built, exitStatus: 0, output: "site \"x\"", state: nil, summary: summary,
        warnings: [BuildWarning(file: "t.sqlite", location: "todo pk=2", message: "a \"b\"")],
        error: count == 1 ? "error\n" : nil)
      var streamed: [UInt8] = []
      var pieces = 0
      report.stream {
        streamed += $0
        pieces += 1
      }
      #expect(streamed == Array(report.json.utf8), "\(count) paths")
      #expect(count < 20_000 || pieces > 1)
      let folder = try makeTemporaryFolder()
      #expect(report.write(to: folder + "/r.json") == nil)
      #expect(FileManager.default.contents(atPath: folder + "/r.json") == Data(report.json.utf8))
    }
  }

  @Test("a failing build writes its report too: the error, the warnings before it, exit status 1")
  func failingBuildReport() throws {
    let folder = try makeTemporaryFolder()
    let database = folder + "/todo.sqlite"
    try todoDatabase(database, [(1, "one", 9)])
    let report = folder + "/report.json"
    let result = runTaskpress([
      "build", "--todos", database, "-o", folder + "/site", "--strict", "--report", report,
    ])
    #expect(result.status == 1)
    let object = try jsonObject(report)
    #expect(object["status"] as? String == "failed")
    #expect(object["exitStatus"] as? Int == 1)
    #expect(object["error"] as? String == "1 warning and --strict is set; the site was not changed")
    #expect(object["warnings"] as? Int == 1)
    #expect(object["written"] as? Int == 0)
    #expect(object["writtenPaths"] as? [String] == [])
    #expect(!FileManager.default.fileExists(atPath: folder + "/site"))

    let missing = runTaskpress([
      "build", "--todos", folder + "/none.sqlite", "-o", folder + "/site", "--report", report,
    ])
    #expect(missing.status == 1)
    let error = try jsonObject(report)["error"] as? String
    #expect(error?.hasPrefix(folder + "/none.sqlite: ") == true, "\(error ?? "nil")")
  }

  @Test(
    "reports of built and failed builds match Docs/report.schema.json (check-jsonschema)",
    TestEnvironment.needs("check-jsonschema", install: "pip install check-jsonschema"))
  func reportSchema() throws {
    let tool = try Tool.require("check-jsonschema", install: "pip install check-jsonschema")
    let folder = try makeTemporaryFolder()
    let database = folder + "/todo.sqlite"
    try todoDatabase(database, [(1, "one", 1), (2, "two \"quoted\"\n", 7)])
    let built = folder + "/built.json"
    let failed = folder + "/failed.json"
    #expect(
      runTaskpress(["build", "--todos", database, "-o", folder + "/site", "--report", built])
        .status == 0)
    #expect(
      runTaskpress([
        "build", "--todos", database, "-o", folder + "/site", "--strict", "--report", failed,
      ]).status == 1)
    let check = Tool.run(tool, ["--schemafile", reportSchemaPath, built, failed])
    #expect(check.status == 0, "\(check.output)")
    // The schema can fail: a report without its version does not pass.
    var object = try jsonObject(built)
    object["version"] = nil
    try JSONSerialization.data(withJSONObject: object).write(to: URL(filePath: built))
    let bad = Tool.run(tool, ["--schemafile", reportSchemaPath, built])
    #expect(bad.status != 0)
    #expect(bad.output.contains("'version' is a required property"), "\(bad.output)")
  }

  @Test("the report counts the photos decoded: each one on a cold build, none on a rebuild")
  func reportPhotosDecoded() throws {
    let folder = try makeTemporaryFolder()
    let database = folder + "/possessions.sqlite"
    // 700 px wide and over 64 KB: published as renditions, so decoded; the third is the first's.
    let photos = [1, 2, 1].map { TestPNG.make(width: 700, height: 4, seed: $0, padding: 70_000) }
    let rows = photos.enumerated().map {
      "(\($0.offset + 1), 'thing', '', X'\(TestPNG.hex($0.element))')"
    }
    try Database.createForTesting(
      at: database,
      sql:
        "CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);"
        + "INSERT INTO possessions VALUES \(rows.joined(separator: ", "));")
    let report = folder + "/report.json"
    let build = [
      "build", "--possessions", database, "-o", folder + "/site", "--report", report, "-q",
    ]
    #expect(runTaskpress(build).status == 0)
    var object = try jsonObject(report)
    #expect(object["photos"] as? Int == 2)
    #expect(object["photosDecoded"] as? Int == 2)
    // The photos' wall time, within the build's.
    let photoSeconds = try #require(object["photoSeconds"] as? Double)
    #expect(photoSeconds > 0 && photoSeconds <= (object["seconds"] as? Double ?? 0))
    // A row renamed: every page is made again, no photo decoded.
    try Database.openWritableForTesting(at: database).execute(
      "UPDATE possessions SET name = 'renamed' WHERE id = 1")
    #expect(runTaskpress(build).status == 0)
    object = try jsonObject(report)
    #expect(object["photosDecoded"] as? Int == 0)
    #expect((object["writtenPaths"] as? [String])?.contains("possessions/1.html") == true)
  }
}

/// A program the tests run (installed by `.ci/run`), found on `PATH`.
enum Tool {
  static func find(_ name: String) -> String? { TestEnvironment.find(name) }

  /// The tool's path; without it, a failure in CI, else the test is skipped (`TestEnvironment`).
  static func require(_ name: String, install: String) throws -> String {
    try TestEnvironment.requireTool(name, install: install)
  }

  /// Runs `tool arguments`; returns its exit status and its stdout and stderr together.
  static func run(_ tool: String, _ arguments: [String], in directory: String? = nil)
    -> (status: Int32, output: String)
  {
    let process = Process()
    process.executableURL = URL(filePath: tool)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(filePath: directory) }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    do {
      try process.run()
    } catch {
      return (-1, "cannot run \(tool): \(error)")
    }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }
}
