import CSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension Database {
  /// Creates a database file at `path` from an SQL script, for test fixtures only.
  ///
  /// This is the one place that writes; production code opens files read-only with
  /// ``Database/init(path:busyTimeout:)``. Fails if the file already exists.
  @_spi(Testing)
  public static func createForTesting(at path: String, sql: String) throws {
    // SQLITE_OPEN_EXCLUSIVE is a no-op for sqlite3_open_v2, so check first.
    guard access(path, F_OK) != 0 else {
      throw SQLiteError(file: path, code: SQLITE_CANTOPEN, message: "file already exists")
    }
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
    let database = try Database(
      path: path, uri: path, flags: flags, busyTimeout: .seconds(5))
    try database.execute(sql)
  }

  /// Opens a writable connection to an existing database (or `":memory:"`), for tests only:
  /// e.g. to hold a write lock, or to build values of every type in memory.
  @_spi(Testing)
  public static func openWritableForTesting(
    at path: String, busyTimeout: Duration = .seconds(5)
  ) throws -> Database {
    try Database(
      path: path, uri: path, flags: SQLITE_OPEN_READWRITE, busyTimeout: busyTimeout)
  }
}
