import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One file-stamp rule (`FileStamp`, issue 41): a file is trusted as left only when its stamp
/// matches and was not taken within a tick of its times; otherwise it is read once and compared
/// by its keyed hash, kept and stamped again when equal, repaired when not.
@Suite struct FileStampTests {
  static let second: Int64 = 1_000_000_000
  static let recorded: Int64 = 1_765_000_000 * second + 500_000_000

  static func stamp(modified: Int64, changed: Int64, inode: UInt64 = 7) -> FileStamp {
    FileStamp(device: 1, inode: inode, size: 10, modified: modified, changed: changed)
  }

  @Test("equal fields taken well before the recording match; any field apart does not")
  func rule() {
    let old = Self.recorded - 60 * Self.second + 123
    let stamp = Self.stamp(modified: old, changed: old + 5)
    #expect(stamp.matches(stamp, recordedAt: Self.recorded))
    #expect(!stamp.matches(stamp, recordedAt: nil))
    #expect(
      !stamp.matches(Self.stamp(modified: old + 1, changed: old + 5), recordedAt: Self.recorded))
    #expect(!stamp.matches(Self.stamp(modified: old, changed: old + 6), recordedAt: Self.recorded))
    #expect(
      !stamp.matches(
        Self.stamp(modified: old, changed: old + 5, inode: 8), recordedAt: Self.recorded))
    var bigger = stamp
    bigger.size += 1
    #expect(!stamp.matches(bigger, recordedAt: Self.recorded))
    // The manifest's stamp: size and modification time; the status change time must be before
    // the recording.
    let entry = FileStamp(size: 10, modified: old)
    #expect(entry.matches(stamp, recordedAt: Self.recorded))
    #expect(
      !entry.matches(
        Self.stamp(modified: old, changed: Self.recorded + 1), recordedAt: Self.recorded))
  }

  @Test("a stamp taken within a tick of the file's times, or before them, is unsure (racy-clean)")
  func racy() {
    let old = Self.recorded - 60 * Self.second + 123
    for time in [
      Self.recorded, Self.recorded - 1, Self.recorded - FileStamp.racyMargin, Self.recorded + 5,
    ] {
      let modifiedLate = Self.stamp(modified: time, changed: time)
      #expect(!modifiedLate.matches(modifiedLate, recordedAt: Self.recorded), "\(time)")
      let changedLate = Self.stamp(modified: old, changed: time)
      #expect(!changedLate.matches(changedLate, recordedAt: Self.recorded), "\(time)")
    }
    let justBefore = Self.stamp(
      modified: Self.recorded - FileStamp.racyMargin - 1,
      changed: Self.recorded - FileStamp.racyMargin - 1)
    #expect(justBefore.matches(justBefore, recordedAt: Self.recorded))
    // Whole seconds (a file system without nanoseconds): the second before is unsure too.
    let wholeSecond = (Self.recorded / Self.second - 1) * Self.second
    let coarse = Self.stamp(modified: wholeSecond, changed: wholeSecond)
    #expect(!coarse.matches(coarse, recordedAt: Self.recorded))
    let earlier = Self.stamp(
      modified: wholeSecond - Self.second, changed: wholeSecond - Self.second)
    #expect(earlier.matches(earlier, recordedAt: Self.recorded))
  }

  /// Sets every file under `folder` to `time` plus its number (nanoseconds), as a restore does
  /// with its own times.
  static func setTimes(_ folder: String, to time: Int64) throws {
    let files = try FileManager.default.subpathsOfDirectory(atPath: folder).sorted()
    for (number, file) in files.enumerated() {
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: folder + "/" + file, isDirectory: &isFolder)
      if !isFolder.boolValue {
        try FileTimes.setModified(folder + "/" + file, to: time + Int64(number))
      }
    }
  }

  @Test("a site restored by a copy is read once, kept, stamped again, and then trusted")
  func restoredWriter() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let files = ["index.html": "<h1>home</h1>", "todos/1.html": "one", "todos/2.html": "two"]
    let kept = tmp.sub("kept")
    try build(kept, files)
    let restored = tmp.sub("restored")
    try FileManager.default.copyItem(atPath: kept, toPath: restored)
    try FileManager.default.copyItem(atPath: stateFolder(kept), toPath: stateFolder(restored))
    try Self.setTimes(restored, to: FileTimes.now() - 30 * Self.second)

    let writer = try OutputWriter(root: restored, interrupt: InterruptFlag())
    #expect(writer.stampedAt != nil)
    #expect(writer.previousFilesChanged().isEmpty)
    writer.carryOver(PathKeys(paths: files.keys, keyedBy: .fingerprintRecord))
    let summary = try writer.commit()
    #expect(summary.written == 0)
    #expect(summary.unchanged == 3)
    // The manifest records the files' new times: the next build trusts their stamps.
    let manifest = try #require(readFile(stateFolder(restored) + "/manifest"))
    for line in String(decoding: manifest, as: UTF8.self).split(separator: "\n").dropFirst()
    where !line.hasPrefix("folder ") {
      let fields = line.split(separator: " ")
      #expect(Int64(fields[2]) == modificationTime(restored + "/" + fields[3]), "\(line)")
    }
    #expect(Tree.contents(restored) == Tree.contents(kept))
    let again = try OutputWriter(root: restored, interrupt: InterruptFlag())
    #expect(again.previousFilesChanged().isEmpty)
    #expect(again.previousFilesAreIntact())
    again.abort()
  }

  @Test("a restored file whose bytes differ is repaired, not trusted")
  func restoredEdited() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let files = ["index.html": "<h1>home</h1>", "todos/1.html": "one"]
    let root = tmp.sub("site")
    try build(root, files)
    try writeFile(root + "/todos/1.html", "eno")
    try Self.setTimes(root, to: FileTimes.now() - 30 * Self.second)
    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    #expect(writer.previousFilesChanged() == ["todos/1.html"])
    writer.abort()
    #expect(try build(root, files).writtenPaths == ["todos/1.html"])
    #expect(Tree.contents(root)["todos/1.html"] == Array("one".utf8))
  }

  @Test("the record of the stamps' time is ignored when it is tied to another manifest")
  func recordOfAnotherManifest() throws {
    let tmp = try TemporaryFolder()
    defer { tmp.cleanUp() }
    let root = tmp.sub("site")
    try build(root, ["index.html": "home"])
    let path = stateFolder(root) + "/" + OutputWriter.stampedFileName
    let bytes = try #require(readFile(path))
    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    #expect(writer.stampedAt != nil)
    #expect(writer.stampedAt.map { $0 <= FileStamp.now() } == true)
    writer.abort()
    var foreign = bytes
    foreign[0] = foreign[0] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
    try Data(foreign).write(to: URL(fileURLWithPath: path))
    let other = try OutputWriter(root: root, interrupt: InterruptFlag())
    #expect(other.stampedAt == nil)
    // Nothing is trusted by its stamp, yet every file is as left: read and compared.
    #expect(other.previousFilesAreIntact())
    other.abort()
  }

  @Test(
    "a copied site and state: a one-row edit renders and writes what it does in the kept folder")
  func restoredBuild() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let inputs = try IncrementalTests.Inputs(folder)
    let first = try IncrementalTests.build(inputs.options)
    try IncrementalTests.copy(folder.sub("site"), folder.sub("before"))
    try IncrementalTests.copy(folder.sub("site"), folder.sub("restored"))
    try IncrementalTests.copy(folder.sub(".site.taskpress"), folder.sub(".restored.taskpress"))
    try Self.setTimes(folder.sub("restored"), to: FileTimes.now() - 30 * Self.second)
    try Self.setTimes(folder.sub(".restored.taskpress"), to: FileTimes.now() - 30 * Self.second)
    try inputs.change("todo.sqlite", "UPDATE todo SET text = 'Changed' WHERE pk = 13")

    let kept = try IncrementalTests.build(inputs.options)
    var options = inputs.options
    options.output = folder.sub("restored")
    let restored = try IncrementalTests.build(options)
    #expect(restored.rendered == kept.rendered)
    #expect(restored.rendered < first.pages / 3)
    #expect(restored.written == kept.written)
    #expect(restored.writtenPaths == kept.writtenPaths)
    IncrementalTests.expectSameTrees(
      inputs.options.output, options.output, "the restored site differs from the kept one")

    var cold = inputs.options
    cold.output = folder.sub("cold")
    cold.previous = folder.sub("before")
    cold.renderPaths = RenderPaths.all.subtracting(.incremental)
    _ = try IncrementalTests.build(cold)
    IncrementalTests.expectSameTrees(
      cold.output, options.output, "the restored site differs from a cold build")
  }
}
