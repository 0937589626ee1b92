import Foundation
@_spi(Testing) import SQLite
import Synchronization
import TestFixtures
import Testing

@testable import TaskpressCLI
@testable import TaskpressKit

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite struct ServeCommandTests {
  @Test("a port that is not a number is a usage error naming the flag")
  func badPort() {
    let result = runTaskpress(["serve", "--todos", "t.sqlite", "--port", "http"])
    #expect(result.status == 64)
    #expect(
      result.stderr
        == "error: '--port': invalid value 'http': expected a whole number from 0 to 65535\n")
  }

  @Test(
    "serve checks its build options as build does, before building or listening",
    arguments: [
      (
        ["SOURCE_DATE_EPOCH": "abc"],
        "error: SOURCE_DATE_EPOCH: invalid value 'abc': expected seconds since 1970\n"
      ),
      (
        ["TASKPRESS_RENDER": "fast"],
        "error: TASKPRESS_RENDER: unknown fast path 'fast'; expected 'reference', 'all', or a"
          + " comma-separated list of NAME or of no-NAME, where NAME is one of: markdown-sharing,"
          + " specialized-templates, reused-values, text-handover, batches,"
          + " recorded-warnings, streamed-data, incremental, copy-reader, key-order-diff,"
          + " recorded-photos, early-todo-diff, carry-over, dependents, early-file-check,"
          + " recorded-copy, recorded-card, shared-photo-work, recorded-search\n"
      ),
    ])
  func checkedLikeBuild(environment: [String: String], message: String) throws {
    let folder = NSTemporaryDirectory() + "serve-checked-\(UUID().uuidString)"
    for command in ["build", "serve"] {
      let result = runTaskpress(
        [command, "--todos", "t.sqlite", "--output", folder + "/site", "--port", "0"]
          .filter { command == "serve" || ($0 != "--port" && $0 != "0") },
        environment: environment)
      #expect(result.status == 64, "\(command)")
      #expect(result.stderr == message, "\(command)")
    }
    #expect(!FileManager.default.fileExists(atPath: folder + "/site"))
  }

  @Test("serve needs a source, as build does; its help lists the server options")
  func usage() {
    let result = runTaskpress(["serve"], in: NSTemporaryDirectory())
    #expect(result.status == 64)
    #expect(
      result.stderr
        == "error: nothing to build: give --todos, --possessions or --contacts (or set them in taskpress.json)\n"
    )
    let help = runTaskpress(["help", "serve"])
    #expect(help.status == 0)
    #expect(
      help.stdout.contains(
        "  -p, --port <n>          Port to listen on; 0 picks a free one. (default: 8000)\n"))
    #expect(help.stdout.contains("  --poll "))
    #expect(help.stdout.contains("  --templates <dir> "))
    let typo = runTaskpress(["serve", "--prot", "1"])
    #expect(typo.stderr.hasPrefix("error: unknown option '--prot'; did you mean '--port'?\n"))
  }

  @Test(
    "a session: serves, rebuilds on a rename-on-save, stops with 130, site equals a build",
    arguments: [[], ["--poll"]])
  func session(watching: [String]) throws {
    let folder = try makeTemporaryFolder()
    let database = folder + "/todo.sqlite"
    try Database.createForTesting(
      at: database,
      sql:
        "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN);"
        + "INSERT INTO todo VALUES (1, 'water the plants', 1, 0);")
    let templates = folder + "/templates"
    try FileManager.default.createDirectory(atPath: templates, withIntermediateDirectories: true)
    let todo = try #require(BuiltinTheme.files["todo.md"])
    try Data(todo.utf8).write(to: URL(filePath: templates + "/todo.md"))
    let io = CapturedIO(environment: [:], currentDirectory: folder)
    let interrupt = InterruptFlag()
    let arguments = [
      "--todos", database, "--templates", templates, "--output", folder + "/site",
      "--base-url", "https://example.org/sub/",
    ]
    let parsed = try Command.parseArguments(
      arguments + ["--port", "0"] + watching, for: Specs.serve)
    let status = Mutex<Int32?>(nil)
    let thread = Thread {
      status.withLock { $0 = ServeCommand.run(parsed, io: io, interrupt: interrupt) }
    }
    thread.start()
    #expect(eventually { io.stdout.contains("(press Ctrl-C to stop)") }, "\(io.stderr)")
    #expect(io.stdout.contains(" (polling) (press Ctrl-C") == watching.contains("--poll"))
    let url = try #require(io.stdout.firstMatch(of: /at (http:\/\/127\.0\.0\.1:\d+\/sub\/)/)?.1)
    let page = try String(
      contentsOf: try #require(URL(string: url + "todos/1.html")), encoding: .utf8)
    #expect(page.contains("water the plants"))
    #expect(page.contains("<script data-taskpress-reload>"))

    let edited = todo + "\nedited by rename\n"
    try Data(edited.utf8).write(to: URL(filePath: templates + "/.todo.md.swp"))
    #expect(rename(templates + "/.todo.md.swp", templates + "/todo.md") == 0)
    #expect(eventually { io.stdout.contains("1 written") }, "\(io.stdout)")
    let after = try String(
      contentsOf: try #require(URL(string: url + "todos/1.html")), encoding: .utf8)
    #expect(after.contains("edited by rename"))

    interrupt.set()
    #expect(eventually { status.withLock { $0 } != nil })
    #expect(status.withLock { $0 } == 130)
    #expect(io.stderr.hasSuffix("stopped: the site in '\(folder)/site' is whole\n"))
    let plain = runTaskpress(
      ["build", "--quiet", "--todos", database, "--templates", templates]
        + ["--output", folder + "/plain", "--base-url", "https://example.org/sub/"])
    #expect(plain.status == 0, "\(plain.stderr)")
    let served = tree(folder + "/site")
    #expect(!served.isEmpty)
    #expect(served == tree(folder + "/plain"))
    #expect(
      !served.values.contains { String(decoding: $0, as: UTF8.self).contains("taskpress-reload") })
  }
}
