import CSQLite

/// `SQLITE_TRANSIENT`: SQLite copies bound values at once. The C macro cannot be imported.
private let transient = unsafeBitCast(
  OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// A compiled SQL statement; finalized when released.
public final class Statement {
  /// The SQL text as given.
  public let sql: String
  let database: Database
  let handle: OpaquePointer
  /// How long each run may take, for a statement of untrusted SQL (`prepareUntrusted`).
  var timeLimit: TimeLimit?
  /// The bytes of `sql` the statement was compiled from, when what follows was checked.
  var statementLength: Int?
  /// Whether the running time limit is this statement's.
  var isTiming = false

  init(database: Database, sql: String, handle: OpaquePointer) {
    self.database = database
    self.sql = sql
    self.handle = handle
  }

  init(database: Database, sql: String, single: Bool = false) throws {
    var statement: OpaquePointer?
    var rest = ""
    let code = sql.withCString { text in
      var tail: UnsafePointer<CChar>?
      let code = sqlite3_prepare_v2(database.handle, text, -1, &statement, &tail)
      if let tail { rest = String(cString: tail) }
      return code
    }
    guard code == SQLITE_OK else {
      sqlite3_finalize(statement)
      throw database.error(code: code, sql: sql)
    }
    if single, rest.contains(where: { !$0.isWhitespace }) {
      sqlite3_finalize(statement)
      throw SQLiteError(
        file: database.path, code: SQLITE_ERROR, message: "more than one statement", sql: sql)
    }
    guard let statement else {
      throw SQLiteError(
        file: database.path, code: SQLITE_MISUSE, message: "no statement in the SQL", sql: sql)
    }
    self.database = database
    self.sql = sql
    self.handle = statement
  }

  deinit {
    if isTiming { disarmTimeLimit() }
    sqlite3_finalize(handle)
  }

  // MARK: - Binding

  /// Binds an integer (or NULL) to the 1-based parameter `index`.
  public func bind(_ value: Int64?, at index: Int32) throws {
    let code: Int32
    if let value {
      code = sqlite3_bind_int64(handle, index, value)
    } else {
      code = sqlite3_bind_null(handle, index)
    }
    try check(code)
  }

  /// Binds a text (or NULL) to the 1-based parameter `index`.
  public func bind(_ value: String?, at index: Int32) throws {
    let code: Int32
    if let value {
      var value = value
      code = value.withUTF8 { bytes in
        sqlite3_bind_text(handle, index, bytes.baseAddress, Int32(bytes.count), transient)
      }
    } else {
      code = sqlite3_bind_null(handle, index)
    }
    try check(code)
  }

  /// Clears the bindings and rewinds the statement so it can run again.
  public func reset() {
    if isTiming { disarmTimeLimit() }
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }

  // MARK: - Stepping

  /// Steps to the next row; `nil` when there are no more rows.
  ///
  /// The row reads the statement's current values, so read it before stepping again.
  public func step() throws -> Row? {
    if timeLimit != nil { armTimeLimit() }
    let code = sqlite3_step(handle)
    switch code {
    case SQLITE_ROW:
      return Row(statement: self)
    case SQLITE_DONE:
      if isTiming { disarmTimeLimit() }
      return nil
    default:
      let stopped = timeLimit != nil && disarmTimeLimit()
      sqlite3_reset(handle)
      if let timeLimit, stopped, (code & 0xFF) == SQLITE_INTERRUPT {
        throw SQLiteError(file: database.path, code: code, message: timeLimit.message)
      }
      if timeLimit != nil {
        // SQL the user wrote: its error without the SQL around it, which taskpress wrote.
        throw SQLiteError.from(code: code, connection: database.handle, file: database.path)
      }
      throw database.error(code: code, sql: sql)
    }
  }

  /// Calls `body` with each row in turn.
  public func forEachRow(_ body: (Row) throws -> Void) throws {
    while let row = try step() {
      try body(row)
    }
  }

  /// The number of result columns.
  public var columnCount: Int { Int(sqlite3_column_count(handle)) }

  /// The name of result column `index` (0-based).
  public func columnName(at index: Int) -> String {
    guard let name = sqlite3_column_name(handle, Int32(index)) else { return "" }
    return String(cString: name)
  }

  private func check(_ code: Int32) throws {
    guard code == SQLITE_OK else { throw database.error(code: code, sql: sql) }
  }
}
