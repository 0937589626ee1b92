import CSQLite

/// An error from SQLite, with the file it concerns and, when it helps, the statement.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The database path as the caller gave it.
  public var file: String
  /// The extended SQLite result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, ...).
  public var code: Int32
  /// A message for people: lower-case start, no trailing period.
  public var message: String
  /// The statement that failed, if any.
  public var sql: String?

  public init(file: String, code: Int32, message: String, sql: String? = nil) {
    self.file = file
    self.code = code
    self.message = message
    self.sql = sql
  }

  /// The primary result code (the low byte of `code`).
  public var primaryCode: Int32 { code & 0xFF }

  /// Whether the database is busy: another connection holds a lock.
  public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

  /// The message, plus the statement when it helps (errors in SQL rather than in the file).
  public var detail: String {
    guard let sql, showsSQL else { return message }
    return "\(message) (in '\(sql)')"
  }

  public var description: String { "\(file): \(detail)" }

  private var showsSQL: Bool {
    switch primaryCode {
    case SQLITE_ERROR, SQLITE_RANGE, SQLITE_MISUSE, SQLITE_MISMATCH, SQLITE_CONSTRAINT:
      return true
    default:
      return false
    }
  }
}

// MARK: - Messages

extension SQLiteError {
  static let lockedMessage =
    "database is locked (another program is writing to it; try again when it finishes)"
  static let notADatabaseMessage = "not a SQLite database"
  static let malformedMessage = "database disk image is malformed"

  /// Builds an error from a result code, preferring clear texts for the codes users meet.
  static func from(
    code: Int32, connection: OpaquePointer?, file: String, sql: String? = nil
  ) -> SQLiteError {
    let message: String
    switch code & 0xFF {
    case SQLITE_BUSY, SQLITE_LOCKED:
      message = lockedMessage
    case SQLITE_NOTADB:
      message = notADatabaseMessage
    case SQLITE_CORRUPT:
      message = malformedMessage
    default:
      if let connection, let text = sqlite3_errmsg(connection) {
        message = String(cString: text)
      } else if let text = sqlite3_errstr(code) {
        message = String(cString: text)
      } else {
        message = "SQLite error \(code)"
      }
    }
    return SQLiteError(file: file, code: code, message: message, sql: sql)
  }
}
