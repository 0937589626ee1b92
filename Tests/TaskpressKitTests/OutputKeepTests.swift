import Foundation
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Keeping files of the previous build without their bytes, and what the commit then removes.
@Suite struct OutputKeepTests {
  let site = [
    "index.html": "home", "todos/1.html": "one", "todos/2.html": "two", "todos/3.html": "three",
  ]

  /// A rebuild of `root` that keeps `kept` and adds `added` (path -> text); returns what the
  /// commit reported and whether each kept path was kept.
  func rebuild(_ root: String, keeping kept: [String], adding added: [String: String]) throws
    -> (summary: OutputSummary, kept: [Bool])
  {
    let writer = try OutputWriter(root: root)
    let wasKept = try writer.keep(kept)
    for (path, text) in added { try writer.add(path, bytes: Array(text.utf8)) }
    return (try writer.commit(), wasKept)
  }

  func manifestPaths(_ root: String) throws -> [String] {
    let text = String(
      decoding: try #require(readFile(stateFolder(root) + "/manifest")), as: UTF8.self)
    return text.split(separator: "\n").dropFirst().filter { !$0.hasPrefix("folder ") }.map {
      String($0.split(separator: " ", maxSplits: 3)[3])
    }
  }

  @Test("a rebuild that keeps every file it does not write removes nothing")
  func keepsAll() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    let (summary, kept) = try rebuild(
      root, keeping: ["index.html", "todos/1.html", "todos/2.html"],
      adding: ["todos/3.html": "three again", "todos/4.html": "four"])
    #expect(kept == [true, true, true])
    #expect(summary.written == 2)
    #expect(summary.unchanged == 3)
    #expect(summary.removedPaths == [])
    var expected = site
    expected["todos/3.html"] = "three again"
    expected["todos/4.html"] = "four"
    #expect(Tree.contents(root) == expected.mapValues { Array($0.utf8) })
    #expect(try manifestPaths(root) == expected.keys.sorted())
  }

