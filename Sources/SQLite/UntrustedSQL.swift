import CSQLite

/// How long one run of a statement may take (from its first step until it has returned its
/// last row, failed or been reset), and what the error says when it is stopped.
public struct TimeLimit: Sendable, Equatable {
  /// The longest a run may take.
  public var duration: Duration
  /// The error's message when a run is stopped: lower-case start, no trailing period.
  public var message: String

  public init(_ duration: Duration, message: String) {
    self.duration = duration
    self.message = message
  }
}

/// What the authorizer and the progress handler of a connection share with Swift: the first
/// action the authorizer refused, and the time the running limited statement must end by.
final class QueryGuard {
  /// The first refused action, in words (`delete rows from 'tasks'`), since the last prepare.
  var refusal: String?
  /// When the running limited statement must stop; `nil` when none is running.
  var deadline: ContinuousClock.Instant?
  /// Set by the progress handler when it stopped a statement at its deadline.
  var stopped = false

  /// SQL functions that reach outside the database, refused whatever else a query may do.
  static let refusedFunctions: Set<String> = [
    "load_extension", "readfile", "writefile", "edit", "fts3_tokenizer",
  ]

  /// The authorizer's answer to `action`: reading and computing only. Records what it refuses.
  func authorize(_ action: Int32, _ first: String?, _ second: String?) -> Int32 {
    let what: String
    switch action {
    case SQLITE_SELECT, SQLITE_READ, SQLITE_RECURSIVE:
      return SQLITE_OK
    case SQLITE_FUNCTION:
      let name = second ?? ""
      guard Self.refusedFunctions.contains(name.lowercased()) else { return SQLITE_OK }
      what = "call \(name)(), which reaches outside the database"
    case SQLITE_INSERT: what = "insert rows into '\(first ?? "")'"
    case SQLITE_UPDATE: what = "update '\(first ?? "")'"
    case SQLITE_DELETE: what = "delete rows from '\(first ?? "")'"
    case SQLITE_ATTACH: what = "attach a database"
    case SQLITE_DETACH: what = "detach a database"
    case SQLITE_PRAGMA: what = "run PRAGMA \(first ?? "")"
    case SQLITE_TRANSACTION: what = "start or end a transaction"
    case SQLITE_SAVEPOINT: what = "make a savepoint"
    case SQLITE_ANALYZE: what = "run ANALYZE"
    case SQLITE_REINDEX: what = "run REINDEX"
    case SQLITE_ALTER_TABLE: what = "alter a table"
    case SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_INDEX,
      SQLITE_CREATE_TEMP_TABLE, SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW,
      SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW, SQLITE_CREATE_VTABLE:
      what = "create '\(first ?? "")'"
    case SQLITE_DROP_INDEX, SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TABLE,
      SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_TRIGGER, SQLITE_DROP_VIEW,
      SQLITE_DROP_VTABLE:
      what = "drop '\(first ?? "")'"
    default:
      what = "do something other than read (SQLite action \(action))"
    }
    // A CREATE or DROP begins with a write to the schema table, and the refusal of that write
    // ends the compiling: it is said as what it is.
    let writesSchema =
      [SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE].contains(action)
      && ["sqlite_master", "sqlite_temp_master", "sqlite_schema"].contains(first?.lowercased())
    if refusal == nil { refusal = writesSchema ? "change the schema" : what }
    return SQLITE_DENY
  }

  /// Whether the running limited statement is past its deadline (and must stop).
  func isPastDeadline() -> Bool {
    guard let deadline, ContinuousClock.now >= deadline else { return false }
    stopped = true
    return true
  }
}

