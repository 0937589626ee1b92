import Testing

@_spi(Testing) @testable import SQLite

@Suite struct RowTests {
  /// Runs `select` in memory and hands its first row to `body`.
  private func withRow(_ select: String, _ body: (Row) throws -> Void) throws {
    let database = try Database.openWritableForTesting(at: ":memory:")
    let statement = try database.prepare(select)
    try body(try #require(try statement.step()))
  }

  @Test("typed reads of NULL give nil")
  func null() throws {
    try withRow("SELECT NULL") { row in
      #expect(row.columnType(at: 0) == .null)
      #expect(row.int64(at: 0) == nil)
      #expect(row.double(at: 0) == nil)
      #expect(row.text(at: 0) == nil)
      #expect(row.bytes(at: 0) == nil)
      #expect(row.blobByteCount(at: 0) == 0)
    }
  }

  @Test("typed reads of the wrong type give nil or the value's text")
  func wrongType() throws {
    try withRow("SELECT 'abc', 2.5, 7, X'0102', 'x'") { row in
      #expect(row.columnType(at: 0) == .text)
      #expect(row.int64(at: 0) == nil)
      #expect(row.double(at: 0) == nil)
      #expect(row.columnType(at: 1) == .real)
      #expect(row.int64(at: 1) == nil)
      #expect(row.double(at: 1) == 2.5)
      #expect(row.text(at: 1)?.string == "2.5")
      #expect(row.int64(at: 2) == 7)
      #expect(row.text(at: 2)?.string == "7")
      #expect(row.columnType(at: 3) == .blob)
      #expect(row.int64(at: 3) == nil)
      #expect(row.bytes(at: 3) == [1, 2])
      #expect(row.blobByteCount(at: 3) == 2)
      #expect(row.columnType(at: 9) == .null)
      #expect(row.int64(at: -1) == nil)
      #expect(row.text(at: 5) == nil)
    }
  }

  @Test("valid text needs no repair")
  func validText() throws {
    try withRow("SELECT 'caf\u{E9} \u{1F600}'") { row in
      let text = try #require(row.text(at: 0))
      #expect(text.string == "caf\u{E9} \u{1F600}")
      #expect(text.repairs == [])
    }
  }

  @Test("validText reads only text that needs no repair; text(at:) reads the rest")
  func validTextFastPath() throws {
    let select =
      "SELECT 'caf\u{E9} \u{1F600}', '', CAST(X'61FF62' AS TEXT), CAST(X'610062' AS TEXT),"
      + " NULL, 7, X'6162', 'plain ASCII text longer than eight', 'ASCII then caf\u{E9}',"
      + " CAST(X'414243444546474849FF' AS TEXT)"
    try withRow(select) { row in
      #expect(row.validText(at: 0) == "caf\u{E9} \u{1F600}")
      #expect(row.validText(at: 1) == "")
      #expect(row.validText(at: 7) == "plain ASCII text longer than eight")
      #expect(row.validText(at: 8) == "ASCII then caf\u{E9}")
      // Invalid UTF-8 (also after eight ASCII bytes), a NUL byte, NULL, a number, a BLOB: none
      // is read this way.
      for index in [2, 3, 4, 5, 6, 9] {
        #expect(row.validText(at: index) == nil, "column \(index)")
      }
      #expect(row.validText(at: 12) == nil)
      // Whatever validText reads is what text(at:) reads, without repairs.
      for index in [0, 1, 7, 8] {
        #expect(row.text(at: index)?.string == row.validText(at: index))
        #expect(row.text(at: index)?.repairs == [])
      }
    }
  }

  @Test("invalid UTF-8 is replaced with U+FFFD and reported")
  func invalidUTF8() throws {
    try withRow("SELECT CAST(X'61FF62C3' AS TEXT)") { row in
      #expect(row.columnType(at: 0) == .text)
      let text = try #require(row.text(at: 0))
      #expect(text.bytes == [0x61, 0xFF, 0x62, 0xC3])
      #expect(text.string == "a\u{FFFD}b\u{FFFD}")
      #expect(text.repairs == [.invalidUTF8(count: 2)])
    }
  }

  @Test("NUL bytes are dropped and reported")
  func nulBytes() throws {
    try withRow("SELECT CAST(X'610062000063' AS TEXT)") { row in
      let text = try #require(row.text(at: 0))
      #expect(text.bytes.count == 6)
      #expect(text.string == "abc")
      #expect(text.repairs == [.nulBytesDropped(count: 3)])
    }
  }

  @Test("bound parameters round-trip")
  func binding() throws {
    let database = try Database.openWritableForTesting(at: ":memory:")
    let statement = try database.prepare("SELECT ?1, ?2, ?3")
    try statement.bind(Int64(42), at: 1)
    try statement.bind("h\u{E9}llo", at: 2)
    try statement.bind(nil as String?, at: 3)
    let row = try #require(try statement.step())
    #expect(row.int64(at: 0) == 42)
    #expect(row.text(at: 1)?.string == "h\u{E9}llo")
    #expect(row.isNull(at: 2))
    #expect(try statement.step() == nil)
    let error = #expect(throws: SQLiteError.self) { try statement.bind(Int64(1), at: 9) }
    #expect(
      error?.description == ":memory:: bad parameter or other API misuse (in 'SELECT ?1, ?2, ?3')")
  }
}
