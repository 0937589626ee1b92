import CSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A read-only connection to one SQLite database file.
///
/// The file is opened with `SQLITE_OPEN_READONLY` and a `mode=ro` URI, so SQLite never creates
/// it and never writes to it. Opening checks up front that the file is a readable database and
/// throws an error naming the file when it is not. A connection is used from one thread at a
/// time (it is opened with `SQLITE_OPEN_NOMUTEX`).
///
/// Every file is read as untrusted, as SQLite's "Defense Against the Dark Arts" advises: cells
/// are checked as pages are read (`cell_size_check`), so a damaged page fails the same way on
/// every run instead of reading past its end; defensive mode; no memory-mapped reads; SQL in the
/// schema (views) may call only innocuous functions (`trusted_schema=OFF`); tighter limits on
/// what that SQL may do. A WAL-mode database whose log holds no changes is read without making
/// `-wal` and `-shm` files beside it (see `ImmutableRead`).
public final class Database {
  /// The path as the caller gave it; errors name the file this way.
  public let path: String
  let handle: OpaquePointer
  private var snapshotDepth = 0
  /// Whether the schema is read trusted under `schemaAuthorizer` (see `validate`): the
  /// authorizer stays on for every statement.
  var schemaIsGuarded = false
  /// Set when the file is read with `immutable=1`: the lock that makes that safe.
  private var immutableRead: ImmutableRead?
  /// The authorizer's and progress handler's state, once untrusted SQL was compiled.
  var queryGuard: QueryGuard?

  /// Opens the database at `path` read-only.
  ///
  /// - Parameters:
  ///   - path: The database file. It must exist; it is never created.
  ///   - busyTimeout: How long to wait for another program's write lock before failing with
  ///     "database is locked".
  /// - Throws: ``SQLiteError`` naming the file when it is missing, not a database, malformed
  ///   or locked.
  public convenience init(path: String, busyTimeout: Duration = .seconds(5)) throws {
    let fileSize = try Self.checkFile(path)
    let immutable = try ImmutableRead.begin(path: path, busyTimeout: busyTimeout)
    var uri = "file:" + Self.uriEscaped(path) + "?mode=ro"
    if immutable != nil { uri += "&immutable=1" }
    let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
    try self.init(path: path, uri: uri, flags: flags, busyTimeout: busyTimeout)
    immutableRead = immutable
    try harden()
    try validate(fileSize: fileSize)
  }

  /// Whether the file is read with `immutable=1`, making no file beside it.
  public var isReadImmutably: Bool { immutableRead != nil }

  init(path: String, uri: String, flags: Int32, busyTimeout: Duration) throws {
    var connection: OpaquePointer?
    let code = sqlite3_open_v2(uri, &connection, flags, nil)
    guard let connection else {
      throw SQLiteError(file: path, code: SQLITE_NOMEM, message: "out of memory")
    }
    guard code == SQLITE_OK else {
      let error = SQLiteError.from(code: code, connection: connection, file: path)
      sqlite3_close_v2(connection)
      throw error
    }
    self.path = path
    self.handle = connection
    sqlite3_extended_result_codes(connection, 1)
    let components = busyTimeout.components
    let milliseconds =
      components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    sqlite3_busy_timeout(connection, Int32(clamping: max(0, milliseconds)))
  }

  deinit {
    sqlite3_close_v2(handle)
  }

  // MARK: - Statements

  /// Compiles one SQL statement.
  public func prepare(_ sql: String) throws -> Statement {
    try Statement(database: self, sql: sql)
  }

  /// Compiles exactly one SQL statement: text after it is an error, not ignored.
  public func prepareSingle(_ sql: String) throws -> Statement {
    try Statement(database: self, sql: sql, single: true)
  }

  /// Runs SQL that returns no rows (one or more statements).
  public func execute(_ sql: String) throws {
    let code = sqlite3_exec(handle, sql, nil, nil, nil)
    guard code == SQLITE_OK else { throw error(code: code, sql: sql) }
  }

  // MARK: - Snapshots

  /// Starts a read transaction and reads once, so every later read sees the same snapshot
  /// until ``endSnapshot()``, even while another program writes. Calls nest.
  public func beginSnapshot() throws {
    if snapshotDepth == 0 {
      try execute("BEGIN DEFERRED")
      do {
        // A deferred transaction takes its snapshot at the first read.
        let statement = try prepare("SELECT count(*) FROM sqlite_master")
        _ = try statement.step()
      } catch {
        try? execute("ROLLBACK")
        throw error
      }
    }
    snapshotDepth += 1
  }

  /// Ends the read transaction started by ``beginSnapshot()``.
  public func endSnapshot() throws {
    guard snapshotDepth > 0 else { return }
    snapshotDepth -= 1
    if snapshotDepth == 0 {
      try execute("COMMIT")
    }
  }

  /// Throws when the snapshot may not have been one state of the file: read without SQLite's
  /// locks (see ``isReadImmutably``), while another program opened the database and wrote to
  /// the file. Call it once everything is read; it does nothing for a file SQLite locked.
  public func checkSnapshot() throws {
    try immutableRead?.check()
  }

