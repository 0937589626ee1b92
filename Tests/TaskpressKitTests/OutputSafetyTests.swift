import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct OutputSafetyTests {
  let site = ["index.html": "<h1>home</h1>", "todos/1.html": "one", "todos/2.html": "two"]

  @Test("an output path that is a file is an error")
  func outputIsFile() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    try writeFile(tmp.sub("site"), "not a folder")
    let error = outputError {
      _ = try OutputWriter(root: tmp.sub("site"), interrupt: InterruptFlag())
    }
    #expect(error?.description == "\(tmp.sub("site")): output path is a file, not a folder")
  }

  @Test(
    "errors name the output folder as given",
    arguments: [
      (
        "a//b.html",
        "contains an empty, '.' or '..' part; output paths must be plain relative paths"
      ),
      (
        "../b.html",
        "contains an empty, '.' or '..' part; output paths must be plain relative paths"
      ),
      (
        "a/./b.html",
        "contains an empty, '.' or '..' part; output paths must be plain relative paths"
      ),
      ("a/", "contains an empty, '.' or '..' part; output paths must be plain relative paths"),
      ("/etc/passwd", "is absolute; output paths are relative to the output folder"),
      (
        ".taskpress/manifest",
        "is inside '.taskpress', where earlier versions of taskpress kept their state"
      ),
      ("a\nb", "contains a control character"),
      ("", "an empty path is not a valid output file"),
    ])
  func invalidPaths(path: String, reason: String) throws {
    let writer = try OutputWriter(root: "no-such-output-folder/", interrupt: InterruptFlag())
    let error = outputError { try writer.add(path, bytes: [1]) }
    #expect(error == OutputError(path: "no-such-output-folder/" + path, reason: reason))
    writer.abort()
    #expect(access("no-such-output-folder", F_OK) != 0)
  }

  @Test("a path added twice is an error")
  func duplicate() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let writer = try OutputWriter(root: tmp.sub("site"), interrupt: InterruptFlag())
    try writer.add("a.html", bytes: [1])
    let error = outputError { try writer.add("a.html", bytes: [2]) }
    #expect(error?.description == "\(tmp.sub("site"))/a.html: was added twice in one build")
  }

  @Test("a symbolic link inside the output is never written through")
  func linkedFolder() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    try writeFile(tmp.sub("elsewhere/1.html"), "outside")
    for path in ["todos/1.html", "todos/2.html"] { unlink(root + "/" + path) }
    rmdir(root + "/todos")
    try #require(symlink(tmp.sub("elsewhere"), root + "/todos") == 0)
    try #require(symlink(tmp.sub("elsewhere/1.html"), root + "/index.html.tmp") == 0)
    unlink(root + "/index.html")
    try #require(rename(root + "/index.html.tmp", root + "/index.html") == 0)
    let before = Tree.snapshot(tmp.path)

    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    let folderError = outputError { try writer.add("todos/1.html", bytes: Array("new".utf8)) }
    #expect(
      folderError?.description
        == "\(root)/todos: is a symbolic link; taskpress does not write through links")
    let fileError = outputError { try writer.add("index.html", bytes: Array("new".utf8)) }
    #expect(
      fileError?.description
        == "\(root)/index.html: is a symbolic link; taskpress does not write through links")
    let streamError = outputError {
      let file = try writer.openFile("todos/9.html")
      try file.write([1, 2, 3])
      try writer.add(file)
    }
    #expect(streamError?.reason == OutputError.symbolicLink)
    writer.abort()
    #expect(Tree.snapshot(tmp.path) == before)

    // Removing stale files does not follow the link either.
    let summary = try build(root, ["other.html": "x"])
    #expect(summary.removed == 0)
    #expect(readFile(tmp.sub("elsewhere/1.html")) == Array("outside".utf8))
  }

  @Test(
    "a full disk while staging names the file and leaves the site unchanged",
    .enabled(if: canMountTmpfs, "needs root with the right to mount a tmpfs"))
  func fullDisk() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let mountPoint = tmp.sub("disk")
    try makeFolders(mountPoint)
    try #require(mount("tmpfs", mountPoint, "tmpfs", 0, "size=1m") == 0)
    defer { umount2(mountPoint, Int32(MNT_DETACH)) }
    let root = mountPoint + "/site"
    try build(root, site)
    let before = Tree.snapshot(root)
    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    try writer.add("index.html", bytes: Array("changed".utf8))
    let big = [UInt8](repeating: 7, count: 2 << 20)
    let error = outputError { try writer.add("todos/3.html", bytes: big) }
    #expect(error?.description == "\(root)/todos/3.html: no space left on device")
    let streamError = outputError {
      let file = try writer.openFile("todos/4.html")
      for _ in 0..<40 { try file.write([UInt8](repeating: 1, count: 1 << 16)) }
      try writer.add(file)
    }
    #expect(streamError?.description == "\(root)/todos/4.html: no space left on device")
    writer.abort()
    #expect(Tree.snapshot(root) == before)
  }

  @Test("a commit stopped midway is repaired by the next build", arguments: [0, 1, 3])
  func interruptedCommit(steps: Int) throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try writeFile(root + "/CNAME", "example.org")
    try build(root, site.merging(["old.html": "old"]) { a, _ in a })
    let next = [
      "index.html": "<h1>new home</h1>", "todos/1.html": "ONE", "todos/3.html": "three",
      "new/a.html": "a",
    ]
    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    writer.commitStepLimit = steps
    for (path, text) in next { try writer.add(path, bytes: Array(text.utf8)) }
    // Any error: the stop is the test hook `commitStepLimit`; what users see is the repair.
    #expect(outputError { _ = try writer.commit() } != nil)
    #expect(access(stateFolder(root) + "/commit-in-progress", F_OK) == 0)

    // The next build differs again: files the stopped commit put in place are still known.
    let final = ["index.html": "<h1>final</h1>", "todos/3.html": "THREE", "new/b.html": "b"]
    let repair = try OutputWriter(root: root, interrupt: InterruptFlag())
    #expect(repair.repairing)
    for (path, text) in final { try repair.add(path, bytes: Array(text.utf8)) }
    let summary = try repair.commit()
    #expect(summary.repaired)

    let clean = tmp.sub("clean")
    try writeFile(clean + "/CNAME", "example.org")
    try build(clean, final)
    #expect(Tree.contents(root) == Tree.contents(clean))
    #expect(Tree.snapshot(root).keys.sorted() == Tree.snapshot(clean).keys.sorted())
    #expect(access(stateFolder(root) + "/commit-in-progress", F_OK) != 0)
    #expect(
      try build(root, final)
        == OutputSummary(
          written: 0, unchanged: 3, removed: 0, repaired: false, writtenPaths: [], removedPaths: [],
          warnings: []))
  }

  @Test("a repaired build verifies bytes, not the recorded hashes")
  func repairComparesBytes() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    // A hand edit, or a killed commit, may leave a file whose size and mtime match the record
    // but not its bytes.
    let manifest = try #require(readFile(stateFolder(root) + "/manifest"))
    let line = String(decoding: manifest, as: UTF8.self).split(separator: "\n")
      .first { $0.hasSuffix(" todos/1.html") }
    let recorded = try #require(line.flatMap { Int64($0.split(separator: " ")[2]) })
    try writeFile(root + "/todos/1.html", "eno")
    let time = timespec(
      tv_sec: Int(recorded / 1_000_000_000), tv_nsec: Int(recorded % 1_000_000_000))
    var times = [time, time]
    try #require(utimensat(AT_FDCWD, root + "/todos/1.html", &times, 0) == 0)
    #expect(modificationTime(root + "/todos/1.html") == recorded)
    // Without the marker too: the status change time moved past the stamps' (issue 41).
    let plain = try build(root, site)
    #expect(!plain.repaired)
    #expect(plain.writtenPaths == ["todos/1.html"])
    #expect(Tree.contents(root)["todos/1.html"] == Array("one".utf8))

    // The same edit again, and a marker: the repair compares bytes as well.
    let manifestAgain = try #require(readFile(stateFolder(root) + "/manifest"))
    let again = try #require(
      String(decoding: manifestAgain, as: UTF8.self).split(separator: "\n")
        .first { $0.hasSuffix(" todos/1.html") }.flatMap { Int64($0.split(separator: " ")[2]) })
    try writeFile(root + "/todos/1.html", "eno")
    let againTime = timespec(
      tv_sec: Int(again / 1_000_000_000), tv_nsec: Int(again % 1_000_000_000))
    var againTimes = [againTime, againTime]
    try #require(utimensat(AT_FDCWD, root + "/todos/1.html", &againTimes, 0) == 0)
    try writeFile(stateFolder(root) + "/commit-in-progress", "taskpress\n")

    let summary = try build(root, site)
    #expect(summary.repaired)
    #expect(summary.writtenPaths == ["todos/1.html"])
    #expect(Tree.contents(root)["todos/1.html"] == Array("one".utf8))
  }

  @Test("an interrupt before the commit leaves the site unchanged")
  func interruptBeforeCommit() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    let before = Tree.snapshot(tmp.path)
    let flag = InterruptFlag()
    let writer = try OutputWriter(root: root, interrupt: flag)
    try writer.add("index.html", bytes: Array("changed".utf8))
    flag.set()
    let addError = outputError { try writer.add("todos/1.html", bytes: Array("x".utf8)) }
    #expect(addError?.reason == OutputError.interrupted)
    let error = outputError { _ = try writer.commit() }
    #expect(error?.description == "\(root): interrupted; the output folder was left unchanged")
    #expect(Tree.snapshot(tmp.path) == before)
    #expect(flag.signal == SIGINT)
  }

  @Test("two writers cannot write one folder at once")
  func exclusive() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    let first = try OutputWriter(root: root, interrupt: InterruptFlag())
    let error = outputError { _ = try OutputWriter(root: root, interrupt: InterruptFlag()) }
    #expect(
      error?.description
        == "\(root): another taskpress build is writing to this folder; wait for it to finish")
    first.abort()
    #expect(try build(root, site).unchanged == 3)
  }

  @Test("a file of an earlier build may give way to a folder")
  func fileBecomesFolder() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, ["todos": "a file"])
    let summary = try build(root, ["todos/1.html": "one"])
    #expect(summary.removedPaths == ["todos"])
    #expect(Tree.contents(root) == ["todos/1.html": Array("one".utf8)])
  }
}

/// Whether this process may mount a tmpfs (root, outside a restricted container).
/// `TASKPRESS_TEST_NO_TMPFS=1` says no, to see the tests that need one skipped.
private let canMountTmpfs: Bool = {
  guard getenv("TASKPRESS_TEST_NO_TMPFS") == nil else { return false }
  let probe = "/tmp/taskpress-mount-probe-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
  guard mkdir(probe, 0o700) == 0 else { return false }
  defer { rmdir(probe) }
  guard mount("tmpfs", probe, "tmpfs", 0, "size=64k") == 0 else { return false }
  umount2(probe, Int32(MNT_DETACH))
  return true
}()
