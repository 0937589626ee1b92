import Foundation
import TestFixtures
import Testing

@_spi(Testing) @testable import SQLite

/// Files as users have them: in WAL mode, left by a program that crashed, damaged.
@Suite struct UntrustedFileTests {
  static let schema = """
    CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN);
    INSERT INTO todo VALUES (1, 'Take out the trash', 3, 0), (2, 'Learn SQLite', 1, 1);
    """

  private func count(_ database: Database) throws -> Int64? {
    try database.prepare("SELECT count(*) FROM todo").step()?.int64(at: 0)
  }

  // MARK: - WAL mode

  @Test("a WAL database with no log is read without making -wal or -shm beside it")
  func walLeavesNoFiles() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("todo.sqlite")
    try Database.createForTesting(at: path, sql: "PRAGMA journal_mode=WAL;" + Self.schema)
    #expect(try folder.contents() == ["todo.sqlite"])
    let before = try Data(contentsOf: URL(filePath: path))
    do {
      let database = try Database(path: path)
      #expect(database.isReadImmutably)
      #expect(try database.read { try count(database) } == 2)
      #expect(try folder.contents() == ["todo.sqlite"])
      try database.checkSnapshot()
    }
    #expect(try folder.contents() == ["todo.sqlite"])
    #expect(try Data(contentsOf: URL(filePath: path)) == before)
  }

  @Test("a WAL database another program has open is read through its log, adding no file")
  func walInUse() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("todo.sqlite")
    try Database.createForTesting(at: path, sql: "PRAGMA journal_mode=WAL;" + Self.schema)
    let writer = try Database.openWritableForTesting(at: path)
    try writer.execute("INSERT INTO todo(text) VALUES ('in the log')")
    let files = try folder.contents()
    #expect(files == ["todo.sqlite", "todo.sqlite-shm", "todo.sqlite-wal"])
    let database = try Database(path: path)
    #expect(!database.isReadImmutably)
    #expect(try database.read { try count(database) } == 3)
    #expect(try folder.contents() == files)
  }

  @Test("a program that opens the database and checkpoints during the read fails the snapshot")
  func checkpointDuringRead() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("todo.sqlite")
    try Database.createForTesting(at: path, sql: "PRAGMA journal_mode=WAL;" + Self.schema)
    // Written a minute ago, explicitly: the checkpoint below stamps the file later, whatever
    // the clock's tick (not by sleeping past it).
    try FileTimes.settle(path)
    let database = try Database(path: path)
    #expect(database.isReadImmutably)
    try database.beginSnapshot()
    #expect(try count(database) == 2)
    let writer = try Database.openWritableForTesting(at: path)
    try writer.execute("INSERT INTO todo(text) VALUES ('new'); PRAGMA wal_checkpoint(TRUNCATE);")
    try database.endSnapshot()
    let error = try #require(throws: SQLiteError.self) { try database.checkSnapshot() }
    #expect(
      error.description
        == "\(path): another program wrote to the database while it was read; build again")
  }

  @Test("a checkpoint during the read within one tick of the clock, the size kept, is noticed")
  func checkpointDuringReadSameTick() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("todo.sqlite")
    try Database.createForTesting(at: path, sql: "PRAGMA journal_mode=WAL;" + Self.schema)
    try FileTimes.settle(path)
    let before = try FileTimes.stamp(path)
    let database = try Database(path: path)
    #expect(database.isReadImmutably)
    try database.beginSnapshot()
    #expect(try count(database) == 2)
    let writer = try Database.openWritableForTesting(at: path)
    try writer.execute("INSERT INTO todo(text) VALUES ('new'); PRAGMA wal_checkpoint(TRUNCATE);")
    try database.endSnapshot()
    // What a checkpoint within the tick of the read's start leaves: the same size and the same
    // modification time (set back deliberately, as the coarse clock would have left it).
    try FileTimes.setModified(path, to: before.modified)
    let after = try FileTimes.stamp(path)
    try #require(after.size == before.size, "the row did not fit in the file's pages")
    #expect(after.modified == before.modified)
    let check = { () throws -> Void in
      let error = try #require(throws: SQLiteError.self) { try database.checkSnapshot() }
      #expect(
        error.description
          == "\(path): another program wrote to the database while it was read; build again")
    }
    // Whether or not the status change time, which no program can set back, moved on a tick:
    // the stamp taken within a tick of the file's times is not trusted (racy-clean, issue 41),
    // and the bytes are compared.
    try check()
  }

  @Test("a writer's exclusive lock keeps a WAL database from being opened, with the usual error")
  func walExclusiveWriter() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("todo.sqlite")
    try Database.createForTesting(at: path, sql: "PRAGMA journal_mode=WAL;" + Self.schema)
    let writer = try Database.openWritableForTesting(at: path)
    try writer.execute("PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE;")
    let error = try #require(throws: SQLiteError.self) {
      _ = try Database(path: path, busyTimeout: .milliseconds(50))
    }
    #expect(
      error.description
        == "\(path): database is locked (another program is writing to it; try again when it finishes)"
    )
  }

  // MARK: - Crashed writers

  @Test("a hot journal says another program crashed while writing, and how to recover")
  func hotJournal() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("todo.sqlite")
    try Database.createForTesting(at: path, sql: Self.schema)
    let writer = try Database.openWritableForTesting(at: path)
    try writer.execute(
      "PRAGMA cache_size=1; BEGIN; UPDATE todo SET text = 'half written';"
        + " INSERT INTO todo(text) SELECT hex(randomblob(2000)) FROM todo;"
        + " INSERT INTO todo(text) SELECT hex(randomblob(2000)) FROM todo;")
    // A copy taken now is what a crash leaves: the file and its journal.
    let crashed = try TemporaryFolder()
    let copy = crashed.path("todo.sqlite")
    try FileManager.default.copyItem(atPath: path, toPath: copy)
    try FileManager.default.copyItem(atPath: path + "-journal", toPath: copy + "-journal")
    try writer.execute("ROLLBACK")
    let before = try Data(contentsOf: URL(filePath: copy))

    let error = try #require(throws: SQLiteError.self) { _ = try Database(path: copy) }
    #expect(
      error.description
        == "\(copy): another program crashed while writing to it, and its unfinished change in"
        + " '\(copy)-journal' must be rolled back first: open the database once with write"
        + " access, e.g. sqlite3 '\(copy)' 'PRAGMA integrity_check', then build again")
    #expect(try Data(contentsOf: URL(filePath: copy)) == before)
    #expect(try crashed.contents() == ["todo.sqlite", "todo.sqlite-journal"])
  }

  // MARK: - Damage

  @Test("a cell pointer past the end of its page fails the same way on every read")
  func cellPastPage() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("todo.sqlite")
    try Database.createForTesting(
      at: path,
      sql: "PRAGMA page_size=1024;" + Self.schema
        + "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)"
        + " INSERT INTO todo(text) SELECT 'row ' || i FROM n;")
    var bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
    // Page 2 is the table's leaf; its first cell pointer follows the 8-byte page header.
    let page = 1024
    bytes[page + 8] = 0x03
    bytes[page + 9] = 0xFC
    try Data(bytes).write(to: URL(filePath: path))

    var outcomes: Set<String> = []
    for _ in 0..<12 {
      do {
        let database = try Database(path: path)
        var texts: [String] = []
        try database.prepare("SELECT text FROM todo").forEachRow { row in
          texts.append(row.text(at: 0)?.string ?? "")
        }
        outcomes.insert("read \(texts.count) rows")
      } catch {
        outcomes.insert("\(error)")
      }
    }
    #expect(
      outcomes == [
        "\(path): the database is damaged (database disk image is malformed); check it with"
          + " sqlite3 '\(path)' 'PRAGMA integrity_check', and recover what can be read with"
          + " sqlite3 '\(path)' .recover | sqlite3 recovered.sqlite"
      ])
  }

  @Test("the connection is set up for untrusted files")
  func hardened() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("todo.sqlite")
    try Database.createForTesting(
      at: path,
      sql: Self.schema + "CREATE VIEW shouting AS SELECT upper(text) AS text FROM todo;")
    let database = try Database(path: path)
    func pragma(_ name: String) throws -> Int64? {
      try database.prepare("PRAGMA \(name)").step()?.int64(at: 0)
    }
    #expect(try pragma("cell_size_check") == 1)
    #expect(try pragma("mmap_size") == 0)
    #expect(try pragma("trusted_schema") == 0)
    // Built-in functions are innocuous: a view may still use them.
    let text = try database.prepare("SELECT text FROM shouting ORDER BY text").step()
    #expect(text?.text(at: 0)?.string == "LEARN SQLITE")
    let error = #expect(throws: SQLiteError.self) {
      try database.execute("ATTACH ':memory:' AS other")
    }
    #expect(
      error?.description
        == "\(path): too many attached databases - max 0 (in 'ATTACH ':memory:' AS other')")
  }
}
