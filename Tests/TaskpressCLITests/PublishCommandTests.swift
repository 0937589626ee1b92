import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressCLI
@testable import TaskpressKit

/// A folder with a to-do database and a site built from it.
private func builtSite() throws -> String {
  let folder = try makeTemporaryFolder()
  try Database.createForTesting(
    at: folder + "/todo.sqlite",
    sql: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);"
      + "INSERT INTO todo VALUES (1, 'water plants 12', 1, 0), (2, 'buy milk', 2, 1),"
      + " (3, 'call mum', 3, 0);")
  let result = runTaskpress(
    [
      "build", "--todos", folder + "/todo.sqlite", "--output", folder + "/site", "--quiet",
      "--date", "2026-12-01",
    ])
  #expect(result.status == 0, "\(result.stderr)")
  return folder
}

/// Replaces the to-do database with one of `values`.
private func replaceTodos(_ folder: String, _ values: String) throws {
  try FileManager.default.removeItem(atPath: folder + "/todo.sqlite")
  try Database.createForTesting(
    at: folder + "/todo.sqlite",
    sql: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);"
      + "INSERT INTO todo VALUES \(values);")
}

/// Every file under `folder`, with its bytes.
private func publishedTree(_ folder: String) -> [String: Data] {
  var files: [String: Data] = [:]
  let enumerator = FileManager.default.enumerator(atPath: folder)
  while let path = enumerator?.nextObject() as? String {
    var isFolder: ObjCBool = false
    _ = FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder)
    if !isFolder.boolValue {
      files[path] = FileManager.default.contents(atPath: folder + "/" + path)
    }
  }
  return files
}

