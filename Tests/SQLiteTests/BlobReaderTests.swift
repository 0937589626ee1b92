import Foundation
import Testing

@_spi(Testing) @testable import SQLite

@Suite struct BlobReaderTests {
  @Test("a blob streams in chunks of the requested size, in order")
  func streaming() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("photos.sqlite")
    try Database.createForTesting(
      at: path,
      sql: """
        CREATE TABLE possessions(id INTEGER PRIMARY KEY, photo BLOB);
        INSERT INTO possessions VALUES (1, zeroblob(200000)), (2, X''), (3, 'text photo');
        """)
    let database = try Database(path: path)
    let reader = try database.openBlob(table: "possessions", column: "photo", rowid: 1)
    #expect(reader.byteCount == 200_000)

    var sizes: [Int] = []
    var total = 0
    try reader.stream(chunkSize: 65_536) { chunk in
      sizes.append(chunk.count)
      total += chunk.reduce(0) { $0 + Int($1) }
    }
    #expect(sizes == [65_536, 65_536, 65_536, 3392])
    #expect(total == 0)
    #expect(try reader.prefix(4) == [0, 0, 0, 0])
    #expect(try reader.read(offset: 199_998, count: 10).count == 2)

    let empty = try database.openBlob(table: "possessions", column: "photo", rowid: 2)
    var calls = 0
    try empty.stream { _ in calls += 1 }
    #expect(empty.byteCount == 0)
    #expect(calls == 0)

    let text = try database.openBlob(table: "possessions", column: "photo", rowid: 3)
    #expect(try text.prefix(4) == Array("text".utf8))
  }

  @Test("streamed bytes equal the stored bytes")
  func streamedBytes() throws {
    let database = try Database.openWritableForTesting(at: ":memory:")
    try database.execute(
      """
      CREATE TABLE t(b BLOB);
      WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999)
      INSERT INTO t SELECT CAST(group_concat(printf('%03d', i), '') AS BLOB) FROM n;
      """)
    let reader = try database.openBlob(table: "t", column: "b", rowid: 1)
    var bytes: [UInt8] = []
    try reader.stream(chunkSize: 1000) { bytes.append(contentsOf: $0) }
    let expected = (0..<1000).map { String(format: "%03d", $0) }.joined()
    #expect(bytes == Array(expected.utf8))
  }

  @Test("opening a missing row or a NULL value is an error")
  func missingRow() throws {
    let database = try Database.openWritableForTesting(at: ":memory:")
    try database.execute("CREATE TABLE t(b BLOB); INSERT INTO t VALUES (NULL);")
    let null = #expect(throws: SQLiteError.self) {
      try database.openBlob(table: "t", column: "b", rowid: 1)
    }
    #expect(null?.description == ":memory:: cannot open value of type null")
    let missing = #expect(throws: SQLiteError.self) {
      try database.openBlob(table: "t", column: "b", rowid: 99)
    }
    #expect(missing?.description == ":memory:: no such rowid: 99")
  }

  @Test("a reader moved to another row reads that row's value; a failed move retires it")
  func reopening() throws {
    let database = try Database.openWritableForTesting(at: ":memory:")
    try database.execute(
      """
      CREATE TABLE t(b BLOB);
      INSERT INTO t VALUES (X'0102'), (X''), ('three'), (NULL), (X'050607');
      """)
    let reader = try database.openBlob(table: "t", column: "b", rowid: 1)
    #expect(try reader.prefix(10) == [1, 2])
    try reader.reopen(rowid: 3)
    #expect(reader.byteCount == 5)
    #expect(try reader.prefix(10) == Array("three".utf8))
    try reader.reopen(rowid: 2)
    #expect(reader.byteCount == 0)
    #expect(try reader.prefix(10) == [])
    try reader.reopen(rowid: 1)
    #expect(try reader.read(offset: 1, count: 10) == [2])
    #expect(reader.isUsable)

    // A NULL value, then a missing row: the reader is retired and says so.
    let null = #expect(throws: SQLiteError.self) { try reader.reopen(rowid: 4) }
    #expect(null?.description == ":memory:: cannot open value of type null")
    #expect(!reader.isUsable)
    let retired = #expect(throws: SQLiteError.self) { try reader.reopen(rowid: 5) }
    #expect(retired?.description == ":memory:: cannot open value of type null")
    let fresh = try database.openBlob(table: "t", column: "b", rowid: 5)
    #expect(try fresh.prefix(10) == [5, 6, 7])
    let missing = #expect(throws: SQLiteError.self) { try fresh.reopen(rowid: 99) }
    #expect(missing?.description == ":memory:: no such rowid: 99")
  }
}
