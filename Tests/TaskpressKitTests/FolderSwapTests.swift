import Foundation
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A rebuild that changes most files, published as a new folder exchanged with the old one
/// (`FolderSwap`), against the plain path that replaces file by file.
@Suite struct FolderSwapTests {
  let site = [
    "a.html": "a", "index.html": "home", "todos/1.html": "one", "todos/2.html": "two",
    "todos/3.html": "three", "zz/x.html": "x", "zz/y.html": "y",
  ]
  /// Most files changed, one the same, two gone, and a new folder.
  let rewrite = [
    "a.html": "A", "index.html": "HOME", "todos/1.html": "ONE", "todos/2.html": "two",
    "todos/3.html": "THREE", "new/n.html": "n",
  ]

  func rebuild(_ root: String, _ files: [String: String], swap: FolderSwap.Mode) throws
    -> OutputSummary
  {
    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    writer.folderSwap = swap
    for (path, text) in files.sorted(by: { $0.key < $1.key }) {
      try writer.add(path, bytes: Array(text.utf8))
    }
    return try writer.commit()
  }

  func inode(_ path: String) throws -> stat {
    try #require(FileSystem.statNoFollow(AT_FDCWD, path))
  }

  @Test("the decision: more than half of the previous files rewritten or removed")
  func decision() {
    #expect(!FolderSwap.shouldSwap(previous: 0, rewritten: 10, removed: 0))
    #expect(!FolderSwap.shouldSwap(previous: 10, rewritten: 5, removed: 0))
    #expect(FolderSwap.shouldSwap(previous: 10, rewritten: 6, removed: 0))
    #expect(FolderSwap.shouldSwap(previous: 10, rewritten: 3, removed: 3))
    #expect(!FolderSwap.shouldSwap(previous: 10, rewritten: 1, removed: 1))
    #expect(FolderSwap.shouldSwap(previous: 100_000, rewritten: 100_000, removed: 0))
  }

  @Test("a folder exchanged has the bytes and manifest of one replaced file by file")
  func sameBothWays() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let swapped = tmp.sub("swapped")
    let plain = tmp.sub("plain")
    try build(swapped, site)
    try build(plain, site)
    let kept = try inode(swapped + "/todos/2.html")
    let oldRoot = try inode(swapped)

