import Foundation
import Synchronization
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The records a build leaves for the next one (`StateRecords`) are written by the commit while
/// the folder is locked, tied to the manifest they describe; a record of another manifest, or
/// one a stopped build left, is ignored; and the stamps the commit records are trusted by the
/// next build without reading the files again.
@Suite struct CommitRecordsTests {
  static func run(_ options: BuildOptions, probe: Build.Probe) throws -> BuildSummary {
    try Build.run(
      options, interrupt: InterruptFlag(), reporter: Build.Reporter { _ in },
      commitStepLimit: nil, probe: probe)
  }

  /// Whether another open of the folder `path` finds it locked by a build.
  static func isLocked(_ path: String) -> Bool {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    if flock(fd, LOCK_EX | LOCK_NB) == 0 {
      flock(fd, LOCK_UN)
      return false
    }
    return true
  }

  /// The names of the records a build of `options` writes, each with whether the output folder
  /// was locked when it was written.
  static func recordsWritten(_ options: BuildOptions) throws -> [(name: String, locked: Bool)] {
    let written = Mutex<[(name: String, locked: Bool)]>([])
    let site = options.output
    var probe = Build.Probe()
    probe.beforeRecord = { name in
      let locked = isLocked(site)
      written.withLock { $0.append((name, locked)) }
    }
    _ = try run(options, probe: probe)
    return written.withLock { $0 }
  }