  /// Whether a snapshot begun by ``beginSnapshot()`` is open.
  public var isInSnapshot: Bool { snapshotDepth > 0 }

  /// Runs `body` inside one read transaction.
  public func read<T>(_ body: () throws -> T) throws -> T {
    try beginSnapshot()
    let result: T
    do {
      result = try body()
    } catch {
      try? endSnapshot()
      throw error
    }
    try endSnapshot()
    return result
  }

  // MARK: - BLOBs

  /// Opens the BLOB (or TEXT) value in `table.column` of row `rowid` for incremental reading.
  public func openBlob(table: String, column: String, rowid: Int64) throws -> BlobReader {
    try BlobReader(database: self, table: table, column: column, rowid: rowid)
  }

  // MARK: - Errors

  func error(code: Int32, sql: String? = nil) -> SQLiteError {
    SQLiteError.from(code: code, connection: handle, file: path, sql: sql)
  }

  // MARK: - Opening

  /// What SQLite's advice for untrusted database files asks of a connection (see the type's
  /// documentation).
  private func harden() throws {
    _ = taskpress_sqlite3_db_config_flag(handle, SQLITE_DBCONFIG_DEFENSIVE, 1)
    _ = taskpress_sqlite3_db_config_flag(handle, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0)
    let limits: [(Int32, Int32)] = [
      (SQLITE_LIMIT_ATTACHED, 0),
      (SQLITE_LIMIT_SQL_LENGTH, 1_000_000),
      (SQLITE_LIMIT_EXPR_DEPTH, 100),
      (SQLITE_LIMIT_COMPOUND_SELECT, 50),
      (SQLITE_LIMIT_VDBE_OP, 1_000_000),
      (SQLITE_LIMIT_FUNCTION_ARG, 32),
      (SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1000),
      (SQLITE_LIMIT_VARIABLE_NUMBER, 100),
      (SQLITE_LIMIT_TRIGGER_DEPTH, 10),
    ]
    for (limit, value) in limits {
      sqlite3_limit(handle, limit, value)
    }
    try execute("PRAGMA cell_size_check = ON; PRAGMA mmap_size = 0")
  }

  /// Reads the schema, so a file that is not a database fails here with a clear error.
  /// A file cut in the middle of a page is caught here too: its pages past the schema would
  /// otherwise read as zeros and fail only later.
  private func validate(fileSize: Int64?) throws {
    do {
      let statement = try prepare("SELECT count(*) FROM sqlite_master")
      _ = try statement.step()
    } catch {
      // A schema whose generated columns or views call a function this SQLite does not mark
      // innocuous (`json_extract` before 3.45: Taskwarrior 3's `operations`) reads as
      // malformed while the schema is untrusted. Such a schema is read trusted, under an
      // authorizer that refuses the functions that reach outside the database instead.
      guard String(cString: sqlite3_errmsg(handle)).contains("unsafe use of") else { throw error }
      _ = taskpress_sqlite3_db_config_flag(handle, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 1)
      sqlite3_set_authorizer(handle, schemaAuthorizer, nil)
      schemaIsGuarded = true
      let statement = try prepare("SELECT count(*) FROM sqlite_master")
      _ = try statement.step()
    }
    let pageSize = try prepare("PRAGMA page_size")
    if let fileSize, let size = try pageSize.step()?.int64(at: 0), size > 0,
      fileSize % size != 0
    {
      throw SQLiteError(
        file: path, code: SQLITE_CORRUPT, message: SQLiteError.damagedMessage(path))
    }
  }

  /// Gives clear errors for the file-system cases SQLite reports only as "unable to open".
  /// Returns the size of a regular file.
  private static func checkFile(_ path: String) throws -> Int64? {
    var info = stat()
    guard stat(path, &info) == 0 else {
      let number = errno
      let message: String
      switch number {
      case ENOENT: message = "no such file"
      case EACCES: message = "permission denied"
      case ENOTDIR: message = "no such file (a parent is not a folder)"
      default: message = String(cString: strerror(number))
      }
      throw SQLiteError(file: path, code: SQLITE_CANTOPEN, message: message)
    }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      throw SQLiteError(
        file: path, code: SQLITE_CANTOPEN, message: "is a folder, not a SQLite database")
    }
    if (info.st_mode & S_IFMT) == S_IFREG && info.st_size == 0 {
      throw SQLiteError(
        file: path, code: SQLITE_NOTADB, message: "file is empty, not a SQLite database")
    }
    if access(path, R_OK) != 0 {
      throw SQLiteError(file: path, code: SQLITE_CANTOPEN, message: "permission denied")
    }
    return (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : nil
  }

  /// Escapes the characters a `file:` URI gives meaning to.
  static func uriEscaped(_ path: String) -> String {
    var result = ""
    // "//" would start an authority; an absolute path gets an empty one instead.
    if path.hasPrefix("/") { result = "//" }
    for character in path.unicodeScalars {
      switch character {
      case "%": result += "%25"
      case "?": result += "%3F"
      case "#": result += "%23"
      default: result.unicodeScalars.append(character)
      }
    }
    return result
  }
}
