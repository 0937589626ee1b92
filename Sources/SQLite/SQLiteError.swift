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
  // Extended result codes (sqlite3.h), spelled out: Swift does not import macros that shift.
  /// `SQLITE_READONLY_ROLLBACK`: a hot journal, which a read-only connection cannot roll back.
  static let readOnlyRollback = SQLITE_READONLY | (3 << 8)
  /// `SQLITE_READONLY_RECOVERY`: a write-ahead log that needs recovery.
  static let readOnlyRecovery = SQLITE_READONLY | (1 << 8)

  static let changedWhileReadMessage =
    "another program wrote to the database while it was read; build again"

  /// A damaged file: what SQLite said, and how to check it and save what it holds.
  static func damagedMessage(_ file: String) -> String {
    let quoted = shellQuoted(file)
    return "the database is damaged (\(malformedMessage)); check it with"
      + " sqlite3 \(quoted) 'PRAGMA integrity_check', and recover what can be read with"
      + " sqlite3 \(quoted) .recover | sqlite3 recovered.sqlite"
  }

  /// A hot journal: a writer crashed and its change must be rolled back by a connection that
  /// can write, which a read-only one cannot.
  static func hotJournalMessage(_ file: String) -> String {
    "another program crashed while writing to it, and its unfinished change in"
      + " '\(file)-journal' must be rolled back first: open the database once with write"
      + " access, e.g. sqlite3 \(shellQuoted(file)) 'PRAGMA integrity_check', then build again"
  }

  /// A write-ahead log left by a crashed writer, which only a connection that can write the
  /// `-shm` file can recover.
  static func walRecoveryMessage(_ file: String) -> String {
    "another program crashed while writing to it, and its write-ahead log '\(file)-wal' must"
      + " be recovered first: open the database once with write access, e.g. sqlite3"
      + " \(shellQuoted(file)) 'PRAGMA integrity_check', then build again"
  }

  /// Changes in a `-wal` file that SQLite can read only through a `-shm` file, in a folder
  /// where none can be made.
  static func walNeedsIndexMessage(_ file: String) -> String {
    "its write-ahead log '\(file)-wal' holds changes that SQLite can read only with a"
      + " '\(file)-shm' file beside it, which cannot be made in this folder; run sqlite3"
      + " \(shellQuoted(file)) 'PRAGMA wal_checkpoint' where the folder can be written, then"
      + " build again"
  }

  /// `path` in single quotes for a shell command.
  static func shellQuoted(_ path: String) -> String {
    "'" + path.replacing("'", with: "'\\''") + "'"
  }

  /// Builds an error from a result code, preferring clear texts for the codes users meet.
  static func from(
    code: Int32, connection: OpaquePointer?, file: String, sql: String? = nil
  ) -> SQLiteError {
    let message: String
    switch code {
    case readOnlyRollback:
      message = hotJournalMessage(file)
    case readOnlyRecovery:
      message = walRecoveryMessage(file)
    default:
      switch code & 0xFF {
      case SQLITE_BUSY, SQLITE_LOCKED:
        message = lockedMessage
      case SQLITE_NOTADB:
        message = notADatabaseMessage
      case SQLITE_CORRUPT:
        message = damagedMessage(file)
      default:
        if let connection, let text = sqlite3_errmsg(connection) {
          message = String(cString: text)
        } else if let text = sqlite3_errstr(code) {
          message = String(cString: text)
        } else {
          message = "SQLite error \(code)"
        }
      }
    }
    return SQLiteError(file: file, code: code, message: message, sql: sql)
  }
}
