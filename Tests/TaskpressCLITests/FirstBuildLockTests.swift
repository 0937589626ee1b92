import Foundation
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#endif

/// Two builds at once into an output folder that does not exist yet, with the real binary: the
/// folder is made and locked before anything is written, so one builds and the other says that
/// another build is writing (issue 47).
@Suite(.serialized) struct FirstBuildLockTests {
  @Test("two first builds at once into a new folder, 20 times: one builds, the other exits 1")
  func twoFirstBuilds() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let todos = folder + "/todo.sqlite"
    try SafetyFixtures.todos(at: todos, count: 30)
    // A copy of a site to compare with, whose data/todos.json is a FIFO: the build that locked
    // the folder opens it once locked (and only then) and waits, without a time limit, until
    // this test writes it, so the two builds always overlap; the other never opens it.
    let seed = runTaskpress(["build", "--todos", todos, "--output", folder + "/seed", "--quiet"])
    try #require(seed.status == 0, "\(seed.stderr)")
    let copy = try #require(FileManager.default.contents(atPath: folder + "/seed/data/todos.json"))
    let previous = folder + "/previous"
    try FileManager.default.createDirectory(
      atPath: previous + "/data", withIntermediateDirectories: true)
    let fifo = previous + "/data/todos.json"
    try #require(mkfifo(fifo, 0o600) == 0)
    for attempt in 1...20 {
      let site = folder + "/site\(attempt)"
      let arguments = [
        "build", "--todos", todos, "--output", site, "--previous", previous, "--quiet",
      ]
      let children = try (0..<2).map { _ in try ChildTaskpress(arguments, in: folder) }
      let loser = ChildTaskpress.firstToExit(children)
      // Now the winner: blocks until its reader has the FIFO open, then hands it the copy.
      let writer = open(fifo, O_WRONLY | O_CLOEXEC)
      try #require(writer >= 0)
      _ = copy.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
      close(writer)
      let lost = children[loser].wait()
      let won = children[1 - loser].wait()
      #expect(lost.status == 1, "try \(attempt): \(lost.stderr)")
      // The other build may have made the folder before this one looked: then it says the
      // site was not changed.
      let refusal =
        "error: \(site): another taskpress build is writing to this folder; wait for it to finish\n"
      #expect(
        lost.stderr == refusal
          || lost.stderr == refusal + "the site in '\(site)' was not changed\n",
        "try \(attempt)")
      #expect(won.status == 0, "try \(attempt): \(won.stderr)")
      #expect(won.stderr.isEmpty, "try \(attempt)")
      #expect(FileManager.default.fileExists(atPath: site + "/index.html"), "try \(attempt)")
      #expect(FileManager.default.fileExists(atPath: stateFolder(site) + "/manifest"))
    }
  }

  @Test("a first build that fails leaves no folder behind, and the parent's time as it was")
  func failedFirstBuildLeavesNothing() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    var before = stat()
    try #require(stat(folder, &before) == 0)
    let result = runTaskpress([
      "build", "--todos", folder + "/missing.sqlite", "--output", folder + "/new/site", "--quiet",
    ])
    #expect(result.status == 1)
    // No site was there: nothing to say about it being left as it was.
    #expect(result.stderr.hasPrefix("error: "))
    #expect(!result.stderr.contains("was not changed"), "\(result.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    var after = stat()
    try #require(stat(folder, &after) == 0)
    #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec)
    #expect(after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
  }

  @Test(
    "a first build into a folder of the user's files: a note naming them; files in the way all named"
  )
  func foreignFiles() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let todos = folder + "/todo.sqlite"
    try SafetyFixtures.todos(at: todos, count: 5)
    let site = folder + "/site"
    try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
    try Data("mine".utf8).write(to: URL(filePath: site + "/notes.txt"))
    let first = runTaskpress(["build", "--todos", todos, "--output", site])
    #expect(first.status == 0)
    #expect(
      first.stderr
        == "note: '\(site)' already held what taskpress did not write ('notes.txt'); the site "
        + "was written beside it, and taskpress will never change or remove it\n")
    // The next build knows its own files: no note.
    let again = runTaskpress(["build", "--todos", todos, "--output", site])
    #expect(again.stderr.isEmpty)
    #expect(FileManager.default.contents(atPath: site + "/notes.txt") == Data("mine".utf8))

    // The user's own index.html and board.html where taskpress writes: both named at once.
    let other = folder + "/other"
    try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
    for name in ["index.html", "board.html"] {
      try Data("mine".utf8).write(to: URL(filePath: other + "/" + name))
    }
    let clash = runTaskpress(["build", "--todos", todos, "--output", other])
    #expect(clash.status == 1)
    #expect(
      clash.stderr
        == "error: \(other): 2 files taskpress would write exist and were not written by it: "
        + "'board.html', 'index.html'; move them away or delete them\n"
        + "the site in '\(other)' was not changed\n")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: other).sorted() == [
        "board.html", "index.html",
      ])
  }

  @Test("a first build into a copy of its own site (a fresh clone): no note but for the rest")
  func copyOfTheSite() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let todos = folder + "/todo.sqlite"
    try SafetyFixtures.todos(at: todos, count: 5)
    let built = runTaskpress(["build", "--todos", todos, "--output", folder + "/built"])
    #expect(built.status == 0)
    // A copy of the site without taskpress's state, as a clone of a repository has it.
    for (name, other) in [("copy", nil), ("copy-and-notes", "notes.txt")] {
      let site = folder + "/" + name
      try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
      for (path, bytes) in tree(folder + "/built") {
        let file = site + "/" + path
        try FileManager.default.createDirectory(
          atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try bytes.write(to: URL(filePath: file))
      }
      if let other { try Data("mine".utf8).write(to: URL(filePath: site + "/" + other)) }
      let first = runTaskpress(["build", "--todos", todos, "--output", site])
      #expect(first.status == 0)
      #expect(
        first.stderr
          == (other.map {
            "note: '\(site)' already held what taskpress did not write ('\($0)'); the site "
              + "was written beside it, and taskpress will never change or remove it\n"
          } ?? ""), "\(name)")
      #expect(
        tree(site)
          == tree(folder + "/built").merging(other.map { [$0: Data("mine".utf8)] } ?? [:]) { $1 })
    }
  }

  /// Runs the binary with `arguments` in `folder` as a user without privileges (as root,
  /// through setpriv as `nobody`, whom permissions bind).
  private func runUnprivileged(_ arguments: [String], in folder: String) throws
    -> ChildTaskpress.Result
  {
    let binary = try TaskpressBinary.require()
    guard getuid() == 0 else {
      return try ChildTaskpress(executable: binary, arguments: arguments, in: folder).wait()
    }
    return try ChildTaskpress(
      executable: "/usr/bin/setpriv",
      arguments: ["--reuid=65534", "--regid=65534", "--clear-groups", binary] + arguments,
      in: folder
    ).wait()
  }

  @Test(
    "a folder that cannot be written is an error naming the folder given, before anything is staged"
  )
  func unwritable() throws {
    let folder = try makeTemporaryFolder()
    defer {
      chmod(folder + "/locked", 0o755)
      try? FileManager.default.removeItem(atPath: folder)
    }
    try #require(chmod(folder, 0o777) == 0)
    let todos = folder + "/todo.sqlite"
    try SafetyFixtures.todos(at: todos, count: 5)
    try #require(chmod(todos, 0o644) == 0)
    // A read-only output folder.
    try FileManager.default.createDirectory(
      atPath: folder + "/site", withIntermediateDirectories: true)
    try #require(chmod(folder + "/site", 0o555) == 0)
    let readOnly = try runUnprivileged(
      ["build", "--todos", todos, "--output", "site"], in: folder)
    #expect(readOnly.status == 1)
    #expect(
      readOnly.stderr
        == "error: site: cannot be written (permission denied); make it writable or choose "
        + "another --output\nthe site in 'site' was not changed\n")
    #expect(!FileManager.default.fileExists(atPath: folder + "/.site.taskpress"))
    // A writable output folder in a read-only folder: its state folder cannot be made.
    try FileManager.default.createDirectory(
      atPath: folder + "/locked/site", withIntermediateDirectories: true)
    try #require(chmod(folder + "/locked/site", 0o777) == 0)
    try #require(chmod(folder + "/locked", 0o555) == 0)
    let noState = try runUnprivileged(
      ["build", "--todos", todos, "--output", "locked/site"], in: folder)
    #expect(noState.status == 1)
    #expect(
      noState.stderr
        == "error: locked/site: taskpress keeps its state beside this folder, in "
        + "'locked/.site.taskpress', which cannot be made (permission denied); make 'locked' "
        + "writable or choose another --output\nthe site in 'locked/site' was not changed\n")
  }
}
