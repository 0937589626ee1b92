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
      #expect(
        lost.stderr
          == "error: \(site): another taskpress build is writing to this folder; "
          + "wait for it to finish\n", "try \(attempt)")
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
}
