import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#endif

/// A rebuild that stops before rendering must never miss a change to a database.
@Suite struct SourcesChangeTests {
  /// The access and modification times of `path`.
  static func times(_ path: String) throws -> [timespec] {
    var info = stat()
    try #require(stat(path, &info) == 0)
    return [info.st_atim, info.st_mtim]
  }

  /// Puts back times read by ``times(_:)``, as `touch -r` would.
  static func restore(_ times: [timespec], of path: String) throws {
    var times = times
    try #require(utimensat(AT_FDCWD, path, &times, 0) == 0)
  }

  static func build(_ options: BuildOptions) throws -> BuildSummary {
    try Build.run(options, reporter: .init(warning: { _ in }))
  }

  @Test("a WAL commit that keeps the files' sizes and times is rebuilt, not skipped")
  func walCommitInPlace() throws {
    let folder = try FixtureFolder()
    let path = try folder.database(
      "todo",
      sql: """
        PRAGMA journal_mode = WAL;
        CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN);
        """)
    // An app keeps the database open: fills the log, has it checkpointed, then writes again,
    // which starts the log over in place.
    let app = try Database.openWritableForTesting(at: path)
    try app.execute("PRAGMA wal_autocheckpoint = 0")
    for key in 1...40 {
      try app.execute("INSERT INTO todo VALUES (\(key), 'task \(key)', 1, 0)")
    }
    try app.execute("PRAGMA wal_checkpoint(PASSIVE)")
    try app.execute("UPDATE todo SET text = 'before' WHERE pk = 1")
    let logSize = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int

    // The app wrote a while ago (a key taken within a tick of a write is not trusted).
    var earlier = timespec()
    clock_gettime(CLOCK_REALTIME, &earlier)
    earlier.tv_sec -= 10
    try Self.restore([earlier, earlier], of: path)
    try Self.restore([earlier, earlier], of: path + "-wal")

    var options = BuildOptions()
    options.todos = path
    options.output = folder.url.appending(path: "site").path
    #expect(try Self.build(options).phases.count == 3)
    let unchanged = try Self.build(options)
    #expect(unchanged.phases.isEmpty)
    #expect(!unchanged.sourcesRead)
    let page = folder.url.appending(path: "site/todos/1.html")
    #expect(try String(contentsOf: page, encoding: .utf8).contains("before"))

    // A commit within one tick of the clock: the file's and the log's sizes and times stay.
    let databaseTimes = try Self.times(path)
    let logTimes = try Self.times(path + "-wal")
    let header = try FileHandle(forReadingFrom: URL(filePath: path)).read(upToCount: 100)
    try app.execute("UPDATE todo SET text = 'after' WHERE pk = 1")
    try Self.restore(databaseTimes, of: path)
    try Self.restore(logTimes, of: path + "-wal")
    #expect(
      try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int == logSize)
    #expect(try FileHandle(forReadingFrom: URL(filePath: path)).read(upToCount: 100) == header)

    let rebuilt = try Self.build(options)
    #expect(rebuilt.phases.count == 3)
    #expect(rebuilt.sourcesRead)
    #expect(try String(contentsOf: page, encoding: .utf8).contains("after"))
  }

  @Test("a database whose time is not a tick older than the build's start is not trusted")
  func racyClean() throws {
    let folder = try FixtureFolder()
    let path = try folder.database(
      "todo",
      sql: """
        CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN);
        INSERT INTO todo VALUES (1, 'one', 1, 0);
        """)
    var options = BuildOptions()
    options.todos = path
    options.output = folder.url.appending(path: "site").path
    // Stamped later than the build starts (as by a clock a little ahead): it may yet change
    // within the same tick.
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    now.tv_sec += 60
    try Self.restore([now, now], of: path)
    #expect(try Self.build(options).phases.count == 3)
    #expect(try Self.build(options).phases.count == 3)
    // Long enough ago: trusted.
    now.tv_sec -= 70
    try Self.restore([now, now], of: path)
    #expect(try Self.build(options).phases.count == 3)
    #expect(try Self.build(options).phases.isEmpty)
  }
}