    let bySwap = try rebuild(swapped, rewrite, swap: .auto)
    let byFile = try rebuild(plain, rewrite, swap: .never)
    #expect(bySwap.swapped)
    #expect(!byFile.swapped)
    #expect(bySwap.written == byFile.written)
    #expect(bySwap.unchanged == byFile.unchanged)
    #expect(bySwap.removedPaths == byFile.removedPaths)
    #expect(bySwap.writtenPaths == byFile.writtenPaths)
    #expect(Tree.contents(swapped) == rewrite.mapValues { Array($0.utf8) })
    #expect(Tree.contents(swapped) == Tree.contents(plain))
    #expect(try manifestLinesUnderOneKey(swapped) == manifestLinesUnderOneKey(plain))
    // The unchanged file is the same file (linked, not copied), in a new folder.
    let after = try inode(swapped + "/todos/2.html")
    #expect(after.st_ino == kept.st_ino)
    #expect(after.modificationNanoseconds == kept.modificationNanoseconds)
    #expect(try inode(swapped).st_ino != oldRoot.st_ino)
    // No staging left; the next build finds everything intact and frees the old folder.
    let state = stateFolder(swapped)
    #expect(access(state + "/staging", F_OK) != 0)
    let next = try OutputWriter(root: swapped, interrupt: InterruptFlag())
    #expect(!next.repairing)
    #expect(next.previousFilesChanged() == [])
    #expect(access(state + "/trash", F_OK) != 0)
    next.abort()
    // A rebuild with nothing changed changes nothing.
    let again = try rebuild(swapped, rewrite, swap: .auto)
    #expect(again.written == 0 && !again.swapped)
  }

  @Test("files carried over are linked into the new folder, as when replaced file by file")
  func carriedBothWays() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    var summaries: [OutputSummary] = []
    for (name, mode) in [("swapped", FolderSwap.Mode.always), ("plain", .never)] {
      let root = tmp.sub(name)
      try build(root, site)
      let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
      writer.folderSwap = mode
      writer.carryOver(PathKeys(paths: ["zz/x.html", "todos/2.html"], keyedBy: .fingerprintRecord))
      for (path, text) in ["a.html": "A", "todos/1.html": "ONE", "new/n.html": "n"] {
        try writer.add(path, bytes: Array(text.utf8))
      }
      summaries.append(try writer.commit())
    }
    #expect(summaries[0].swapped && !summaries[1].swapped)
    #expect(summaries[0].removedPaths == summaries[1].removedPaths)
    #expect(Tree.contents(tmp.sub("swapped")) == Tree.contents(tmp.sub("plain")))
    #expect(
      try manifestLinesUnderOneKey(tmp.sub("swapped")) == manifestLinesUnderOneKey(tmp.sub("plain"))
    )
    #expect(
      Set(Tree.contents(tmp.sub("swapped")).keys)
        == ["a.html", "todos/1.html", "todos/2.html", "zz/x.html", "new/n.html"])
  }

  @Test("an interrupt before the commit leaves the old site whole; one during it, the new one")
  func interrupted() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    let before = Tree.snapshot(root, includeState: false)
    let flag = InterruptFlag()
    let writer = try OutputWriter(root: root, interrupt: flag)
    for (path, text) in rewrite { try writer.add(path, bytes: Array(text.utf8)) }
    flag.set()
    let error = outputError { _ = try writer.commit() }
    #expect(error?.reason == OutputError.interrupted)
    #expect(Tree.snapshot(root, includeState: false) == before)
    let state = stateFolder(root)
    #expect(access(state + "/staging", F_OK) != 0)
    #expect(access(state + "/commit-in-progress", F_OK) != 0)

    // Just before the exchange: the commit finishes first, as every commit does.
    let during = InterruptFlag()
    let next = try OutputWriter(root: root, interrupt: during)
    #expect(!next.repairing)
    #expect(next.previousFilesChanged() == [])
    next.beforeExchange = { during.set() }
    for (path, text) in rewrite { try next.add(path, bytes: Array(text.utf8)) }
    #expect(try next.commit().swapped)
    #expect(during.isSet)
    #expect(Tree.contents(root) == rewrite.mapValues { Array($0.utf8) })
    #expect(access(state + "/commit-in-progress", F_OK) != 0)
  }

  @Test("a commit killed at any step before the exchange leaves the old site; the next repairs")
  func killedBeforeExchange() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    // The steps of the commit: the staged folder moved in, the links, the exchange last.
    let probe = tmp.sub("probe")
    try build(probe, site)
    let steps = try rebuild(probe, rewrite, swap: .auto).commitSteps
    try #require(steps == 3)
    for limit in 0..<steps {
      let root = tmp.sub("site-\(limit)")
      try build(root, site)
      let before = Tree.contents(root)
      let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
      writer.commitStepLimit = limit
      for (path, text) in rewrite { try writer.add(path, bytes: Array(text.utf8)) }
      #expect(outputError { _ = try writer.commit() } != nil)
      #expect(Tree.contents(root) == before)
      let summary = try rebuild(root, rewrite, swap: .auto)
      #expect(summary.repaired)
      #expect(Tree.contents(root) == rewrite.mapValues { Array($0.utf8) })
    }
  }

  @Test("a folder with files taskpress did not write is replaced file by file, keeping them")
  func foreignFiles() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    try writeFile(root + "/CNAME", "example.org")
    try writeFile(root + "/.git/HEAD", "ref")
    let summary = try rebuild(root, rewrite, swap: .always)
    #expect(!summary.swapped)
    var expected = rewrite.mapValues { Array($0.utf8) }
    expected["CNAME"] = Array("example.org".utf8)
    expected[".git/HEAD"] = Array("ref".utf8)
    #expect(Tree.contents(root) == expected)
  }

  @Test("old sites left in the trash are freed by the next build that exchanges folders")
  func trashFreedAtNextSwap() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    let trash = stateFolder(root) + "/trash"
    try writeFile(trash + "/site-1/todos/1.html", "old")
    let summary = try rebuild(root, rewrite, swap: .always)
    #expect(summary.swapped)
    #expect(access(trash + "/site-1", F_OK) != 0)
  }

  @Test("a whole build gives the same bytes exchanged and file by file")
  func wholeBuild() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    var inputs = try IncrementalTests.Inputs(tmp)
    _ = try IncrementalTests.build(inputs.options)
    try IncrementalTests.copyKeepingTimes(tmp.sub("site"), tmp.sub("plain"))
    try IncrementalTests.copyKeepingTimes(tmp.sub(".site.taskpress"), tmp.sub(".plain.taskpress"))
    let before = try inode(tmp.sub("site"))
    inputs.options.title = "A new title"
    inputs.options.folderSwap = .auto
    let swapped = try IncrementalTests.build(inputs.options)
    inputs.options.output = tmp.sub("plain")
    inputs.options.folderSwap = .never
    let plain = try IncrementalTests.build(inputs.options)
    #expect(swapped.written == plain.written)
    #expect(swapped.written > swapped.unchanged)
    // Every page shows the title: the site was exchanged.
    #expect(try inode(tmp.sub("site")).st_ino != before.st_ino)
    #expect(Tree.contents(tmp.sub("site")) == Tree.contents(tmp.sub("plain")))
    #expect(try manifestLinesUnderOneKey(tmp.sub("site")) != [])
  }
}
