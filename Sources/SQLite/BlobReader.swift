import CSQLite

/// Reads one BLOB (or TEXT) value in pieces with `sqlite3_blob_read`, so a large value is never
/// held whole in memory. Read-only; closed when released.
///
/// ``reopen(rowid:)`` moves the reader to another row of the same column: much cheaper than
/// opening a reader per row, which compiles a statement each time.
public final class BlobReader {
  /// The size of the value in bytes.
  public private(set) var byteCount: Int
  private let database: Database
  private let handle: OpaquePointer
  /// False once a move to another row failed: SQLite then refuses every later call.
  public private(set) var isUsable = true

  init(database: Database, table: String, column: String, rowid: Int64) throws {
    var blob: OpaquePointer?
    let code = sqlite3_blob_open(database.handle, "main", table, column, rowid, 0, &blob)
    guard code == SQLITE_OK, let blob else {
      sqlite3_blob_close(blob)
      throw database.error(code: code)
    }
    self.database = database
    self.handle = blob
    self.byteCount = Int(sqlite3_blob_bytes(blob))
  }

  deinit {
    sqlite3_blob_close(handle)
  }

  /// Moves the reader to the value of the same column in the row `rowid`.
  ///
  /// - Throws: `SQLiteError` when the row is missing or its value is not a BLOB or TEXT; the
  ///   reader is then no longer usable (``isUsable`` is false) and must be replaced.
  public func reopen(rowid: Int64) throws {
    guard isUsable else { throw database.error(code: SQLITE_ABORT) }
    let code = sqlite3_blob_reopen(handle, rowid)
    guard code == SQLITE_OK else {
      isUsable = false
      byteCount = 0
      throw database.error(code: code)
    }
    byteCount = Int(sqlite3_blob_bytes(handle))
  }

  /// Reads up to `count` bytes from `offset` (fewer at the end of the value).
  public func read(offset: Int, count: Int) throws -> [UInt8] {
    let start = min(max(0, offset), byteCount)
    let length = min(max(0, count), byteCount - start)
    guard length > 0 else { return [] }
    return try [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
      try read(offset: start, into: UnsafeMutableRawBufferPointer(buffer))
      initialized = length
    }
  }

  /// Reads the first `count` bytes (fewer if the value is shorter), e.g. to sniff a format.
  public func prefix(_ count: Int) throws -> [UInt8] {
    try read(offset: 0, count: count)
  }

  /// Calls `body` with consecutive chunks of at most `chunkSize` bytes, from the start.
  ///
  /// The buffer is reused between calls; copy out what must outlive one call.
  public func stream(chunkSize: Int = 64 * 1024, _ body: (UnsafeRawBufferPointer) throws -> Void)
    throws
  {
    let size = max(1, min(chunkSize, byteCount))
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
    defer { buffer.deallocate() }
    var offset = 0
    while offset < byteCount {
      let length = min(size, byteCount - offset)
      let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length])
      try read(offset: offset, into: chunk)
      try body(UnsafeRawBufferPointer(chunk))
      offset += length
    }
  }

  private func read(offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws {
    let code = sqlite3_blob_read(handle, buffer.baseAddress, Int32(buffer.count), Int32(offset))
    guard code == SQLITE_OK else { throw database.error(code: code) }
  }
}
