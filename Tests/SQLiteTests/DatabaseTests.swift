import Foundation
import TestFixtures
import Testing

@_spi(Testing) @testable import SQLite

@Suite struct DatabaseTests {
  static let schema = """
    CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN);
    INSERT INTO todo VALUES (1, 'Take out the trash', 3, 0), (2, 'Learn SQLite', 1, 1);
    """

  // MARK: - Read-only

  @Test("reading leaves the file byte-identical and creates no journal or WAL")
  func readOnly() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("todo.sqlite")
    try Database.createForTesting(at: path, sql: Self.schema)
    let before = try Data(contentsOf: URL(filePath: path))

    do {
      let database = try Database(path: path)
      let count = try database.read {
        let statement = try database.prepare("SELECT count(*) FROM todo")
        return try #require(try statement.step()).int64(at: 0)
      }
      #expect(count == 2)
      let error = #expect(throws: SQLiteError.self) { try database.execute("DELETE FROM todo") }
      #expect(error?.description == "\(path): attempt to write a readonly database")
    }

    #expect(try Data(contentsOf: URL(filePath: path)) == before)
    #expect(try folder.contents() == ["todo.sqlite"])
  }

  @Test("a sample database written by old SQLite stays byte-identical")
  func sampleDatabaseUntouched() throws {
    let path = SampleDatabases.path("aquillano_Todo_669e405_todo.sqlite")
    let before = try Data(contentsOf: URL(filePath: path))
    let database = try Database(path: path)
    let rows = try database.read {
      var texts: [String] = []
      try database.prepare("SELECT text FROM todo ORDER BY pk").forEachRow { row in
        texts.append(row.text(at: 0)?.string ?? "")
      }
      return texts
    }
    #expect(rows.first == "Take out the trash")
    #expect(rows.count == 4)
    #expect(try Data(contentsOf: URL(filePath: path)) == before)
  }

  @Test("a path with URI characters opens the right file")
  func uriCharacters() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("to do?#%20.sqlite")
    try Database.createForTesting(at: path, sql: Self.schema)
    let database = try Database(path: path)
    let statement = try database.prepare("SELECT count(*) FROM todo")
    #expect(try #require(try statement.step()).int64(at: 0) == 2)
  }

  // MARK: - Errors

  @Test("a missing file is an error and is not created")
  func missingFile() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("x.sqlite")
    let error = try openError(path)
    #expect(error.description == "\(path): no such file")
    #expect(try folder.contents() == [])
  }

  @Test("an empty file is not a database")
  func emptyFile() throws {
    let folder = try TemporaryFolder()
    let path = try folder.write([], to: "empty.sqlite")
    let error = try openError(path)
    #expect(error.description == "\(path): file is empty, not a SQLite database")
    #expect(try folder.contents() == ["empty.sqlite"])
  }

  @Test("a text file is not a database")
  func textFile() throws {
    let folder = try TemporaryFolder()
    let text = String(repeating: "Buy milk\nCall the plumber about the sink\n", count: 10)
    let path = try folder.write(Array(text.utf8), to: "notes.txt")
    let error = try openError(path)
    #expect(error.description == "\(path): not a SQLite database")
  }

  @Test("a folder is not a database")
  func folderPath() throws {
    let folder = try TemporaryFolder()
    let error = try openError(folder.url.path)
    #expect(error.description == "\(folder.url.path): is a folder, not a SQLite database")
  }

  @Test("a database cut after its 100-byte header is malformed")
  func truncatedHeader() throws {
    let folder = try TemporaryFolder()
    let real = try Data(
      contentsOf: URL(filePath: SampleDatabases.path("lbain_Todo-Fun_f61d735_todo1.sqlite")))
    let path = try folder.write(Array(real.prefix(100)), to: "x.sqlite")
    let error = try openError(path)
    #expect(error.description == "\(path): \(SQLiteError.damagedMessage(path))")
  }

  @Test("a database cut in the middle of a page is malformed")
  func truncatedMidPage() throws {
    let folder = try TemporaryFolder()
    let real = try Data(
      contentsOf: URL(filePath: SampleDatabases.path("lbain_Todo-Fun_f61d735_todo1.sqlite")))
    #expect(real.count == 8192)
    let path = try folder.write(Array(real.prefix(6000)), to: "x.sqlite")
    let error = try openError(path)
    #expect(error.description == "\(path): \(SQLiteError.damagedMessage(path))")
  }

  @Test("a valid header followed by garbage is malformed")
  func garbageAfterHeader() throws {
    let folder = try TemporaryFolder()
    let real = try Data(
      contentsOf: URL(filePath: SampleDatabases.path("lbain_Todo-Fun_f61d735_todo1.sqlite")))
    var generator = SeededGenerator(seed: 42)
    let garbage = (100..<real.count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let path = try folder.write(Array(real.prefix(100)) + garbage, to: "x.sqlite")
    let error = try openError(path)
    #expect(error.description == "\(path): \(SQLiteError.damagedMessage(path))")
  }

  @Test("a database locked by a writer gives a clear error naming the file")
  func lockedByWriter() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("todo.sqlite")
    try Database.createForTesting(at: path, sql: Self.schema)
    let writer = try Database.openWritableForTesting(at: path)
    try writer.execute("BEGIN EXCLUSIVE; INSERT INTO todo(text) VALUES ('half-written');")

    let error = try openError(path, busyTimeout: .milliseconds(50))
    #expect(error.isBusy)
    #expect(
      error.description
        == "\(path): database is locked (another program is writing to it; try again when it finishes)"
    )

    try writer.execute("COMMIT")
    let database = try Database(path: path, busyTimeout: .milliseconds(50))
    let statement = try database.prepare("SELECT count(*) FROM todo")
    #expect(try #require(try statement.step()).int64(at: 0) == 3)
  }

  @Test("a snapshot keeps seeing the same rows while a writer commits")
  func snapshot() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("todo.sqlite")
    try Database.createForTesting(at: path, sql: "PRAGMA journal_mode=WAL;" + Self.schema)
    let database = try Database(path: path)
    try database.beginSnapshot()
    let writer = try Database.openWritableForTesting(at: path)
    try writer.execute("INSERT INTO todo(text) VALUES ('new')")
    let count = try database.prepare("SELECT count(*) FROM todo")
    #expect(try #require(try count.step()).int64(at: 0) == 2)
    count.reset()
    try database.endSnapshot()
    // The writer's row is in its log: the file that was read did not change.
    try database.checkSnapshot()
    let later = try Database(path: path)
    #expect(try #require(try later.prepare("SELECT count(*) FROM todo").step()).int64(at: 0) == 3)
  }

  @Test("an error in SQL names the statement")
  func sqlError() throws {
    let database = try Database.openWritableForTesting(at: ":memory:")
    do {
      _ = try database.prepare("SELECT * FROM nowhere")
      Issue.record("preparing did not fail")
    } catch let error as SQLiteError {
      #expect(
        error.description == ":memory:: no such table: nowhere (in 'SELECT * FROM nowhere')")
    }
  }

  private func openError(
    _ path: String, busyTimeout: Duration = .seconds(5)
  ) throws -> SQLiteError {
    do {
      _ = try Database(path: path, busyTimeout: busyTimeout)
    } catch let error as SQLiteError {
      return error
    }
    Issue.record("opening \(path) did not fail")
    return SQLiteError(file: path, code: 0, message: "")
  }
}

/// A small deterministic generator (SplitMix64), so "random" bytes are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