/// The authorizer SQLite calls while untrusted SQL is compiled; `context` is the `QueryGuard`.
private func readOnlyAuthorizer(
  _ context: UnsafeMutableRawPointer?, _ action: Int32, _ first: UnsafePointer<CChar>?,
  _ second: UnsafePointer<CChar>?, _ database: UnsafePointer<CChar>?,
  _ trigger: UnsafePointer<CChar>?
) -> Int32 {
  guard let context else { return SQLITE_DENY }
  let guardian = Unmanaged<QueryGuard>.fromOpaque(context).takeUnretainedValue()
  return guardian.authorize(
    action, first.map { String(cString: $0) }, second.map { String(cString: $0) })
}

/// The authorizer of a connection whose schema is read trusted (`Database.validate`): every
/// action the read-only connection allows, but no function that reaches outside the database.
func schemaAuthorizer(
  _ context: UnsafeMutableRawPointer?, _ action: Int32, _ first: UnsafePointer<CChar>?,
  _ second: UnsafePointer<CChar>?, _ database: UnsafePointer<CChar>?,
  _ trigger: UnsafePointer<CChar>?
) -> Int32 {
  guard action == SQLITE_FUNCTION, let second else { return SQLITE_OK }
  let name = String(cString: second).lowercased()
  return QueryGuard.refusedFunctions.contains(name) ? SQLITE_DENY : SQLITE_OK
}

/// The progress handler: non-zero stops the running statement (`SQLITE_INTERRUPT`).
private func deadlineHandler(_ context: UnsafeMutableRawPointer?) -> Int32 {
  guard let context else { return 0 }
  return Unmanaged<QueryGuard>.fromOpaque(context).takeUnretainedValue().isPastDeadline() ? 1 : 0
}

extension Database {
  /// How many virtual-machine steps SQLite runs between two looks at the clock.
  static let progressInterval: Int32 = 1000

  /// Compiles SQL that taskpress did not write (a query from the user's settings), or SQL that
  /// holds such SQL, so that it can only read, and limits each of its runs in time.
  ///
  /// - Only one statement: text after it other than spaces and comments is an error.
  /// - An authorizer, installed only while the SQL is compiled, allows reading tables and
  ///   columns, `SELECT`, recursive common table expressions and functions, but no function that
  ///   reaches outside the database (`load_extension`, `readfile`, ...); everything else is
  ///   refused: writes, `ATTACH`, `PRAGMA`, transactions, schema changes.
  /// - A progress handler stops a run that passes `timeLimit` with its message.
  ///
  /// The connection stays read-only and defensive whatever the SQL says; the authorizer only
  /// makes its refusals clear and early.
  ///
  /// - Throws: ``SQLiteError`` with SQLite's message and, for a syntax error, the line and
  ///   column in `sql`; or naming what the SQL may not do.
  public func prepareUntrusted(_ sql: String, timeLimit: TimeLimit) throws -> Statement {
    guard !sql.utf8.contains(0) else {
      throw SQLiteError(file: path, code: SQLITE_ERROR, message: "the SQL holds a NUL character")
    }
    let guardian = installQueryGuard()
    guardian.refusal = nil
    sqlite3_set_authorizer(
      handle, readOnlyAuthorizer, Unmanaged.passUnretained(guardian).toOpaque())
    defer {
      if schemaIsGuarded {
        sqlite3_set_authorizer(handle, schemaAuthorizer, nil)
      } else {
        sqlite3_set_authorizer(handle, nil, nil)
      }
    }
    var prepared: OpaquePointer?
    var consumed = 0
    let code = sql.withCString { text in
      var tail: UnsafePointer<CChar>?
      let code = sqlite3_prepare_v2(handle, text, -1, &prepared, &tail)
      if let tail { consumed = text.distance(to: tail) }
      return code
    }
    guard code == SQLITE_OK else {
      let offset = Int(sqlite3_error_offset(handle))
      sqlite3_finalize(prepared)
      throw untrustedError(code: code, sql: sql, offset: offset, refusal: guardian.refusal)
    }
    guard let prepared else {
      throw SQLiteError(file: path, code: SQLITE_ERROR, message: "the SQL holds no statement")
    }
    let rest = String(decoding: sql.utf8.dropFirst(consumed), as: UTF8.self)
    if !isOnlyComments(rest) {
      sqlite3_finalize(prepared)
      let (line, column) = Self.position(of: consumed, in: sql)
      throw SQLiteError(
        file: path, code: SQLITE_ERROR,
        message: "more than one statement: only one SELECT may be given, but more follows at"
          + " line \(line), column \(column)")
    }
    guard sqlite3_stmt_readonly(prepared) != 0 else {
      sqlite3_finalize(prepared)
      throw SQLiteError(
        file: path, code: SQLITE_AUTH, message: "may only read, and this statement writes")
    }
    let statement = Statement(database: self, sql: sql, handle: prepared)
    statement.timeLimit = timeLimit
    statement.statementLength = consumed
    return statement
  }

