import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressCLI
@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#endif

/// The promises of DESIGN §5 as a user sees them: what `taskpress build` prints, its exit
/// status, and what is in the output folder afterwards. Signals go to the real binary, run as a
/// child process; everything else runs the CLI in-process.
@Suite(.serialized) struct BuildSafetyTests {
  // MARK: - A failing build changes nothing

  @Test("a bad template, bad data or --strict with a warning: exit 1, the error, nothing changed")
  func failingBuildChangesNothing() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let site = folder + "/site"
    let good = folder + "/todo.sqlite"
    try SafetyFixtures.todos(at: good, count: 12)
    let first = runTaskpress(["build", "--todos", good, "--output", site, "--quiet"])
    try #require(first.status == 0, "\(first.stderr)")
    try age(site, by: 5)
    let before = FolderSnapshot(site, includingState: true)

    let templates = folder + "/templates"
    try FileManager.default.createDirectory(atPath: templates, withIntermediateDirectories: true)
    try Data("# {{text}}\n\n{{#items}}\n- {{.}}\n".utf8)
      .write(to: URL(filePath: templates + "/todo.md"))
    let noPriority = folder + "/no-priority.sqlite"
    try Database.createForTesting(
      at: noPriority,
      sql: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, complete BOOLEAN);"
        + "INSERT INTO todo VALUES (1, 'a', 0);")
    let odd = folder + "/odd.sqlite"
    try Database.createForTesting(
      at: odd, sql: SafetyFixtures.todoTable + "INSERT INTO todo VALUES (42, 'odd', 7, 0);")

    // Photos are staged while the to-dos are read: a build that fails after that leaves none.
    let photos = folder + "/photos.sqlite"
    try Database.createForTesting(
      at: photos,
      sql: "CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo);"
        + "INSERT INTO possessions VALUES "
        + (1...300).map { "(\($0), 'P\($0)', '', X'\(TestPNG.hex(TestPNG.make(seed: $0)))')" }
        .joined(separator: ", ") + ";")

    let notChanged = "the site in '\(site)' was not changed\n"
    let cases: [(name: String, arguments: [String], stderr: String)] = [
      (
        "a section never closed", ["--todos", good, "--templates", templates],
        "error: \(templates)/todo.md:3:1: section 'items' is never closed\n" + notChanged
      ),
      (
        "a todo table without priority", ["--todos", noPriority],
        "error: \(noPriority): table 'todo' has no column 'priority' (found: pk, text, complete)\n"
          + notChanged
      ),
      (
        "--strict with a warning", ["--todos", odd, "--strict"],
        "warning: \(odd): todo pk=42: priority 7 is not 1, 2 or 3\n"
          + "error: 1 warning and --strict is set; the site was not changed\n"
      ),
      (
        "photos, and a todo table without priority",
        ["--todos", noPriority, "--possessions", photos],
        "error: \(noPriority): table 'todo' has no column 'priority' (found: pk, text, complete)\n"
          + notChanged
      ),
      (
        "photos, and --strict with a warning",
        ["--todos", odd, "--possessions", photos, "--strict"],
        "warning: \(odd): todo pk=42: priority 7 is not 1, 2 or 3\n"
          + "error: 1 warning and --strict is set; the site was not changed\n"
      ),
    ]
    for (name, arguments, stderr) in cases {
      let result = runTaskpress(["build", "--output", site] + arguments)
      #expect(result.status == 1, "\(name)")
      #expect(result.stderr == stderr, "\(name)")
      #expect(result.stdout.isEmpty, "\(name)")
      let changes = FolderSnapshot(site, includingState: true).differences(from: before)
      #expect(changes.isEmpty, "\(name) changed the site: \(changes)")
    }
  }

  // MARK: - Signals

  @Test(
    "SIGINT or SIGTERM while rendering: exit 128 + signal, the site as it was, staging removed",
    arguments: [
      (SIGINT, Int32(130), false), (SIGTERM, Int32(143), false),
      // A parent may start taskpress with both blocked (Foundation's Process run from a
      // Dispatch worker does): taskpress unblocks what it handles.
      (SIGTERM, Int32(143), true),
    ])
  func signalWhileRendering(signal: Int32, status: Int32, blocked: Bool) throws {
    var count = 6000
    for _ in 1...3 {
      let folder = try makeTemporaryFolder()
      defer { try? FileManager.default.removeItem(atPath: folder) }
      let site = folder + "/site"
      let small = folder + "/small.sqlite"
      try SafetyFixtures.todos(at: small, count: 20, text: "small")
      let first = runTaskpress(["build", "--todos", small, "--output", site, "--quiet"])
      try #require(first.status == 0, "\(first.stderr)")
      let before = FolderSnapshot(site)
      let manifest = FileManager.default.contents(atPath: stateFolder(site) + "/manifest")
      let big = folder + "/big.sqlite"
      try SafetyFixtures.todos(at: big, count: count, text: "big")

      // Staged files mean rendering is under way and the site has not been touched yet.
      let staging = stateFolder(site) + "/staging"
      let (result, signalled) = try buildAndSignal(
        ["build", "--todos", big, "--output", site], in: folder, signal: signal,
        blocking: blocked ? [SIGINT, SIGTERM] : [], watching: [stateFolder(site)]
      ) { watch in
        guard access(staging, F_OK) == 0 else { return false }
        watch(staging)
        return hasEntries(staging)
      }
      // A build that ended, or reached its commit (and then finished writing), before the
      // signal came says nothing: try a longer one. A signal that was lost fails below.
      if !signalled || (result.status == status && result.stdout.hasPrefix("built ")) {
        count *= 4
        continue
      }
      #expect(!result.killed)
      #expect(result.status == status)
      #expect(result.stderr == "interrupted: the site in '\(site)' was left as it was\n")
      #expect(result.stdout.isEmpty)
      let changes = FolderSnapshot(site).differences(from: before)
      #expect(changes.isEmpty, "the interrupted build changed the site: \(changes)")
      #expect(access(staging, F_OK) != 0, "the staging folder is left behind")
      #expect(FileManager.default.contents(atPath: stateFolder(site) + "/manifest") == manifest)
      #expect(access(stateFolder(site) + "/commit-in-progress", F_OK) != 0)

      let again = runTaskpress(["build", "--todos", small, "--output", site])
      #expect(again.status == 0)
      #expect(again.stderr.isEmpty)
      #expect(again.stdout.hasPrefix("built \(site): 0 written, "))
      return
    }
    Issue.record("every build was written before the signal came, up to \(count / 4) to-dos")
  }

  @Test("SIGINT while the databases are read: exit 130, the site as it was, nothing staged")
  func signalWhileReading() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let site = folder + "/site"
    let todos = folder + "/todo.sqlite"
    try SafetyFixtures.todos(at: todos, count: 200)
    let first = runTaskpress(["build", "--todos", todos, "--output", site, "--quiet"])
    try #require(first.status == 0, "\(first.stderr)")
    let before = FolderSnapshot(site, includingState: true)
    // A writer's exclusive lock holds the build in its read phase (SQLite waits for it) until
    // this test has sent the signal; the to-dos are not changed.
    let writer = try Database.openWritableForTesting(at: todos)
    try writer.execute("BEGIN EXCLUSIVE; UPDATE todo SET text = text WHERE pk = 1;")
    var locked = true
    defer { if locked { try? writer.execute("ROLLBACK") } }

    // Another page size: a real build, not a rebuild that stops before rendering.
    let child = try ChildTaskpress(
      ["build", "--todos", todos, "--page-size", "50", "--output", site], in: folder)
    let reading = try child.wait(watching: [folder]) { _ in opens(child.pid, todos) }
    if reading { child.send(SIGINT) }
    try writer.execute("ROLLBACK")
    locked = false
    let result = child.wait()
    try #require(reading, "the build ended before it opened the database: \(result.stderr)")
    #expect(!result.killed)
    #expect(result.status == 130)
    #expect(result.stderr == "interrupted: the site in '\(site)' was left as it was\n")
    #expect(result.stdout.isEmpty)
    let changes = FolderSnapshot(site, includingState: true).differences(from: before)
    #expect(changes.isEmpty, "the interrupted build changed the site: \(changes)")
  }

  /// Builds a site, then rebuilds it with every page changed (so the commit renames each one)
  /// and sends `signal` once the commit marker appears. Retries with four times the data when
  /// the commit was over before the signal landed (`landed` says whether it did), then runs
  /// `check` on the site, the rebuild's database and the result.
  private func signalDuringCommit(
    _ signal: Int32, landed: (_ result: ChildTaskpress.Result, _ marker: String) -> Bool,
    check: (_ folder: String, _ site: String, _ database: String, _ result: ChildTaskpress.Result)
      throws ->
      Void
  ) throws {
    var count = 6000
    for _ in 1...3 {
      let folder = try makeTemporaryFolder()
      defer { try? FileManager.default.removeItem(atPath: folder) }
      let site = folder + "/site"
      let before = folder + "/before.sqlite"
      try SafetyFixtures.todos(at: before, count: count, text: "before")
      let first = runTaskpress(["build", "--todos", before, "--output", site, "--quiet"])
      try #require(first.status == 0, "\(first.stderr)")
      let big = folder + "/big.sqlite"
      try SafetyFixtures.todos(at: big, count: count, text: "big")

      // Every page changes: the commit replaces the files one by one, the plain path
      // (`TASKPRESS_SWAP=never`), long enough to be signalled in. The commit that exchanges a
      // staged folder is one rename; `FolderSwapTests` stops it at each of its steps.
      let marker = stateFolder(site) + "/commit-in-progress"
      let (result, signalled) = try buildAndSignal(
        ["build", "--todos", big, "--output", site], in: folder, signal: signal,
        environment: ["TASKPRESS_SWAP": "never"], watching: [stateFolder(site)]
      ) { _ in access(marker, F_OK) == 0 }
      guard signalled, landed(result, marker) else {
        count *= 4  // the commit was over before the signal: try a longer one
        continue
      }
      try check(folder, site, big, result)
      return
    }
    Issue.record("every commit was over before the signal came, up to \(count / 4) to-dos")
  }

  @Test(
    "SIGINT or SIGTERM while writing: the writing finishes, the build says so, exit 128 + signal",
    arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
  func signalWhileWriting(signal: Int32, status: Int32) throws {
    try signalDuringCommit(
      signal, landed: { result, _ in result.status != 0 },
      check: {
        folder, site, big, result in
        let marker = stateFolder(site) + "/commit-in-progress"
        #expect(!result.killed)
        #expect(result.status == status)
        #expect(result.stdout.hasPrefix("built \(site): "))
        #expect(
          result.stderr == "interrupted: the site in '\(site)' was written completely first\n")
        #expect(access(marker, F_OK) != 0)
        let clean = folder + "/clean"
        try #require(
          runTaskpress(["build", "--todos", big, "--output", clean, "--quiet"]).status == 0)
        #expect(
          FolderSnapshot(site).contentsApartFromChanges
            == FolderSnapshot(clean).contentsApartFromChanges)
      })
  }

  @Test("SIGKILL during the commit: the next build repairs the site and says so")
  func killedDuringCommit() throws {
    try signalDuringCommit(
      SIGKILL, landed: { result, marker in result.killed && access(marker, F_OK) == 0 },
      check: { folder, site, big, result in
        let marker = stateFolder(site) + "/commit-in-progress"
        #expect(result.status == SIGKILL)
        #expect(result.stdout.isEmpty)

        let repair = runTaskpress(["build", "--todos", big, "--output", site])
        #expect(repair.status == 0)
        #expect(
          repair.stderr
            == "note: the previous build was interrupted while writing; the site has been repaired\n"
        )
        #expect(repair.stdout.contains(", repaired in "))
        #expect(access(marker, F_OK) != 0)
        #expect(access(stateFolder(site) + "/staging", F_OK) != 0)
        let clean = folder + "/clean"
        try #require(
          runTaskpress(["build", "--todos", big, "--output", clean, "--quiet"]).status == 0)
        let repaired = FolderSnapshot(site)
        let expected = FolderSnapshot(clean)
        #expect(repaired.contentsApartFromChanges == expected.contentsApartFromChanges)
        #expect(repaired.entries.keys.sorted() == expected.entries.keys.sorted())
        let check = runTaskpress(["check", site])
        #expect(check.status == 0, "\(check.stderr)")
      })
  }

  /// Where a commit stops, as a fraction of its renames.
  enum StopPoint: String, CaseIterable {
    case beforeTheFirstRename, afterOneRename, halfway, beforeTheLastRename

    func steps(of renames: Int) -> Int {
      switch self {
      case .beforeTheFirstRename: 0
      case .afterOneRename: 1
      case .halfway: renames / 2
      case .beforeTheLastRename: renames - 1
      }
    }
  }

  @Test(
    "a commit stopped after some renames is repaired by the next build",
    arguments: StopPoint.allCases)
  func stoppedCommit(at stop: StopPoint) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let old = folder + "/old.sqlite"
    let new = folder + "/new.sqlite"
    let things = folder + "/possessions.sqlite"
    try SafetyFixtures.todos(at: old, count: 40, text: "old")
    try SafetyFixtures.todos(at: new, count: 30, text: "new")
    try SafetyFixtures.possessions(at: things, count: 3, photoBytes: 2000)
    let newArguments = ["--todos", new, "--possessions", things]

    /// A site built from `old`, with a file of the user's.
    func oldSite(_ path: String) throws {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      try Data("example.org\n".utf8).write(to: URL(filePath: path + "/CNAME"))
      let result = runTaskpress(["build", "--todos", old, "--output", path, "--quiet"])
      try #require(result.status == 0, "\(result.stderr)")
    }
    var options = BuildOptions()
    options.todos = new
    options.possessions = things
    let quiet = Build.Reporter(warning: { _ in })

    // How many renames the new build's commit makes over the old site (a new folder is
    // staged whole and moved with one).
    let probe = folder + "/probe"
    try oldSite(probe)
    let renames = try Build.run(
      options.with(output: probe), interrupt: InterruptFlag(), reporter: quiet
    ).commitSteps
    try #require(renames > 10)

    let site = folder + "/site"
    try oldSite(site)
    // The type is the contract: the stop is the test hook `commitStepLimit`, which no user
    // meets; what users see, the next build's note and its repair, is checked below.
    #expect(throws: OutputError.self) {
      _ = try Build.run(
        options.with(output: site), interrupt: InterruptFlag(), reporter: quiet,
        commitStepLimit: stop.steps(of: renames))
    }
    #expect(access(stateFolder(site) + "/commit-in-progress", F_OK) == 0)

    let repair = runTaskpress(["build", "--output", site] + newArguments)
    #expect(repair.status == 0)
    #expect(
      repair.stderr
        == "note: the previous build was interrupted while writing; the site has been repaired\n")
    #expect(repair.stdout.contains(", repaired in "))

    let clean = folder + "/clean"
    try FileManager.default.createDirectory(atPath: clean, withIntermediateDirectories: true)
    try Data("example.org\n".utf8).write(to: URL(filePath: clean + "/CNAME"))
    let cleanBuild = runTaskpress(["build", "--output", clean, "--quiet"] + newArguments)
    try #require(cleanBuild.status == 0, "\(cleanBuild.stderr)")
    let repaired = FolderSnapshot(site)
    let expected = FolderSnapshot(clean)
    #expect(repaired.contentsApartFromChanges == expected.contentsApartFromChanges)
    #expect(repaired.entries.keys.sorted() == expected.entries.keys.sorted())
    #expect(access(stateFolder(site) + "/commit-in-progress", F_OK) != 0)
    let check = runTaskpress(["check", site])
    #expect(check.status == 0, "\(check.stderr)")
    #expect(check.stdout.hasSuffix(": every link resolves\n"))
    let again = runTaskpress(["build", "--output", site] + newArguments)
    #expect(again.stdout.hasPrefix("built \(site): 0 written, "))
    #expect(again.stderr.isEmpty)
  }

  // MARK: - A full disk

  @Test(
    "a full disk: exit 1 naming the file and 'no space left on device', the site as it was",
    .enabled(if: SmallDisk.canMount, "needs root with the right to mount a tmpfs"))
  func fullDisk() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let disk = try SmallDisk(at: folder + "/disk", size: "2m")
    defer { disk.unmount() }
    let site = disk.path + "/site"
    let todos = folder + "/todo.sqlite"
    let things = folder + "/possessions.sqlite"
    try SafetyFixtures.todos(at: todos, count: 5)
    try SafetyFixtures.possessions(at: things, count: 8, photoBytes: 400_000)
    let first = runTaskpress(["build", "--todos", todos, "--output", site, "--quiet"])
    try #require(first.status == 0, "\(first.stderr)")
    let before = FolderSnapshot(site)

    let result = runTaskpress([
      "build", "--todos", todos, "--possessions", things, "--output", site,
    ])
    #expect(result.status == 1)
    #expect(result.stdout.isEmpty)
    let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
    try #require(lines.count == 3, "\(result.stderr)")
    // Photos and pages are staged at the same time: either may be the first to find the disk
    // full, and the error names that file.
    #expect(
      lines[0].hasPrefix("error: \(site)/photos/") || lines[0].hasPrefix("error: \(site)/todos/"))
    #expect(lines[0].hasSuffix(": no space left on device"))
    #expect(lines[1] == "the site in '\(site)' was not changed")
    let changes = FolderSnapshot(site).differences(from: before)
    #expect(changes.isEmpty, "the failed build changed the site: \(changes)")
    #expect(access(stateFolder(site) + "/staging", F_OK) != 0, "the staging folder is left behind")

    // The space the staged files took is free again.
    let again = runTaskpress(["build", "--todos", todos, "--output", site])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stdout.hasPrefix("built \(site): 0 written, "))
  }

  @Test("a commit that fails before it starts: exit 1, the site as it was, no staged files left")
  func commitFailsBeforeStarting() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let small = folder + "/small.sqlite"
    let more = folder + "/more.sqlite"
    try SafetyFixtures.todos(at: small, count: 5)
    try SafetyFixtures.todos(at: more, count: 50, text: "more")
    let site = folder + "/site"
    let first = runTaskpress(["build", "--todos", small, "--output", site, "--quiet"])
    try #require(first.status == 0, "\(first.stderr)")
    // The list of files the commit writes first cannot be created: a folder is in its place.
    let pending = stateFolder(site) + "/manifest.new"
    try FileManager.default.createDirectory(atPath: pending, withIntermediateDirectories: true)
    let before = FolderSnapshot(site)

    let result = runTaskpress(["build", "--todos", more, "--output", site])
    #expect(result.status == 1)
    #expect(
      result.stderr == """
        error: \(pending): is a folder, not a file
        the site in '\(site)' was not changed

        """)
    let changes = FolderSnapshot(site).differences(from: before)
    #expect(changes.isEmpty, "the failed build changed the site: \(changes)")
    #expect(access(stateFolder(site) + "/commit-in-progress", F_OK) != 0)
    #expect(access(stateFolder(site) + "/staging", F_OK) != 0, "the staged files are left behind")
  }

  // MARK: - The output folder

  @Test("an output path that is a file: exit 1, the message, the file as it was")
  func outputIsAFile() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let todos = folder + "/todo.sqlite"
    try SafetyFixtures.todos(at: todos, count: 3)
    let file = folder + "/site"
    try Data("not a folder\n".utf8).write(to: URL(filePath: file))
    let result = runTaskpress(["build", "--todos", todos, "--output", file])
    #expect(result.status == 1)
    #expect(
      result.stderr == """
        error: \(file): output path is a file, not a folder
        the site in '\(file)' was not changed

        """)
    #expect(FileManager.default.contents(atPath: file) == Data("not a folder\n".utf8))
  }

  @Test("a link inside the output pointing out of it: exit 1 naming it, the outside untouched")
  func linkOutOfTheOutput() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let todos = folder + "/todo.sqlite"
    try SafetyFixtures.todos(at: todos, count: 5)
    let site = folder + "/site"
    let first = runTaskpress(["build", "--todos", todos, "--output", site, "--quiet"])
    try #require(first.status == 0, "\(first.stderr)")
    let elsewhere = folder + "/elsewhere"
    try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
    try Data("outside\n".utf8).write(to: URL(filePath: elsewhere + "/1.html"))
    try FileManager.default.removeItem(atPath: site + "/todos")
    try #require(symlink(elsewhere, site + "/todos") == 0)
    let outside = FolderSnapshot(elsewhere)
    let before = FolderSnapshot(site)

    let result = runTaskpress(["build", "--todos", todos, "--output", site])
    #expect(result.status == 1)
    #expect(
      result.stderr == """
        error: \(site)/todos: is a symbolic link; taskpress does not write through links
        the site in '\(site)' was not changed

        """)
    #expect(FolderSnapshot(elsewhere).differences(from: outside).isEmpty)
    #expect(FolderSnapshot(site).differences(from: before).isEmpty)
  }

  @Test("files taskpress did not write survive rebuilds; pages no longer produced are removed")
  func userFilesKept() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let ten = folder + "/ten.sqlite"
    let five = folder + "/five.sqlite"
    try SafetyFixtures.todos(at: ten, count: 10)
    try SafetyFixtures.todos(at: five, count: 5)
    let site = folder + "/site"
    let first = runTaskpress(["build", "--todos", ten, "--output", site, "--quiet"])
    try #require(first.status == 0, "\(first.stderr)")
    let mine = [
      "CNAME": "todo.example.org\n", ".git/HEAD": "ref: refs/heads/main\n",
      "extra.html": "<p>my own page</p>\n", "todos/notes.txt": "notes\n",
    ]
    for (path, text) in mine {
      let url = URL(filePath: site + "/" + path)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url)
    }
    let withMine = FolderSnapshot(site)

    let same = runTaskpress(["build", "--todos", ten, "--output", site])
    #expect(same.status == 0, "\(same.stderr)")
    #expect(same.stdout.hasPrefix("built \(site): 0 written, "))
    #expect(same.stdout.contains(", 0 removed, "))
    #expect(FolderSnapshot(site).differences(from: withMine).isEmpty)

    let fewer = runTaskpress(["build", "--todos", five, "--output", site])
    #expect(fewer.status == 0, "\(fewer.stderr)")
    #expect(fewer.stdout.contains(", 5 removed, "))
    let after = FolderSnapshot(site)
    for (path, text) in mine {
      #expect(after.entries[path]?.bytes == Data(text.utf8), "\(path)")
      #expect(after.entries[path] == withMine.entries[path], "\(path) was touched")
    }
    for pk in 1...10 {
      #expect((after.entries["todos/\(pk).html"] != nil) == (pk <= 5), "todos/\(pk).html")
    }
    let check = runTaskpress(["check", site])
    #expect(check.status == 0, "\(check.stderr)")
  }

  // MARK: - Unchanged rebuilds

  @Test("a rebuild of unchanged data writes nothing: '0 written', every mtime and inode kept")
  func unchangedRebuild() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let todos = folder + "/todo.sqlite"
    let things = folder + "/possessions.sqlite"
    let people = folder + "/contacts.sqlite"
    try SafetyFixtures.todos(at: todos, count: 250)
    try SafetyFixtures.possessions(at: things, count: 3, photoBytes: 5000)
    try Database.createForTesting(
      at: people,
      sql: "CREATE TABLE CONTACTS(ID INTEGER PRIMARY KEY, NAME TEXT, ADDRESS TEXT, PHONE TEXT);"
        + "INSERT INTO CONTACTS VALUES (1, 'Ann', '1 Road', '555'), (2, 'Bob', '', '');")
    let site = folder + "/site"
    let arguments = [
      "build", "--todos", todos, "--possessions", things, "--contacts", people, "--output", site,
      "--base-url", "https://example.org/",
    ]
    let first = runTaskpress(arguments)
    try #require(first.status == 0, "\(first.stderr)")
    // Older times make a rewrite visible even where timestamps are coarse.
    try age(site, by: 10)
    let before = FolderSnapshot(site)
    try #require(before.entries.count > 250)

    for _ in 1...2 {
      let again = runTaskpress(arguments)
      #expect(again.status == 0)
      #expect(again.stderr.isEmpty)
      #expect(again.stdout.hasPrefix("built \(site): 0 written, "))
      #expect(again.stdout.contains(" unchanged, 0 removed, 3 photos, 0 warnings in "))
      let changes = FolderSnapshot(site).differences(from: before)
      #expect(changes.isEmpty, "the rebuild touched: \(changes)")
    }
  }

  // MARK: - Helpers

  /// Runs the binary with `arguments` in `folder` (with `blocking` blocked), waits with no
  /// time limit until `ready` holds (looked at whenever an entry appears in one of `folders`),
  /// then sends `signal`; `sent` is false when the build ended first.
  private func buildAndSignal(
    _ arguments: [String], in folder: String, signal: Int32, blocking: [Int32] = [],
    environment: [String: String?] = [:], watching folders: [String],
    when ready: (_ watch: (String) -> Void) -> Bool
  ) throws -> (result: ChildTaskpress.Result, sent: Bool) {
    let child = try ChildTaskpress(
      arguments, in: folder, environment: environment, blocking: blocking)
    let sent = try child.wait(watching: folders, until: ready)
    if sent { child.send(signal) }
    return (child.wait(), sent)
  }
}

