import Foundation
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct OutputStateFolderTests {
  @Test(
    "the state folder is beside the output folder, named after it",
    arguments: [
      ("site", ".site.taskpress"), ("site/", ".site.taskpress"),
      ("out/public", "out/.public.taskpress"),
      ("/srv/www/reports", "/srv/www/.reports.taskpress"), ("/site", "/.site.taskpress"),
      ("../site", "../.site.taskpress"),
    ])
  func location(output: String, state: String) {
    #expect(OutputWriter.stateFolder(ofOutput: output) == state)
  }

  @Test("'.' is named by the folder it is; the root of the file system has no state folder")
  func resolvedLocation() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("here")
    try makeFolders(root)
    let real = try #require(realpath(tmp.path, nil))
    defer { free(real) }
    #expect(
      OutputWriter.stateFolder(ofOutput: root + "/.") == String(cString: real) + "/.here.taskpress")
    #expect(OutputWriter.stateFolder(ofOutput: "/") == nil)
    #expect(
      outputError { _ = try OutputWriter(root: "/", interrupt: InterruptFlag()) }
        == OutputError(
          path: "/",
          reason: "the root of the file system cannot be the output folder; give a folder in it"))
  }

  /// Builds `files` into `root`, as `Build` does.
  @discardableResult
  private func build(_ root: String, _ files: [String: String]) throws -> OutputSummary {
    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    for (path, text) in files.sorted(by: { $0.key < $1.key }) {
      try writer.add(path, bytes: Array(text.utf8))
    }
    return try writer.commit()
  }

  private let site = ["index.html": "home", "todos/1.html": "one", "todos/2.html": "two"]

  @Test("the state of an earlier version, '.taskpress' inside the site, is adopted and removed")
  func adoptsOldState() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    // The layout earlier versions left: the state inside the output folder.
    #expect(rename(stateFolder(root), root + "/.taskpress") == 0)
    try writeFile(root + "/CNAME", "example.org")
    let before = Tree.contents(root)

    let summary = try build(root, site.merging(["todos/2.html": "changed"]) { $1 })
    // The manifest was kept: the unchanged files are known by their recorded hashes, and a
    // file of the earlier build is replaced, not refused as the user's.
    #expect(summary.written == 1)
    #expect(summary.unchanged == 2)
    #expect(access(root + "/.taskpress", F_OK) != 0)
    #expect(access(stateFolder(root) + "/manifest", F_OK) == 0)
    var expected = before.filter { !$0.key.hasPrefix(".taskpress") }
    expected["todos/2.html"] = Array("changed".utf8)
    #expect(Tree.contents(root) == expected)
  }

  @Test("an earlier version's interrupted commit, found inside the site, is repaired")
  func adoptsInterruptedOldState() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    try writeFile(stateFolder(root) + "/commit-in-progress", "taskpress\n")
    #expect(rename(stateFolder(root), root + "/.taskpress") == 0)
    try writeFile(root + "/todos/1.html", "half")
    let summary = try build(root, site)
    #expect(summary.repaired)
    #expect(summary.writtenPaths == ["todos/1.html"])
    #expect(access(root + "/.taskpress", F_OK) != 0)
    #expect(access(stateFolder(root) + "/commit-in-progress", F_OK) != 0)
  }

  @Test("when both exist, the state beside the site wins and the old one is removed")
  func bothStates() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    try makeFolders(root + "/.taskpress")
    try writeFile(root + "/.taskpress/manifest", "damaged")
    let summary = try build(root, site)
    #expect(summary.unchanged == 3)
    #expect(access(root + "/.taskpress", F_OK) != 0)
  }

  @Test("the state of an output folder that is gone is dropped: the next build starts afresh")
  func staleState() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    try makeFolders(stateFolder(root) + "/staging/d1")
    try writeFile(stateFolder(root) + "/staging/f1", "left by a killed build")
    #expect(rename(root, tmp.sub("moved")) == 0)
    let summary = try build(root, site)
    #expect(summary.written == 3)
    #expect(Tree.contents(root) == site.mapValues { Array($0.utf8) })
    #expect(access(stateFolder(root) + "/staging", F_OK) != 0)
  }

  @Test("a file named '.taskpress' in the site is the user's: left alone")
  func userFileNamedLikeOldState() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try makeFolders(root)
    try writeFile(root + "/.taskpress", "mine")
    try build(root, site)
    #expect(readFile(root + "/.taskpress") == Array("mine".utf8))
  }
}
