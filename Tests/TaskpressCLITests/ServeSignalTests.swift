import Foundation
@_spi(Testing) import SQLite
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `taskpress serve` as users stop it: the real binary in a child process (see
/// Tests/README.md: started with `posix_spawn`, waited for without a time limit).
@Suite struct ServeSignalTests {
  /// Starts `taskpress serve` on a free port; nil (after recording why) when it did not start.
  private func serve(
    _ todos: String, _ site: String, in folder: String, environment: [String: String?] = [:]
  ) throws -> ChildTaskpress? {
    let child = try ChildTaskpress(
      ["serve", "--todos", todos, "--output", site, "--port", "0"], in: folder,
      environment: environment)
    guard child.waitForOutput("(press Ctrl-C to stop)") else {
      let result = child.wait()
      Issue.record("serve did not start: status \(result.status), \(result.stderr)")
      return nil
    }
    return child
  }

  @Test("Ctrl-C on serve: exit 130, 'stopped: the site ... is whole', the site equal to a build")
  func interrupt() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let todos = folder + "/todo.sqlite"
    try SafetyFixtures.todos(at: todos, count: 30)
    let site = folder + "/site"
    guard let child = try serve(todos, site, in: folder) else { return }
    child.send(SIGINT)
    let result = child.wait()
    #expect(!result.killed)
    #expect(result.status == 130)
    #expect(result.stderr == "stopped: the site in '\(site)' is whole\n")
    let plain = folder + "/plain"
    let build = runTaskpress(["build", "--quiet", "--todos", todos, "--output", plain])
    try #require(build.status == 0, "\(build.stderr)")
    let served = FolderSnapshot(site)
    #expect(!served.contents.isEmpty)
    #expect(served.contentsApartFromChanges == FolderSnapshot(plain).contentsApartFromChanges)
    #expect(runTaskpress(["check", site]).status == 0)
  }

  @Test("a rebuild killed while serve runs it (SIGKILL in its commit): the next build repairs it")
  func killedRebuild() throws {
    var count = 1500
    for _ in 1...3 {
      let folder = try makeTemporaryFolder()
      defer { try? FileManager.default.removeItem(atPath: folder) }
      let todos = folder + "/todo.sqlite"
      try SafetyFixtures.todos(at: todos, count: count, text: "before")
      let site = folder + "/site"
      // Every page changes, so the rebuild's commit replaces each one: file by file, the plain
      // path (`TASKPRESS_SWAP=never`), whose commit lasts long enough to be killed in. The
      // commit that exchanges a staged folder is one rename; `FolderSwapTests` kills it at
      // each of its steps.
      guard let child = try serve(todos, site, in: folder, environment: ["TASKPRESS_SWAP": "never"])
      else { return }
      let marker = stateFolder(site) + "/commit-in-progress"
      try Database.openWritableForTesting(at: todos).execute(
        "UPDATE todo SET text = 'after ' || pk")
      let committing = try child.wait(watching: [stateFolder(site)]) { _ in
        access(marker, F_OK) == 0
      }
      if committing { child.send(SIGKILL) }
      let result = child.wait()
      guard committing, result.killed, access(marker, F_OK) == 0 else {
        count *= 4  // the commit was over before the signal: try a longer one
        continue
      }
      #expect(result.status == SIGKILL)

      let repair = runTaskpress(["build", "--todos", todos, "--output", site])
      #expect(repair.status == 0)
      #expect(
        repair.stderr
          == "note: the previous build was interrupted while writing; the site has been repaired\n")
      #expect(access(marker, F_OK) != 0)
      let clean = folder + "/clean"
      try #require(
        runTaskpress(["build", "--todos", todos, "--output", clean, "--quiet"]).status == 0)
      let repaired = FolderSnapshot(site)
      let expected = FolderSnapshot(clean)
      #expect(repaired.contentsApartFromChanges == expected.contentsApartFromChanges)
      #expect(repaired.entries.keys.sorted() == expected.entries.keys.sorted())
      #expect(runTaskpress(["check", site]).status == 0)
      return
    }
    Issue.record("every commit was over before the signal came, up to \(count / 4) to-dos")
  }
}
