import Foundation
@_spi(Testing) import SQLite
import Synchronization
import TestFixtures
import Testing

@testable import TaskpressCLI
@testable import TaskpressKit

/// `--previous`, `--date` and `--history-limit` on the command line, and the feed read by a
/// real feed parser.
@Suite struct ChangesCommandTests {
  static let schema =
    "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN);"
    + "INSERT INTO todo VALUES (1, 'water the plants', 1, 0), (2, 'old', 2, 0);"

  @Test(
    "a bad --previous, --date or --history-limit is a usage error naming it, for build and serve",
    arguments: [
      (
        ["--previous", "/nonexistent/last-site"],
        "error: '--previous': no folder '/nonexistent/last-site'; give a copy of the last "
          + "published site, or leave the option out to compare with the site in the output "
          + "folder\n"
      ),
      (
        ["--date", "2026-12-01T08:30"],
        "error: '--date': invalid value '2026-12-01T08:30': expected an ISO 8601 date "
          + "(2026-12-01) or date-time with a zone (2026-12-01T08:30:00Z)\n"
      ),
      (
        ["--history-limit", "0"],
        "error: '--history-limit': invalid value '0': expected a whole number, 1 or more\n"
      ),
    ])
  func usageErrors(arguments: [String], message: String) throws {
    let folder = try makeTemporaryFolder()
    for command in ["build", "serve"] {
      let result = runTaskpress(
        [command, "--todos", folder + "/t.sqlite", "--output", folder + "/site"] + arguments
          + (command == "serve" ? ["--port", "0"] : []))
      #expect(result.status == 64, "\(command)")
      #expect(result.stderr.hasPrefix(message), "\(command): \(result.stderr)")
    }
    #expect(!FileManager.default.fileExists(atPath: folder + "/site"))
  }

  @Test(
    "feed.xml reads in feedparser without an error, with what RFC 4287 requires",
    .enabled(
      if: ChangesCommandTests.hasFeedparser || TestEnvironment.isCI,
      "'feedparser' is not installed (pip install feedparser): skipped outside CI"))
  func feedparser() throws {
    let folder = try makeTemporaryFolder()
    let check = URL(filePath: #filePath).deletingLastPathComponent()
      .appending(path: "../../Scripts/check-feed").standardized.path
    for baseURL in [[], ["--base-url", "https://example.org/reports/"]] {
      let output = folder + "/site\(baseURL.count)"
      let database = folder + "/todo\(baseURL.count).sqlite"
      try Database.createForTesting(at: database, sql: Self.schema)
      let build = ["build", "--quiet", "--todos", database, "--output", output] + baseURL
      #expect(runTaskpress(build + ["--date", "2026-11-30"]).status == 0)
      let connection = try Database.openWritableForTesting(at: database)
      try connection.execute(
        "UPDATE todo SET complete = 1 WHERE pk = 1; DELETE FROM todo WHERE pk = 2;"
          + "INSERT INTO todo VALUES (3, 'a <b>bold</b> & \u{1} control', 3, 0);")
      #expect(runTaskpress(build + ["--date", "2026-12-01T06:00:00+01:00"]).status == 0)
      try connection.execute("UPDATE todo SET priority = 2 WHERE pk = 3;")
      #expect(runTaskpress(build + ["--date", "2026-12-02"]).status == 0)
      try connection.execute("UPDATE todo SET text = 'x' WHERE pk = 3;")
      let python = try Tool.require("python3", install: "apt-get install python3")
      let result = Tool.run(python, [check, output + "/feed.xml", "2"])
      #expect(result.status == 0, "\(result.output)")
      #expect(result.output.hasPrefix("\(output)/feed.xml: ok, 2 entries, id "))
    }
  }

  static let hasFeedparser: Bool = {
    Tool.find("python3").map { Tool.run($0, ["-c", "import feedparser"]).status == 0 } ?? false
  }()

  @Test("serve with --previous builds and serves the changes since that copy")
  func serveWithPrevious() throws {
    let folder = try makeTemporaryFolder()
    let database = folder + "/todo.sqlite"
    try Database.createForTesting(at: database, sql: Self.schema)
    #expect(
      runTaskpress(["build", "--quiet", "--todos", database, "--output", folder + "/last"])
        .status == 0)
    let connection = try Database.openWritableForTesting(at: database)
    try connection.execute("UPDATE todo SET complete = 1 WHERE pk = 1;")
    let io = CapturedIO(environment: [:], currentDirectory: folder)
    let interrupt = InterruptFlag()
    let parsed = try Command.parseArguments(
      [
        "--todos", database, "--output", folder + "/site", "--previous", folder + "/last",
        "--date", "2026-12-01", "--port", "0",
      ], for: Specs.serve)
    let status = Mutex<Int32?>(nil)
    let thread = Thread {
      status.withLock { $0 = ServeCommand.run(parsed, io: io, interrupt: interrupt) }
    }
    thread.start()
    #expect(eventually { io.stdout.contains("(press Ctrl-C to stop)") }, "\(io.stderr)")
    let url = try #require(io.stdout.firstMatch(of: /at (http:\/\/127\.0\.0\.1:\d+\/)/)?.1)
    let page = try String(
      contentsOf: try #require(URL(string: url + "changes.html")), encoding: .utf8)
    #expect(page.contains("<h3>Tasks completed <span class=\"count\">1</span></h3>"))
    #expect(page.contains("<li><a href=\"todos/1.html\">water the plants</a></li>"))
    interrupt.set()
    #expect(eventually { status.withLock { $0 } != nil })
    #expect(status.withLock { $0 } == 130)
  }
}
