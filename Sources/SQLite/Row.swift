import CSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The storage class of a value, as `typeof()` reports it.
public enum ColumnType: String, Sendable, Equatable {
  case integer
  case real
  case text
  case blob
  case null
}

/// The current row of a ``Statement``. Every read copies into Swift values at once and never
/// traps: a NULL or a value of another type gives `nil`, not a crash.
///
/// A row is valid until its statement steps again.
public struct Row {
  let statement: Statement

  private var handle: OpaquePointer { statement.handle }

  /// The number of columns.
  public var count: Int { statement.columnCount }

  /// The storage class of column `index` (0-based); `.null` when out of range.
  public func columnType(at index: Int) -> ColumnType {
    guard isValid(index) else { return .null }
    switch sqlite3_column_type(handle, Int32(index)) {
    case SQLITE_INTEGER: return .integer
    case SQLITE_FLOAT: return .real
    case SQLITE_TEXT: return .text
    case SQLITE_BLOB: return .blob
    default: return .null
    }
  }

  /// Whether column `index` is NULL.
  public func isNull(at index: Int) -> Bool { columnType(at: index) == .null }

  /// The integer in column `index`, or `nil` when it holds anything else.
  public func int64(at index: Int) -> Int64? {
    guard columnType(at: index) == .integer else { return nil }
    return sqlite3_column_int64(handle, Int32(index))
  }

  /// The number in column `index` (an integer or a real), or `nil` when it holds anything else.
  public func double(at index: Int) -> Double? {
    switch columnType(at: index) {
    case .integer, .real: return sqlite3_column_double(handle, Int32(index))
    default: return nil
    }
  }

  /// The bytes of column `index` as stored (a number as its text), or `nil` for NULL.
  public func bytes(at index: Int) -> [UInt8]? {
    let column = Int32(index)
    switch columnType(at: index) {
    case .null:
      return nil
    case .blob:
      let count = Int(sqlite3_column_bytes(handle, column))
      guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
      return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    case .integer, .real, .text:
      // Ask for the text before its length: the conversion may change the length.
      guard let pointer = sqlite3_column_text(handle, column) else { return [] }
      let count = Int(sqlite3_column_bytes(handle, column))
      return Array(UnsafeBufferPointer(start: pointer, count: count))
    }
  }

  /// The text in column `index`, repaired into a valid Swift string, or `nil` for NULL.
  ///
  /// A number reads as its text; a BLOB's bytes are decoded as UTF-8. The result reports each
  /// repair so the caller can warn about it.
  public func text(at index: Int) -> TextValue? {
    guard let bytes = bytes(at: index) else { return nil }
    return TextValue(bytes: bytes)
  }

  /// The text in column `index` when it is stored as text that is valid UTF-8 without NUL
  /// bytes (most text is), read straight from SQLite's buffer; nil for anything else: NULL,
  /// a number, a BLOB, or text that ``text(at:)`` must repair.
  public func validText(at index: Int) -> String? {
    guard let bytes = textBytes(at: index) else { return nil }
    // ASCII (most text) is valid as it is, and decoding it is much cheaper than validating.
    if Self.isASCII(UnsafeRawBufferPointer(bytes)) {
      return String(decoding: bytes, as: UTF8.self)
    }
    return String(validating: bytes, as: UTF8.self)
  }

  /// Calls `body` with the bytes of column `index` in SQLite's own buffer when it is text that
  /// ``validText(at:)`` would return (valid UTF-8 without NUL bytes), without making a
  /// `String` of it; nil for anything else. The buffer is valid only during the call.
  public func withValidText<T>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
    guard let bytes = textBytes(at: index),
      Self.isASCII(UnsafeRawBufferPointer(bytes)) || String(validating: bytes, as: UTF8.self) != nil
    else { return nil }
    return body(bytes)
  }

  /// The bytes of column `index` in SQLite's own buffer when it is stored as text without NUL
  /// bytes; nil for anything else. Valid until the row moves on.
  private func textBytes(at index: Int) -> UnsafeBufferPointer<UInt8>? {
    guard columnType(at: index) == .text else { return nil }
    let column = Int32(index)
    guard let pointer = sqlite3_column_text(handle, column) else { return nil }
    let count = Int(sqlite3_column_bytes(handle, column))
    guard memchr(pointer, 0, count) == nil else { return nil }
    return UnsafeBufferPointer(start: pointer, count: count)
  }

  /// Whether every byte is below 0x80, eight at a time.
  static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var index = 0
    while index + 8 <= bytes.count {
      if bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
        return false
      }
      index += 8
    }
    while index < bytes.count {
      if bytes[index] >= 0x80 { return false }
      index += 1
    }
    return true
  }

  /// Calls `body` with the bytes of column `index` in SQLite's own buffer (a number as its
  /// text; empty for NULL), without copying them. The buffer is valid only during the call.
  public func withUnsafeBytes<T>(
    at index: Int, _ body: (UnsafeRawBufferPointer) throws -> T
  ) rethrows -> T {
    let column = Int32(index)
    let pointer: UnsafeRawPointer?
    switch columnType(at: index) {
    case .null: pointer = nil
    case .blob: pointer = sqlite3_column_blob(handle, column)
    case .integer, .real, .text: pointer = UnsafeRawPointer(sqlite3_column_text(handle, column))
    }
    let count = pointer == nil ? 0 : Int(sqlite3_column_bytes(handle, column))
    return try body(UnsafeRawBufferPointer(start: count > 0 ? pointer : nil, count: count))
  }

  /// The size in bytes of the value in column `index` (0 for NULL).
  public func blobByteCount(at index: Int) -> Int {
    guard isValid(index) else { return 0 }
    return Int(sqlite3_column_bytes(handle, Int32(index)))
  }

  private func isValid(_ index: Int) -> Bool {
    index >= 0 && index < count
  }
}