  @Test("a rebuild that keeps most files removes exactly the previous ones it has not")
  func keepsMost() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    // As many files added as the previous build had: the count alone cannot tell.
    let (summary, _) = try rebuild(
      root, keeping: ["index.html", "todos/1.html"],
      adding: ["todos/2.html": "two", "todos/5.html": "five"])
    #expect(summary.removedPaths == ["todos/3.html"])
    #expect(summary.written == 1)
    #expect(summary.unchanged == 3)
    let expected = [
      "index.html": "home", "todos/1.html": "one", "todos/2.html": "two", "todos/5.html": "five",
    ]
    #expect(Tree.contents(root) == expected.mapValues { Array($0.utf8) })
    #expect(try manifestPaths(root) == expected.keys.sorted())
  }

  @Test("a rebuild that keeps few files removes the previous ones it has not")
  func keepsFew() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    let (summary, _) = try rebuild(
      root, keeping: ["index.html"], adding: ["todos/2.html": "two", "todos/6.html": "six"])
    #expect(summary.removedPaths == ["todos/1.html", "todos/3.html"])
    let expected = ["index.html": "home", "todos/2.html": "two", "todos/6.html": "six"]
    #expect(Tree.contents(root) == expected.mapValues { Array($0.utf8) })
    #expect(try manifestPaths(root) == expected.keys.sorted())
  }

  @Test("a kept file edited by hand is not kept, and is written again")
  func editedByHand() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    try writeFile(root + "/todos/1.html", "edited")
    let writer = try OutputWriter(root: root)
    #expect(try writer.keep(["todos/1.html", "todos/2.html"]) == [false, true])
    try writer.add("todos/1.html", bytes: Array("one".utf8))
    try writer.add("index.html", bytes: Array("home".utf8))
    let summary = try writer.commit()
    #expect(summary.writtenPaths == ["todos/1.html"])
    #expect(summary.removedPaths == ["todos/3.html"])
    #expect(readFile(root + "/todos/1.html") == Array("one".utf8))
  }

  // MARK: - Carrying files over (`carryOver(_:)`)

  /// The manifest of `root` without its modification times: each file's hash, size and path,
  /// and the folders.
  func manifestWithoutTimes(_ root: String) throws -> [String] {
    try Array(manifestLinesUnderOneKey(root).dropFirst())
  }

  /// A previous site with files on both sides of the ones a rebuild adds, and in a folder of
  /// its own.
  let wideSite = [
    "a.html": "a", "index.html": "home", "todos/1.html": "one", "todos/2.html": "two",
    "todos/3.html": "three", "zz/x.html": "x", "zz/y.html": "y",
  ]

  @Test(
    "carried files stay untouched, the rest of the previous build goes, as when each is kept")
  func carriesOver() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let carriedRoot = tmp.sub("carried")
    let keptRoot = tmp.sub("kept")
    try build(carriedRoot, wideSite)
    try build(keptRoot, wideSite)
    let before = try #require(FileSystem.statNoFollow(AT_FDCWD, carriedRoot + "/zz/x.html"))
    let carriedPaths: Set<String> = ["a.html", "index.html", "todos/1.html", "zz/x.html"]
    let added = ["index.html": "new home", "todos/2.html": "two", "todos/4.html": "four"]

    let writer = try OutputWriter(root: carriedRoot)
    #expect(writer.previousFilesChanged() == [])
    // index.html is both added and carried: added wins.
    writer.carryOver(PathKeys(paths: carriedPaths, keyedBy: .fingerprintRecord))
    for (path, text) in added { try writer.add(path, bytes: Array(text.utf8)) }
    let carried = try writer.commit()

    let (kept, wasKept) = try rebuild(
      keptRoot, keeping: ["a.html", "todos/1.html", "zz/x.html"], adding: added)
    #expect(wasKept == [true, true, true])

    #expect(carried == kept)
    #expect(carried.writtenPaths == ["index.html", "todos/4.html"])
    #expect(carried.unchanged == 4)
    #expect(carried.removedPaths == ["todos/3.html", "zz/y.html"])
    var expected = wideSite
    for path in ["todos/3.html", "zz/y.html"] { expected[path] = nil }
    for (path, text) in added { expected[path] = text }
    #expect(Tree.contents(carriedRoot) == expected.mapValues { Array($0.utf8) })
    #expect(try manifestPaths(carriedRoot) == expected.keys.sorted())
    #expect(try manifestWithoutTimes(carriedRoot) == manifestWithoutTimes(keptRoot))
    let after = try #require(FileSystem.statNoFollow(AT_FDCWD, carriedRoot + "/zz/x.html"))
    #expect(after.st_ino == before.st_ino)
    #expect(after.modificationNanoseconds == before.modificationNanoseconds)

    // The next build finds the carried files as the manifest says: all intact.
    #expect(try OutputWriter(root: carriedRoot).previousFilesChanged() == [])
  }

  @Test("files to carry over are named by the keys of their paths, sorted, each once")
  func pathKeys() {
    let paths = ["todos/2.html", "index.html", "todos/10.html", "index.html"]
    let keys = paths.map(FingerprintRecord.key)
    let named = PathKeys(keys, keyedBy: .fingerprintRecord)
    #expect(named.keys == Set(keys).sorted())
    #expect(named.count == 3)
    #expect(PathKeys(named.keys, keyedBy: .fingerprintRecord) == named)
    #expect(PathKeys(paths: paths, keyedBy: .fingerprintRecord) == named)
    for path in paths + ["todos/1.html", "", "index.htm"] {
      let found = Array(path.utf8).withUnsafeBufferPointer { named.contains(path: $0) }
      #expect(found == paths.contains(path), "\(path)")
    }
    #expect(PathKeys([], keyedBy: .fingerprintRecord).count == 0)
  }

  @Test("a rebuild that carries every file it does not write changes nothing else")
  func carriesAll() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, wideSite)
    let manifest = try manifestWithoutTimes(root)
    let writer = try OutputWriter(root: root)
    writer.carryOver(PathKeys(paths: wideSite.keys, keyedBy: .fingerprintRecord))
    try writer.add("todos/2.html", bytes: Array("two".utf8))
    let summary = try writer.commit()
    #expect(summary.written == 0)
    #expect(summary.unchanged == wideSite.count)
    #expect(summary.removed == 0)
    #expect(Tree.contents(root) == wideSite.mapValues { Array($0.utf8) })
    #expect(try manifestWithoutTimes(root) == manifest)
  }

  @Test("the files changed since the last build are those edited, deleted or made links")
  func changedFiles() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, wideSite)
    try writeFile(root + "/todos/1.html", "edited")
    try FileManager.default.removeItem(atPath: root + "/zz/x.html")
    try FileManager.default.removeItem(atPath: root + "/a.html")
    try FileManager.default.createSymbolicLink(atPath: root + "/a.html", withDestinationPath: "x")
    let writer = try OutputWriter(root: root)
    #expect(writer.previousFilesChanged().sorted() == ["a.html", "todos/1.html", "zz/x.html"])
    #expect(!writer.previousFilesAreIntact())
    writer.abort()
  }

  @Test("a commit that would carry fewer files than expected fails and changes nothing")
  func carriesFewerThanExpected() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    let writer = try OutputWriter(root: root)
    // todos/9.html is not a file of the last build.
    let carried: Set<String> = ["todos/1.html", "todos/2.html", "todos/9.html"]
    writer.carryOver(PathKeys(paths: carried, keyedBy: .fingerprintRecord))
    try writer.add("index.html", bytes: Array("new home".utf8))
    let error = outputError { _ = try writer.commit() }
    #expect(
      error?.reason.contains("names 2 of the 3 kept files") == true, "\(String(describing: error))")
    #expect(Tree.contents(root) == site.mapValues { Array($0.utf8) })
    #expect(try OutputWriter(root: root).previousFilesChanged() == [])
  }

  @Test("after an interrupted commit no file is trusted, and none is carried over")
  func carriesNothingWhileRepairing() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    try writeFile(stateFolder(root) + "/commit-in-progress", "taskpress\n")
    let writer = try OutputWriter(root: root)
    #expect(writer.repairing)
    #expect(writer.previousFilesChanged().sorted() == site.keys.sorted())
    writer.carryOver(PathKeys(paths: site.keys, keyedBy: .fingerprintRecord))
    try writer.add("index.html", bytes: Array("home".utf8))
    let summary = try writer.commit()
    #expect(summary.removedPaths == ["todos/1.html", "todos/2.html", "todos/3.html"])
    #expect(Tree.contents(root) == ["index.html": Array("home".utf8)])
  }

  @Test("a folder is locked by the first step of opening it, and its state read by the second")
  func lockThenLoad() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    // A folder that does not exist yet: made and locked, with nothing of a previous build.
    let locked = try OutputWriter.lock(root: root)
    #expect(FileManager.default.fileExists(atPath: root))
    let blocked = outputError { _ = try OutputWriter.lock(root: root) }
    #expect(blocked?.reason.contains("another taskpress build is writing") == true)
    let first = try OutputWriter(loading: locked)
    #expect(first.previousFileCount == 0)
    try first.add("index.html", bytes: Array("home".utf8))
    _ = try first.commit()

    let holding = try OutputWriter.lock(root: root)
    let error = outputError { _ = try OutputWriter(root: root) }
    #expect(error?.reason.contains("another taskpress build is writing") == true)
    let loaded = try OutputWriter(loading: holding)
    #expect(loaded.previousFileCount == 1)
    loaded.abort()
  }

  @Test("a locked folder let go of unloaded is unlocked, and removed when the lock made it")
  func lockLetGo() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("made/site")
    do {
      _ = try OutputWriter.lock(root: root)
    }
    #expect(!FileManager.default.fileExists(atPath: tmp.sub("made")))
    try build(root, site)
    do {
      _ = try OutputWriter.lock(root: root)
    }
    let writer = try OutputWriter(root: root)
    #expect(writer.previousFileCount == site.count)
    writer.abort()
    #expect(Tree.contents(root) == site.mapValues { Array($0.utf8) })
  }

  @Test("the unverified inputs key is what the state folder holds; the locked read checks it")
  func unverifiedInputs() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    #expect(LastRecords.unverifiedInputsKey(ofOutput: root) == nil)
    try build(root, site)
    #expect(LastRecords.unverifiedInputsKey(ofOutput: root) == nil)
    let writer = try OutputWriter(root: root)
    writer.recordInputs("key one\n3\n0\n")
    writer.abort()
    let recorded = try #require(InputsRecord("key one\n3\n0\n"))
    #expect(LastRecords.unverifiedInputsKey(ofOutput: root) == "key one")
    #expect(try LastRecords(writer: OutputWriter(root: root)).inputs == recorded)
    // A record of another manifest: a writer ignores it, the guess does not.
    try build(root, ["index.html": "new home"])
    #expect(LastRecords.unverifiedInputsKey(ofOutput: root) == "key one")
    #expect(try LastRecords(writer: OutputWriter(root: root)).inputs == nil)
    #expect(InputsRecord.key(of: "key one\n3\n0\n") == "key one")
  }
}
