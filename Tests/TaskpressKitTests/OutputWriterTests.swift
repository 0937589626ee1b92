import Dispatch
import Foundation
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct OutputWriterTests {
  @Test("a path splits into its folder and its name at the last slash")
  func splitPaths() {
    #expect(OutputPath.split("todos/7.html") == ("todos", "7.html"))
    #expect(OutputPath.split("a/b/c.html") == ("a/b", "c.html"))
    #expect(OutputPath.split("index.html") == ("", "index.html"))
    #expect(OutputPath.split("å/é.html") == ("å", "é.html"))
    #expect(OutputPath.split("") == ("", ""))
    #expect(OutputPath.split("/x") == ("", "x"))
  }

  let site = ["index.html": "<h1>home</h1>", "todos/1.html": "one", "todos/2.html": "two"]

  @Test("a first build writes every file and records them in the manifest")
  func firstBuild() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("out/site")
    let summary = try build(root, site)
    #expect(summary.written == 3)
    #expect(summary.unchanged == 0)
    #expect(summary.removed == 0)
    #expect(!summary.repaired)
    #expect(summary.writtenPaths == ["index.html", "todos/1.html", "todos/2.html"])
    #expect(Tree.contents(root) == site.mapValues { Array($0.utf8) })
    // The state is beside the site, not in it.
    #expect(
      Tree.snapshot(root).keys.filter { $0.hasPrefix(Tree.statePrefix) }.sorted() == [
        Tree.statePrefix + "key", Tree.statePrefix + "manifest", Tree.statePrefix + "stamped",
      ])
    #expect(
      Tree.snapshot(tmp.sub("out"), includeState: false).keys.filter { !$0.contains("/") }.sorted()
        == [
          ".site.taskpress", "site",
        ])
  }

  @Test("the manifest is sorted text: hash, size, mtime, path; then created folders")
  func manifestText() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, ["b.html": "bb", "a/x.html": "x", "a.html": "a"])
    let text = String(
      decoding: try #require(readFile(stateFolder(root) + "/manifest")), as: UTF8.self)
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.count == 5)
    #expect(lines.first == "taskpress-manifest 2")
    #expect(lines.last == "folder a")
    let paths = lines.dropFirst().dropLast().map { $0.split(separator: " ", maxSplits: 3)[3] }
    #expect(paths == ["a.html", "a/x.html", "b.html"])
    let mtime = try #require(modificationTime(root + "/b.html"))
    let key = try #require(HashKey.of(stateFolder: stateFolder(root)))
    #expect(lines[3] == "\(key.hash(Array("bb".utf8)).hex) 2 \(mtime) b.html")
  }

  @Test("a file added with its hash made already is recorded and compared like any other")
  func addWithKnownHash() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    let bytes = Array("a photo".utf8)
    for round in 0..<2 {
      let writer = try OutputWriter(root: root)
      try writer.add("photos/p.jpg", bytes: bytes, hash: writer.hashKey.hash(bytes))
      let summary = try writer.commit()
      #expect(summary.written == (round == 0 ? 1 : 0))
      #expect(summary.unchanged == (round == 0 ? 0 : 1))
      let text = String(
        decoding: try #require(readFile(stateFolder(root) + "/manifest")), as: UTF8.self)
      let key = try #require(HashKey.of(stateFolder: stateFolder(root)))
      #expect(text.contains("\(key.hash(bytes).hex) 7 "))
    }
  }

  @Test("a file added from a buffer is the buffer's bytes, recorded like any other")
  func addFromBuffer() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    let bytes = Array("<p>a page</p>".utf8)
    for round in 0..<2 {
      let writer = try OutputWriter(root: root)
      try bytes.withUnsafeBytes { try writer.add("todos/1.html", contentsOf: $0) }
      try writer.add("todos/2.html", contentsOf: UnsafeRawBufferPointer(start: nil, count: 0))
      let summary = try writer.commit()
      #expect(summary.written == (round == 0 ? 2 : 0))
      #expect(summary.unchanged == (round == 0 ? 0 : 2))
      #expect(readFile(root + "/todos/1.html") == bytes)
      #expect(readFile(root + "/todos/2.html") == [])
      let text = String(
        decoding: try #require(readFile(stateFolder(root) + "/manifest")), as: UTF8.self)
      let key = try #require(HashKey.of(stateFolder: stateFolder(root)))
      #expect(text.contains("\(key.hash(bytes).hex) 13 "))
    }
  }

  @Test("files added together are written and recorded as files added one by one")
  func addTogether() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let paths = ["index.html", "todos/1.html", "todos/2.html", "page/2.html", "todos/3.html"]
    let pages = paths.map { Array("<p>\($0)</p>".utf8) }
    var manifests: [String] = []
    for together in [false, true] {
      let root = tmp.sub(together ? "together" : "one-by-one")
      for round in 0..<2 {
        let writer = try OutputWriter(root: root)
        if together {
          let contents = pages.flatMap { $0 }
          var ends: [Int] = []
          for page in pages { ends.append((ends.last ?? 0) + page.count) }
          try contents.withUnsafeBytes { try writer.add(paths, contents: $0, ends: ends) }
        } else {
          for (path, bytes) in zip(paths, pages) {
            try bytes.withUnsafeBytes { try writer.add(path, contentsOf: $0) }
          }
        }
        let summary = try writer.commit()
        #expect(summary.written == (round == 0 ? paths.count : 0))
        #expect(summary.unchanged == (round == 0 ? 0 : paths.count))
      }
      #expect(Tree.contents(root) == Dictionary(uniqueKeysWithValues: zip(paths, pages)))
      // The same lines but for the modification times, and the hashes checked under each
      // folder's key.
      manifests.append(try manifestLinesUnderOneKey(root).joined(separator: "\n"))
    }
    #expect(manifests[0] == manifests[1])
  }

  @Test(
    "files added together: a path given twice or added before fails naming it and claims none; a file that fails keeps the ones before it"
  )
  func addTogetherFailures() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    // A folder of the user's, in the way of the third file of a call below (a file of the
    // user's is refused by the commit, with every other one).
    try FileManager.default.createDirectory(
      atPath: root + "/a/3.html", withIntermediateDirectories: true)
    let writer = try OutputWriter(root: root)
    let page = Array("<p>page</p>".utf8)
    /// Adds `paths` together, each with the bytes of `page`, from one buffer.
    func add(_ paths: [String]) throws {
      let contents = Array(repeating: page, count: paths.count).flatMap { $0 }
      let ends = paths.indices.map { ($0 + 1) * page.count }
      try contents.withUnsafeBytes { try writer.add(paths, contents: $0, ends: ends) }
    }
    try writer.add("todos/1.html", bytes: page)
    // Twice in one call, and one added before: nothing of the call is claimed.
    for paths in [
      ["todos/2.html", "todos/3.html", "todos/2.html"], ["todos/4.html", "todos/1.html"],
    ] {
      let error = outputError { try add(paths) }
      #expect(error?.reason == "was added twice in one build")
      #expect(error?.path == root + "/" + paths.last!)
    }
    let bad = outputError { try add(["todos/5.html", "../out.html"]) }
    #expect(bad?.path == root + "/../out.html")
    // Those paths were given back: they can be added now.
    try add(["todos/2.html", "todos/3.html", "todos/4.html", "todos/5.html"])
    // The third file of a call fails: the two before it stay added, the rest are given back.
    let third = outputError { try add(["a/1.html", "a/2.html", "a/3.html", "a/4.html"]) }
    #expect(third?.path == root + "/a/3.html")
    try add(["a/4.html"])
    #expect(
      outputError { try writer.add("a/2.html", bytes: page) }?.reason
        == "was added twice in one build")
    let summary = try writer.commit()
    #expect(summary.written == 8)
    #expect(
      Tree.contents(root)
        == Dictionary(
          uniqueKeysWithValues: [
            "todos/1.html", "todos/2.html", "todos/3.html", "todos/4.html", "todos/5.html",
            "a/1.html", "a/2.html", "a/4.html",
          ].map { ($0, page) }
        ))
    #expect(FileManager.default.fileExists(atPath: root + "/a/3.html"))
  }

  @Test("an unchanged file keeps its bytes, its modification time and its inode")
  func unchangedKeepsMtime() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    // Aged files: the manifest's recorded mtime no longer matches, so bytes are compared.
    try ageFile(root + "/todos/1.html", by: 5)
    let before = Tree.snapshot(root, includeState: false)
    let summary = try build(root, site)
    #expect(summary.written == 0)
    #expect(summary.unchanged == 3)
    #expect(summary.removed == 0)
    #expect(Tree.snapshot(root, includeState: false) == before)
    // And once more, now trusting the refreshed manifest.
    #expect(try build(root, site).unchanged == 3)
    #expect(Tree.snapshot(root, includeState: false) == before)
  }

  @Test("changed files are replaced, stale ones removed, emptied folders removed")
  func changedAndStale() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site.merging(["old/gone.html": "bye"]) { a, _ in a })
    let summary = try build(root, ["index.html": "<h1>new home</h1>", "todos/1.html": "one"])
    #expect(summary.written == 1)
    #expect(summary.writtenPaths == ["index.html"])
    #expect(summary.unchanged == 1)
    #expect(summary.removed == 2)
    #expect(summary.removedPaths == ["old/gone.html", "todos/2.html"])
    #expect(
      Tree.contents(root) == [
        "index.html": Array("<h1>new home</h1>".utf8), "todos/1.html": Array("one".utf8),
      ])
    #expect(access(root + "/old", F_OK) != 0)
  }

  @Test("files taskpress did not write are kept, even in folders it uses")
  func userFilesKept() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try writeFile(root + "/CNAME", "example.org")
    try writeFile(root + "/.git/config", "[core]")
    try build(root, site.merging(["extra/page.html": "generated"]) { a, _ in a })
    try writeFile(root + "/todos/extra.html", "mine")
    try writeFile(root + "/extra/notes.txt", "mine too")
    let summary = try build(root, ["index.html": "home"])
    #expect(summary.removedPaths == ["extra/page.html", "todos/1.html", "todos/2.html"])
    #expect(
      Tree.contents(root) == [
        "CNAME": Array("example.org".utf8), ".git/config": Array("[core]".utf8),
        "index.html": Array("home".utf8), "todos/extra.html": Array("mine".utf8),
        "extra/notes.txt": Array("mine too".utf8),
      ])
    // The folder it created stays recorded: removed once it is empty.
    unlink(root + "/extra/notes.txt")
    try build(root, ["index.html": "home"])
    #expect(access(root + "/extra", F_OK) != 0)
    #expect(access(root + "/todos", F_OK) == 0)
  }

  @Test("a file in the way that taskpress did not write is refused, unless identical")
  func foreignFile() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try writeFile(root + "/about.html", "hand made")
    try writeFile(root + "/same.html", "same")
    let before = Tree.snapshot(root)
    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    try writer.add("index.html", bytes: Array("home".utf8))
    try writer.add("about.html", bytes: Array("generated".utf8))
    let error = outputError { _ = try writer.commit() }
    #expect(
      error?.description
        == "\(root)/about.html: exists and was not written by taskpress; move it away or delete it")
    writer.abort()
    #expect(Tree.snapshot(root) == before)

    // Several: every one named in one error, sorted, up to ten and how many more.
    for index in 1...12 { try writeFile(root + "/own\(index).html", "mine") }
    let several = try OutputWriter(root: root, interrupt: InterruptFlag())
    for index in (1...12).reversed() {
      try several.add("own\(index).html", bytes: Array("generated".utf8))
    }
    try several.add("about.html", bytes: Array("generated".utf8))
    #expect(
      outputError { _ = try several.commit() }?.description
        == "\(root): 13 files taskpress would write exist and were not written by it: "
        + "'about.html', 'own1.html', 'own10.html', 'own11.html', 'own12.html', 'own2.html', "
        + "'own3.html', 'own4.html', 'own5.html', 'own6.html' and 3 more; move them away or "
        + "delete them")
    several.abort()
    for index in 1...12 { try FileManager.default.removeItem(atPath: root + "/own\(index).html") }

    let summary = try build(root, ["same.html": "same", "index.html": "home"])
    #expect(summary.unchanged == 1)
    #expect(summary.written == 1)
    // Adopted: a later build may now replace it.
    #expect(try build(root, ["same.html": "changed"]).writtenPaths == ["same.html"])
    #expect(Tree.contents(root)["about.html"] == Array("hand made".utf8))
  }

  /// What the output folder holds before a build: nothing, a site, or only a user's file.
  enum Existing: CaseIterable {
    case nothing, site, userFile
  }

  @Test(
    "an aborted build changes nothing, not even the times of the folders it staged in",
    arguments: Existing.allCases)
  func abortChangesNothing(existing: Existing) throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    switch existing {
    case .nothing:
      break
    case .site:
      try build(root, site)
      try writeFile(root + "/CNAME", "example.org")
    case .userFile:
      try makeFolders(root)
      try writeFile(root + "/notes.txt", "mine")
    }
    let folders = [tmp.path, root, stateFolder(root)]
    for folder in folders where modificationTime(folder) != nil {
      try ageFile(folder, by: 60)
    }
    let before = Tree.snapshot(tmp.path)
    let times = folders.map(modificationTime)
    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    try writer.add("index.html", bytes: Array("changed".utf8))
    try writer.add("new/page.html", bytes: Array("new".utf8))
    let streamed = try writer.openFile("todos/1.html")
    try streamed.write(Array("streamed".utf8))
    try writer.add(streamed)
    writer.abort()
    #expect(Tree.snapshot(tmp.path) == before)
    #expect(folders.map(modificationTime) == times)
    // Any error: a commit after an abort is a programming mistake no user can make, and
    // this test is about what the abort left.
    #expect(outputError { _ = try writer.commit() } != nil)
  }

  @Test("releasing a writer without committing is an abort")
  func releaseAborts() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, site)
    let before = Tree.snapshot(tmp.path)
    do {
      let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
      try writer.add("index.html", bytes: Array("changed".utf8))
    }
    #expect(Tree.snapshot(tmp.path) == before)
  }

  @Test("files can be added from many threads at once")
  func concurrentAdds() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    let count = 2000
    let failures = Failures()
    DispatchQueue.concurrentPerform(iterations: count) { i in
      do {
        try writer.add("p\(i % 7)/\(i).html", bytes: Array("page \(i)".utf8))
      } catch {
        failures.append("\(error)")
      }
    }
    #expect(failures.all.isEmpty)
    let summary = try writer.commit()
    #expect(summary.written == count)
    let contents = Tree.contents(root)
    #expect(contents.count == count)
    #expect(contents["p6/1000.html"] == Array("page 1000".utf8))
    #expect(try build(root, [:]).removed == count)
    #expect(Tree.snapshot(root, includeState: false).isEmpty)
  }

  @Test("a large streamed file is written, then recognized as unchanged, then replaced")
  func largeStream() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    let size = 40 << 20
    func produce(_ sink: StreamedFile, lastByte: UInt8) throws {
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      var state: UInt64 = 0x1234_5678
      var written = 0
      while written < size {
        for i in chunk.indices {
          state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
          chunk[i] = UInt8(truncatingIfNeeded: state >> 56)
        }
        if written + chunk.count == size { chunk[chunk.count - 1] = lastByte }
        try sink.write(chunk)
        written += chunk.count
      }
    }
    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    var hasher = SipHasher(key: writer.hashKey)
    let big = try writer.openFile("photos/big.bin")
    try produce(big, lastByte: 1)
    try writer.add(big)
    let summary = try writer.commit()
    #expect(summary.writtenPaths == ["photos/big.bin"])
    let bytes = try #require(readFile(root + "/photos/big.bin"))
    #expect(bytes.count == size)
    hasher.update(bytes)
    let manifest = String(
      decoding: try #require(readFile(stateFolder(root) + "/manifest")), as: UTF8.self)
    #expect(manifest.contains("\(hasher.finalize().hex) \(size) "))

    try ageFile(root + "/photos/big.bin", by: 3)
    let aged = modificationTime(root + "/photos/big.bin")
    let again = try OutputWriter(root: root, interrupt: InterruptFlag())
    let same = try again.openFile("photos/big.bin")
    try produce(same, lastByte: 1)
    try again.add(same)
    #expect(try again.commit().unchanged == 1)
    #expect(modificationTime(root + "/photos/big.bin") == aged)

    let changed = try OutputWriter(root: root, interrupt: InterruptFlag())
    let other = try changed.openFile("photos/big.bin")
    try produce(other, lastByte: 2)
    try changed.add(other)
    #expect(try changed.commit().written == 1)
    let last = try #require(readFile(root + "/photos/big.bin"))
    #expect(last.count == size)
    #expect(last.last == 2)
    #expect(Array(last.dropLast()) == Array(bytes.dropLast()))
  }

  @Test("a streamed file given up part way leaves nothing staged and its path free")
  func streamGivenUp() throws {
    struct Stopped: Error {}
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, ["f.txt": "old contents", "index.html": "index"])
    func stagedFiles() -> [String] {
      let staging = stateFolder(root) + "/" + OutputWriter.stagingFolder
      guard let walk = FileManager.default.enumerator(atPath: staging) else { return [] }
      return walk.compactMap { $0 as? String }.filter { name in
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: staging + "/" + name, isDirectory: &isFolder)
        return !isFolder.boolValue
      }
    }
    // Given up by the code writing it, after its bytes left the old file's (so staged), in a
    // new folder, and before any byte.
    func giveUp(_ writer: OutputWriter) throws {
      #expect(throws: Stopped.self) {
        let file = try writer.openFile("f.txt")
        try file.write(Array("old".utf8))
        try file.write(Array(" and new".utf8))
        throw Stopped()
      }
      #expect(throws: Stopped.self) {
        let file = try writer.openFile("new/big.bin")
        try file.write([UInt8](repeating: 7, count: 200 << 10))
        throw Stopped()
      }
      #expect(throws: Stopped.self) {
        _ = try writer.openFile("empty.txt")
        throw Stopped()
      }
      #expect(stagedFiles().isEmpty)
    }
    let before = Tree.snapshot(tmp.path)
    let aborted = try OutputWriter(root: root, interrupt: InterruptFlag())
    try giveUp(aborted)
    aborted.abort()
    #expect(Tree.snapshot(tmp.path) == before)

    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    try giveUp(writer)
    // The paths are free: added again, and only that is committed.
    let again = try writer.openFile("f.txt")
    try again.write(Array("fresh".utf8))
    try writer.add(again)
    try writer.add("index.html", bytes: Array("index".utf8))
    #expect(outputError { try writer.add(again) } != nil)
    #expect(outputError { try again.write(Array("late".utf8)) } != nil)
    let summary = try writer.commit()
    #expect(summary.writtenPaths == ["f.txt"])
    #expect(
      Tree.contents(root) == ["f.txt": Array("fresh".utf8), "index.html": Array("index".utf8)])
  }

  @Test("a stream shorter or longer than the file on disk replaces it")
  func streamLengthChanges() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    func stream(_ text: String) throws -> OutputSummary {
      let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
      let file = try writer.openFile("f.txt")
      for byte in text.utf8 { try file.write([byte]) }
      try writer.add(file)
      return try writer.commit()
    }
    for text in ["abcdef", "abc", "abcdefgh", "", "abcdefgh"] {
      #expect(try stream(text).written == 1)
      #expect(Tree.contents(root)["f.txt"] == Array(text.utf8))
    }
    #expect(try stream("abcdefgh").unchanged == 1)
  }
  @Test("files staged one by one and a new folder staged whole never share a staging name")
  func stagingNamesApart() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    var old: [String: String] = [:]
    for number in 1...600 { old["\(number).html"] = "old \(number)" }
    try build(root, old)
    // The new folder is staged first, then enough changed files that a shared counter of
    // names would come round to the new folder's name.
    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    try writer.add("new/a.html", bytes: Array("new".utf8))
    var new = ["new/a.html": "new"]
    for number in 1...600 {
      try writer.add("\(number).html", bytes: Array("changed \(number)".utf8))
      new["\(number).html"] = "changed \(number)"
    }
    let summary = try writer.commit()
    #expect(summary.written == 601)
    #expect(Tree.contents(root) == new.mapValues { Array($0.utf8) })
  }
}

/// Collects messages from several threads.
final class Failures: @unchecked Sendable {
  private var items: [String] = []
  private var lock = pthread_mutex_t()

  init() { pthread_mutex_init(&lock, nil) }
  deinit { pthread_mutex_destroy(&lock) }

  func append(_ item: String) {
    pthread_mutex_lock(&lock)
    items.append(item)
    pthread_mutex_unlock(&lock)
  }

  var all: [String] {
    pthread_mutex_lock(&lock)
    defer { pthread_mutex_unlock(&lock) }
    return items
  }
}