/// Whether process `pid` has the file at `path` open.
private func opens(_ pid: pid_t, _ path: String) -> Bool {
  let target = URL(filePath: path).resolvingSymlinksInPath().path
  let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
  return fds.contains { fd in
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"))
      == target
  }
}

private func hasEntries(_ folder: String) -> Bool {
  (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty == false
}

extension BuildOptions {
  fileprivate func with(output: String) -> BuildOptions {
    var options = self
    options.output = output
    return options
  }
}

/// A small tmpfs, to fill up.
struct SmallDisk {
  let path: String

  /// Whether this process may mount one (it must be root, outside a restricted container).
  static let canMount: Bool = {
    guard ProcessInfo.processInfo.environment["TASKPRESS_TEST_NO_TMPFS"] == nil else {
      return false
    }
    let probe = NSTemporaryDirectory() + "taskpress-mount-probe-" + UUID().uuidString
    defer { try? FileManager.default.removeItem(atPath: probe) }
    guard
      (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true))
        != nil, let disk = try? SmallDisk(at: probe, size: "64k")
    else { return false }
    disk.unmount()
    return true
  }()

  init(at path: String, size: String) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    guard mount("tmpfs", path, "tmpfs", 0, "size=\(size)") == 0 else {
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM)
    }
    self.path = path
  }

  func unmount() {
    umount2(path, Int32(MNT_DETACH))
  }
}