private func report(_ path: String) throws -> [String: Any] {
  let data = try #require(FileManager.default.contents(atPath: path), "no report at \(path)")
  return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

/// The environment of the tests' publishes: rclone from PATH, an empty rclone config.
private func environment(_ folder: String) -> [String: String] {
  _ = FileManager.default.createFile(atPath: folder + "/rclone.conf", contents: Data())
  return [
    "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
    "RCLONE_CONFIG": folder + "/rclone.conf",
  ]
}

@Suite struct PublishParsingTests {
  @Test("publish takes a destination, repeated --rclone-flag, --dry-run and --host")
  func parses() throws {
    let command = try Command.parse([
      "publish", "s3:bucket/site", "--rclone-flag", "--transfers=8", "--rclone-flag=-v",
      "--dry-run", "--host", "netlify", "-o", "public",
    ])
    guard case .publish(let parsed) = command else {
      Issue.record("not a publish: \(command)")
      return
    }
    #expect(parsed.positionals == ["s3:bucket/site"])
    #expect(parsed.repeated["rclone-flag"] == ["--transfers=8", "-v"])
    let settings = try PublishCommand.settings(
      parsed, io: CapturedIO(environment: [:], currentDirectory: try makeTemporaryFolder()))
    #expect(settings.destination == "s3:bucket/site" && settings.output == "public")
    #expect(settings.rcloneFlags == ["--transfers=8", "-v"] && settings.dryRun)
    #expect(settings.host?.name == "netlify")
  }

  @Test(
    "bad publish arguments are usage errors that say what to do",
    arguments: [
      (
        ["publish"],
        "error: no destination: give one, e.g. 'taskpress publish myremote:bucket/site' (an rclone"
          + " remote and path; see 'rclone config'), or set \"publish\": {\"destination\": ...}"
          + " in taskpress.json\n"
      ),
      (
        ["publish", "r:", "--host", "netlfy"],
        "error: '--host': unknown host 'netlfy'; did you mean 'netlify'?\n"
      ),
    ])
  func usageErrors(arguments: [String], message: String) throws {
    let folder = try makeTemporaryFolder()
    let result = runTaskpress(arguments, in: folder)
    #expect(result.status == 64)
    #expect(result.stderr == message)
  }

  @Test("taskpress.json's publish object gives the destination and flags; its mistakes are named")
  func configuration() throws {
    let folder = try makeTemporaryFolder()
    let config = folder + "/taskpress.json"
    try Data(
      #"{"output": "out", "publish": {"destination": "dav:site", "rclone-flags": ["-v"]}}"#.utf8
    ).write(to: URL(filePath: config))
    let parsed = try Command.parseArguments(["--config", config], for: Specs.publish)
    let settings = try PublishCommand.settings(
      parsed, io: CapturedIO(environment: [:], currentDirectory: folder))
    #expect(settings.destination == "dav:site" && settings.rcloneFlags == ["-v"])
    #expect(settings.output == folder + "/out")

    try Data(#"{"publish": {"destination": "dav:", "flags": []}}"#.utf8).write(
      to: URL(filePath: config))
    let result = runTaskpress(["publish", "--config", config], in: folder)
    #expect(result.status == 64)
    #expect(
      result.stderr
        == "error: \(config):1:37: unknown key 'publish.flags'; the keys are 'destination',"
        + " 'rclone-flags', 'host'\n")
    // A build reads the same file: the object's form is checked there too.
    try Data(#"{"todos": "t.sqlite", "publish": "dav:"}"#.utf8).write(to: URL(filePath: config))
    let build = runTaskpress(["build", "--config", config], in: folder)
    #expect(build.status == 64)
    #expect(build.stderr.contains("key 'publish': expected an object"))
  }
}

@Suite struct PublishCommandTests {
  @Test(
    "publishing to a folder through rclone: all, then only what the build wrote, deletions last")
  func publishesChanges() throws {
    let folder = try builtSite()
    let env = environment(folder)
    let destination = folder + "/dest"
    var result = runTaskpress(
      ["publish", "-o", folder + "/site", destination, "--report", folder + "/p.json"],
      environment: env)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(publishedTree(destination) == publishedTree(folder + "/site"))
    var published = try report(folder + "/p.json")
    #expect(published["uploaded"] as? Int == publishedTree(folder + "/site").count)
    #expect(published["status"] as? String == "published")

    // A same-size edit (two digits swapped) and a removed row.
    try replaceTodos(folder, "(1, 'water plants 21', 1, 0), (2, 'buy milk', 2, 1)")
    let build = runTaskpress(
      [
        "build", "--todos", folder + "/todo.sqlite", "--output", folder + "/site", "--quiet",
        "--date", "2026-12-01", "--report", folder + "/b.json",
      ])
    #expect(build.status == 0, "\(build.stderr)")
    let built = try report(folder + "/b.json")

    result = runTaskpress(
      ["publish", "-o", folder + "/site", destination, "--dry-run"], environment: env)
    #expect(result.status == 0)
    #expect(result.stdout.contains("delete files no longer built: 1 files: todos/3.html"))
    #expect(result.stdout.hasSuffix("(dry run: nothing was uploaded)\n"))
    #expect(publishedTree(destination) != publishedTree(folder + "/site"))

    result = runTaskpress(
      ["publish", "-o", folder + "/site", destination, "--report", folder + "/p.json"],
      environment: env)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(publishedTree(destination) == publishedTree(folder + "/site"))
    published = try report(folder + "/p.json")
    #expect(
      Set(published["uploadedPaths"] as? [String] ?? [])
        == Set(built["writtenPaths"] as? [String] ?? ["?"]))
    #expect(published["deletedPaths"] as? [String] == ["todos/3.html"])
    let steps = published["steps"] as? [[String: Any]] ?? []
    #expect(steps.last?["key"] as? String == "delete")

    // Nothing changed: nothing sent.
    result = runTaskpress(["publish", "-o", folder + "/site", destination], environment: env)
    #expect(result.stdout.contains(": 0 uploaded (0 bytes), 0 deleted,"))
  }

  @Test("--full lists the destination: equal files are matched by hash, others' files kept")
  func fullListing() throws {
    let folder = try builtSite()
    let env = environment(folder)
    let destination = folder + "/dest"
    #expect(
      runTaskpress(["publish", "-o", folder + "/site", destination], environment: env).status == 0)
    try Data("mine".utf8).write(to: URL(filePath: destination + "/CNAME"))
    try Data("tampered".utf8).write(to: URL(filePath: destination + "/index.html"))
    let result = runTaskpress(
      ["publish", "-o", folder + "/site", destination, "--full", "--report", folder + "/p.json"],
      environment: env)
    #expect(result.status == 0, "\(result.stderr)")
    let published = try report(folder + "/p.json")
    #expect(published["uploadedPaths"] as? [String] == ["index.html"])
    #expect(FileManager.default.contents(atPath: destination + "/CNAME") == Data("mine".utf8))
    var expected = publishedTree(folder + "/site")
    expected["CNAME"] = Data("mine".utf8)
    #expect(publishedTree(destination) == expected)
  }

  @Test("--full still deletes what taskpress published there and the site no longer has")
  func fullDeletes() throws {
    let folder = try builtSite()
    let env = environment(folder)
    let destination = folder + "/dest"
    #expect(
      runTaskpress(["publish", "-o", folder + "/site", destination], environment: env).status == 0)
    try replaceTodos(folder, "(1, 'water plants 12', 1, 0), (2, 'buy milk', 2, 1)")
    let build = runTaskpress(
      [
        "build", "--todos", folder + "/todo.sqlite", "--output", folder + "/site", "--quiet",
        "--date", "2026-12-01",
      ])
    #expect(build.status == 0, "\(build.stderr)")
    let result = runTaskpress(
      ["publish", "-o", folder + "/site", destination, "--full", "--report", folder + "/p.json"],
      environment: env)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try report(folder + "/p.json")["deletedPaths"] as? [String] == ["todos/3.html"])
    #expect(publishedTree(destination) == publishedTree(folder + "/site"))
  }

  @Test("build --host: the demo-sized site passes every host; an unknown host is a usage error")
  func buildHost() throws {
    let folder = try builtSite()
    for host in HostLimits.names {
      let result = runTaskpress(
        [
          "build", "--todos", folder + "/todo.sqlite", "--output", folder + "/site", "--date",
          "2026-12-01", "--host", host, "--strict",
        ])
      #expect(result.status == 0 && !result.stderr.contains("warning"), "\(host): \(result.stderr)")
    }
    let result = runTaskpress(
      ["build", "--todos", folder + "/todo.sqlite", "--output", folder + "/site", "--host", "nope"])
    #expect(result.status == 64)
    #expect(
      result.stderr.hasPrefix(
        "error: '--host': unknown host 'nope'; the hosts are 'github-pages', 'gitlab-pages',"))
  }

  @Test(
    "a step line on a terminal, cleared at the end; none under CI",
    arguments: [(String?.none, true), ("true", false)])
  func progressLine(ci: String?, shown: Bool) throws {
    let folder = try builtSite()
    _ = FileManager.default.createFile(atPath: folder + "/rclone.conf", contents: Data())
    let result = try runBinary(
      ["publish", "-o", folder + "/site", folder + "/dest"], in: folder,
      environment: ["CI": ci, "TERM": "xterm", "RCLONE_CONFIG": folder + "/rclone.conf"],
      terminal: true)
    #expect(result.status == 0, "\(result.stderr)")
    let steps = result.stderr.matches(of: /\r\u{1B}\[2Kpublishing: step (\d)\/4,/).map {
      String($0.output.1)
    }
    if shown {
      #expect(steps == ["1", "2", "3", "4"], "\(result.stderr.debugDescription)")
      #expect(result.stderr.hasSuffix("\r\u{1B}[2K"), "the line is not cleared")
    } else {
      #expect(result.stderr.isEmpty, "\(result.stderr.debugDescription)")
    }
  }

  @Test("rclone missing, a remote not configured: exit 69 and 78, the report says why")
  func failures() throws {
    let folder = try builtSite()
    var result = runTaskpress(
      ["publish", "-o", folder + "/site", "dav:", "--report", folder + "/p.json"],
      environment: ["PATH": "/nonexistent"])
    #expect(result.status == 69)
    #expect(result.stderr.hasPrefix("error: rclone is not installed"))
    #expect(try report(folder + "/p.json")["exitStatus"] as? Int == 69)

    result = runTaskpress(
      ["publish", "-o", folder + "/site", "nosuch:site"], environment: environment(folder))
    #expect(result.status == 78)
    #expect(
      result.stderr.hasPrefix(
        "error: 'nosuch:site': rclone has no remote named 'nosuch'; set it up with 'rclone config'")
    )
    #expect(result.stderr.hasSuffix("; nothing was uploaded\n"))

    result = runTaskpress(
      ["publish", "-o", folder + "/nothing", folder + "/dest"], environment: environment(folder))
    #expect(result.status == 1)
    #expect(result.stderr.contains("no such folder; build the site first"))
  }

  @Test(
    "rclone's messages are read as the failure they are",
    arguments: [
      (
        "2026/12/05 Failed to create file system for \"x:\": didn't find section in config file",
        "notConfigured"
      ),
      ("ERROR : couldn't list files: Unauthorized: 401 Unauthorized", "authentication"),
      ("ERROR : AccessDenied: Access Denied status code: 403", "authentication"),
      ("ssh: handshake failed: ssh: unable to authenticate", "authentication"),
      ("dial tcp 127.0.0.1:1: connect: connection refused", "unreachable"),
      ("dial tcp: lookup nowhere.invalid: no such host", "unreachable"),
      ("ERROR : todos/1.html: Failed to copy: disk full", "failed"),
    ])
  func classifies(message: String, kind: String) {
    let found: String
    switch RcloneFailure.classify(message) {
    case .notConfigured: found = "notConfigured"
    case .authentication: found = "authentication"
    case .unreachable: found = "unreachable"
    case .failed: found = "failed"
    }
    #expect(found == kind)
  }
}