  @Test("every record is written inside the commit, before the folder is unlocked, the index last")
  func recordsBeforeUnlock() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let inputs = try IncrementalTests.Inputs(folder)
    let cold = try Self.recordsWritten(inputs.options)
    try inputs.change("todo.sqlite", "UPDATE todo SET text = 'Changed' WHERE pk = 3")
    let rebuild = try Self.recordsWritten(inputs.options)
    for written in [cold, rebuild] {
      let names = written.map(\.name)
      for name in [
        FingerprintRecord.fileName, RowRecord.fileName, OutputWriter.inputsName,
        TodoCopyRecord.fileName,
      ] {
        #expect(names.contains(name), "\(names)")
      }
      #expect(names.last == StateRecords.indexName, "\(names)")
      let unlocked = written.filter { !$0.locked }.map(\.name)
      #expect(unlocked.isEmpty, "records written after the unlock: \(unlocked)")
    }
    // Nothing is written into the state folder once the build has returned.
    #expect(!Self.isLocked(inputs.options.output))
    let state = try #require(OutputWriter.stateFolder(ofOutput: inputs.options.output))
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: state).filter {
      $0.hasSuffix(".tmp")
    }
    #expect(leftovers.isEmpty, "\(leftovers)")
  }

  @Test("the records are read back by LastRecords, each as the commit wrote it")
  func readBack() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let inputs = try IncrementalTests.Inputs(folder)
    _ = try IncrementalTests.build(inputs.options)
    let state = try #require(OutputWriter.stateFolder(ofOutput: inputs.options.output))
    let writer = try OutputWriter(root: inputs.options.output)
    defer { writer.abort() }
    let records = LastRecords(writer: writer)
    let header = try #require(records.header)
    #expect(header == writer.recordsHeader)
    func body(_ name: String) -> [UInt8]? {
      FileManager.default.contents(atPath: state + "/" + name)
        .flatMap { StateRecords.body(Array($0), header: header) }
    }
    let inputsRecord = try #require(records.inputs)
    #expect(
      body(OutputWriter.inputsName).map { String(decoding: $0, as: UTF8.self) }
        .flatMap(InputsRecord.init) == inputsRecord)
    let pages = records.pages(rows: true)
    #expect(pages.fingerprints != nil)
    #expect(
      pages.fingerprints == body(FingerprintRecord.fileName).flatMap(FingerprintRecord.init(bytes:))
    )
    #expect(pages.rows != nil)
    #expect(pages.rows == body(RowRecord.fileName).flatMap(RowRecord.init(bytes:)))
    #expect(records.pages(rows: false).rows == nil)
    #expect(records.photos() == body(PhotoRecord.fileName).flatMap(PhotoRecord.init(bytes:)))
    #expect(records.card() == body(Build.cardRecordName))
    #expect(LastRecords().inputs == nil && LastRecords().pages(rows: true).fingerprints == nil)
  }

  @Test("a build stopped among its record writes is followed by a rebuild equal to a cold build")
  func stoppedAmongRecords() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let inputs = try IncrementalTests.Inputs(folder)
    let count = try Self.recordsWritten(inputs.options).count
    #expect(count > 4)
    let site = inputs.options.output
    for limit in 0..<count {
      // An edit, a build stopped after `limit` records (its site published), then a rebuild.
      try inputs.change(
        "todo.sqlite", "UPDATE todo SET text = 'Edit \(limit)' WHERE pk = \(limit % 7 + 1)")
      var probe = Build.Probe()
      probe.recordStepLimit = limit
      #expect(throws: OutputError.self) { try Self.run(inputs.options, probe: probe) }
      let before = folder.sub("before-\(limit)")
      try IncrementalTests.copy(site, before)
      _ = try IncrementalTests.build(inputs.options)
      var cold = inputs.options
      cold.output = folder.sub("cold-\(limit)")
      cold.previous = before
      cold.renderPaths = RenderPaths.all.subtracting(.incremental)
      _ = try IncrementalTests.build(cold)
      let expected = Tree.contents(cold.output)
      let found = Tree.contents(site)
      #expect(Set(found.keys) == Set(expected.keys), "stopped after \(limit) records")
      let differing = expected.keys.filter { found[$0] != expected[$0] }.sorted()
      #expect(differing.isEmpty, "stopped after \(limit) records: \(differing)")
    }
  }

  @Test("a record of another manifest is ignored: the rebuild renders every page")
  func recordOfAnotherManifest() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let inputs = try IncrementalTests.Inputs(folder)
    let site = inputs.options.output
    let state = try #require(OutputWriter.stateFolder(ofOutput: site))
    _ = try IncrementalTests.build(inputs.options)
    let names = [
      FingerprintRecord.fileName, RowRecord.fileName, OutputWriter.inputsName,
      StateRecords.indexName,
    ]
    let old = try names.map { try Data(contentsOf: URL(fileURLWithPath: state + "/" + $0)) }
    try inputs.change("todo.sqlite", "UPDATE todo SET text = 'Changed' WHERE pk = 2")
    _ = try IncrementalTests.build(inputs.options)
    // The first build's records, index included, put back beside the second build's manifest.
    for (name, bytes) in zip(names, old) {
      try bytes.write(to: URL(fileURLWithPath: state + "/" + name))
    }
    let writer = try OutputWriter(root: site)
    #expect(writer.recordsHeader == nil)
    let records = LastRecords(writer: writer)
    #expect(records.header == nil)
    #expect(records.inputs == nil)
    #expect(records.pages(rows: true).fingerprints == nil)
    writer.abort()
    // Only the index of the second build: the first build's records under it are ignored.
    _ = try IncrementalTests.build(inputs.options)
    let fingerprints = try Data(
      contentsOf: URL(fileURLWithPath: state + "/" + FingerprintRecord.fileName))
    try inputs.change("todo.sqlite", "UPDATE todo SET text = 'Again' WHERE pk = 2")
    _ = try IncrementalTests.build(inputs.options)
    try fingerprints.write(to: URL(fileURLWithPath: state + "/" + FingerprintRecord.fileName))
    let reader = try OutputWriter(root: site)
    #expect(reader.recordsHeader != nil)
    #expect(LastRecords(writer: reader).pages(rows: true).fingerprints == nil)
    reader.abort()
    // The plain path: every page rendered, and the site a cold build's.
    let before = folder.sub("before")
    try IncrementalTests.copy(site, before)
    try inputs.change("todo.sqlite", "UPDATE todo SET text = 'Third' WHERE pk = 4")
    let summary = try IncrementalTests.build(inputs.options)
    #expect(summary.rendered == summary.pages)
    var cold = inputs.options
    cold.output = folder.sub("cold")
    cold.previous = before
    cold.renderPaths = RenderPaths.all.subtracting(.incremental)
    _ = try IncrementalTests.build(cold)
    #expect(Tree.contents(site) == Tree.contents(cold.output))
  }

  /// The time the state folder of `site` records for its manifest's stamps.
  static func stampTime(_ site: String) throws -> (manifest: String, time: Int64) {
    let state = try #require(OutputWriter.stateFolder(ofOutput: site))
    let text = try String(
      contentsOfFile: state + "/" + OutputWriter.stampedFileName, encoding: .utf8)
    let lines = text.split(separator: "\n")
    return (String(lines[0]), try #require(Int64(lines[1])))
  }

  static func setStampTime(_ site: String, _ manifest: String, _ time: Int64) throws {
    let state = try #require(OutputWriter.stateFolder(ofOutput: site))
    try Data((manifest + "\n" + String(time)).utf8).write(
      to: URL(fileURLWithPath: state + "/" + OutputWriter.stampedFileName))
  }

  @Test("the first rebuild with nothing changed after a cold build reads no file again")
  func noFileRehashedAfterColdBuild() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let inputs = try IncrementalTests.Inputs(folder)
    let site = inputs.options.output
    _ = try IncrementalTests.build(inputs.options)
    // The commit records its stamps once its last file is in place: not before any file's times.
    let (manifest, recorded) = try Self.stampTime(site)
    var latest: Int64 = 0
    for path in Tree.contents(site).keys {
      var info = stat()
      #expect(lstat(site + "/" + path, &info) == 0)
      latest = max(
        latest, FileStamp.nanoseconds(info.modificationTime),
        FileStamp.nanoseconds(info.statusChangeTime))
    }
    #expect(recorded >= latest)
    // The next build comes a tick or more later (the time set, not waited for): every file is
    // trusted by its stamp.
    try Self.setStampTime(site, manifest, max(recorded, latest + 2 * FileStamp.racyMargin))
    let noop = try IncrementalTests.build(inputs.options)
    #expect(noop.filesRehashed == 0)
    #expect(noop.written == 0)
    // Stamps recorded before the files were written (the build's start): each is read again.
    let (sameManifest, _) = try Self.stampTime(site)
    try Self.setStampTime(site, sameManifest, 0)
    let again = try IncrementalTests.build(inputs.options)
    #expect(again.filesRehashed == Tree.contents(site).count)
    #expect(again.written == 0)
  }
}