  /// The connection's guard, made and its progress handler installed on first use.
  private func installQueryGuard() -> QueryGuard {
    if let queryGuard { return queryGuard }
    let guardian = QueryGuard()
    queryGuard = guardian
    sqlite3_progress_handler(
      handle, Self.progressInterval, deadlineHandler, Unmanaged.passUnretained(guardian).toOpaque())
    return guardian
  }

  /// Whether `text` holds no statement: only spaces, comments and semicolons. Compiled under
  /// the authorizer already installed, and never run.
  private func isOnlyComments(_ text: String) -> Bool {
    guard text.contains(where: { !$0.isWhitespace }) else { return true }
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v2(handle, text, -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    return code == SQLITE_OK && statement == nil
  }

  private func untrustedError(
    code: Int32, sql: String, offset: Int, refusal: String?
  ) -> SQLiteError {
    if (code & 0xFF) == SQLITE_AUTH || refusal != nil {
      let what = refusal ?? "do something other than read"
      return SQLiteError(
        file: path, code: code, message: "may only read, but it would \(what)")
    }
    var message = SQLiteError.from(code: code, connection: handle, file: path).message
    if offset >= 0, offset <= sql.utf8.count {
      let (line, column) = Self.position(of: offset, in: sql)
      message += " (at line \(line), column \(column))"
    }
    return SQLiteError(file: path, code: code, message: message)
  }

  /// The 1-based line and column (in characters) of the byte at `offset` of `text`.
  static func position(of offset: Int, in text: String) -> (line: Int, column: Int) {
    let before = String(decoding: text.utf8.prefix(offset), as: UTF8.self)
    let lines = before.split(separator: "\n", omittingEmptySubsequences: false)
    return (lines.count, (lines.last?.count ?? 0) + 1)
  }
}

extension Statement {
  /// The statement's own text: the SQL it was compiled from, without the spaces, comments and
  /// semicolons after it (for a statement from ``Database/prepareUntrusted(_:timeLimit:)``,
  /// which checked there is nothing else).
  public var statementText: String {
    var bytes = Array(sql.utf8.prefix(statementLength ?? sql.utf8.count))
    while let last = bytes.last,
      last == UInt8(ascii: ";") || last == 0x20 || (0x09...0x0D).contains(last)
    {
      bytes.removeLast()
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Starts the time limit of a run that is starting, when this statement has one and no other
  /// limited statement's run is under way.
  func armTimeLimit() {
    guard let timeLimit, !isTiming, sqlite3_stmt_busy(handle) == 0,
      let guardian = database.queryGuard, guardian.deadline == nil
    else { return }
    guardian.deadline = ContinuousClock.now + timeLimit.duration
    guardian.stopped = false
    isTiming = true
  }

  /// Ends the time limit this statement started; returns whether the progress handler stopped it.
  @discardableResult
  func disarmTimeLimit() -> Bool {
    guard let guardian = database.queryGuard else { return false }
    let stopped = guardian.stopped
    if isTiming {
      guardian.deadline = nil
      guardian.stopped = false
      isTiming = false
    }
    return stopped
  }
}
