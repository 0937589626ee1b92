import SQLite

/// An open source database inside one read snapshot, with its table resolved: what every
/// source shares. Names are matched case-insensitively, as SQLite itself does.
///
/// A source mapped by a `query` reads the query's result as if it were a table: its rows come
/// `FROM (query)` (``fromClause``), its columns are the query's result columns, and every
/// statement that reads it is compiled under an authorizer that allows reading only and runs
/// under the query's time limit (`SourceQuery.swift`).
final class SourceDatabase {
  /// The path as the user gave it.
  let file: String
  /// The table's name as spelled in the database; for a query, `query`.
  let table: String
  /// The table's (or the query's result) columns as spelled in the database, in order.
  let columns: [String]
  /// ` WHERE (condition)` for the mapping's filter, or empty.
  let whereClause: String
  /// What a `SELECT` reads from after `FROM`: the quoted table, or the query in parentheses.
  let fromClause: String
  /// The query's time limit, for a source mapped by a query; `nil` for a table.
  let queryLimit: TimeLimit?
  /// The source's key in `taskpress.json` (`todos`, `possessions`, `contacts`), for errors.
  let sourceName: String
  private var database: Database?

  /// Opens `path`, starts the snapshot and finds `table`, or the mapping's table (an error
  /// naming the tables found), and checks the mapping's filter; or checks the mapping's query
  /// (see ``SourceQuery``).
  init(
    path: String, table usual: String, mapping: SourceMapping = SourceMapping(),
    busyTimeout: Duration, queryTimeout: Duration = SourceQuery.defaultTimeout
  ) throws {
    file = path
    sourceName = SourceQuery.sourceName(table: usual)
    let wanted = mapping.table ?? usual
    do {
      let database = try Database(path: path, busyTimeout: busyTimeout)
      try database.beginSnapshot()
      if let sql = mapping.query {
        let query = try SourceQuery(
          sql, source: sourceName, file: path, timeout: queryTimeout, in: database)
        table = "query"
        columns = query.columns
        fromClause = query.fromClause
        whereClause = ""
        queryLimit = query.limit
        self.database = database
        return
      }
      queryLimit = nil
      let tables = try Self.tableNames(in: database)
      guard let table = tables.first(where: { Self.sameName($0, wanted) }) else {
        throw SourceError.noTable(file: path, table: wanted, found: tables)
      }
      self.table = table
      fromClause = quotedIdentifier(table)
      self.columns = try Self.columnNames(of: table, in: database)
      if let filter = mapping.filter {
        whereClause = " WHERE (\(filter))"
        do {
          _ = try database.prepareSingle(
            "SELECT 1 FROM \(quotedIdentifier(table))\(whereClause)")
        } catch let error as SQLiteError {
          throw SourceError(
            file: path, message: "the filter '\(filter)' for table '\(table)': \(error.message)")
        }
      } else {
        whereClause = ""
      }
      self.database = database
    } catch let error as SQLiteError {
      throw SourceError(error)
    }
  }

  /// Ends the snapshot and closes the file. Later reads throw.
  func close() {
    try? database?.endSnapshot()
    database = nil
  }

  /// The database, or an error once closed.
  func open() throws -> Database {
    guard let database else { throw SourceError.closed(file: file) }
    return database
  }

  // MARK: - Columns

  /// The column named `wanted` as spelled in the table, if it has one.
  func column(_ wanted: String) -> String? {
    columns.first { Self.sameName($0, wanted) }
  }

  /// The columns named `wanted`, as spelled in the table; an error naming every missing one.
  func requireColumns(_ wanted: [String]) throws -> [String] {
    let found = wanted.map(column)
    let missing = zip(wanted, found).filter { $0.1 == nil }.map(\.0)
    guard missing.isEmpty else {
      if queryLimit != nil {
        throw SourceError.missingQueryColumns(
          file: file, source: sourceName, missing: missing, found: columns)
      }
      throw SourceError.missingColumns(file: file, table: table, missing: missing, found: columns)
    }
    return found.compactMap { $0 }
  }

  /// The name that reads the table's rowid, or `nil` for a view or a `WITHOUT ROWID` table
  /// (or one whose columns take every name of the rowid).
  func rowidName() -> String? {
    // A query's rows have no rowid, and blob I/O needs a table.
    guard let database, queryLimit == nil else { return nil }
    // A view may answer to `rowid`, but not with a row that blob I/O can open.
    let kind = try? database.prepare("SELECT type FROM sqlite_master WHERE name = ?1")
    try? kind?.bind(table, at: 1)
    if let row = try? kind?.step(), row.text(at: 0)?.string != "table" { return nil }
    for name in ["rowid", "_rowid_", "oid"] where column(name) == nil {
      let sql = "SELECT \(name) FROM \(quotedIdentifier(table)) LIMIT 0"
      if (try? database.prepare(sql)) != nil { return name }
    }
    return nil
  }

  /// Throws when the snapshot may not have been one state of the file (see
  /// `Database.checkSnapshot()`); call it once everything is read.
  func checkSnapshot() throws {
    do {
      try open().checkSnapshot()
    } catch let error as SQLiteError {
      throw SourceError(error)
    }
  }

  /// Compiles `sql`, wrapping SQLite errors; for a query source, under its authorizer and
  /// time limit.
  func prepare(_ sql: String) throws -> Statement {
    do {
      if let queryLimit {
        return try open().prepareUntrusted(sql, timeLimit: queryLimit)
      }
      return try open().prepare(sql)
    } catch let error as SQLiteError {
      throw SourceError(error)
    }
  }

  /// Runs `sql`, wrapping SQLite errors; for a query source, under its authorizer and time
  /// limit.
  func forEachRow(_ sql: String, _ body: (Row) throws -> Void) throws {
    let statement = try prepare(sql)
    do {
      try statement.forEachRow(body)
    } catch let error as SQLiteError {
      throw SourceError(error)
    }
  }

  /// The mapping the readers use: `mapping` itself for a table; for a query, each result
  /// column that names a field maps that field to itself, so that an optional field the query
  /// returns is read as if the mapping had named its column.
  func resolved(_ mapping: SourceMapping) -> SourceMapping {
    guard queryLimit != nil else { return mapping }
    var resolved = mapping
    for column in columns where resolved.columns[column.lowercased()] == nil {
      resolved.columns[column.lowercased()] = column
    }
    return resolved
  }

  // MARK: - Schema

  private static func tableNames(in database: Database) throws -> [String] {
    var names: [String] = []
    let sql = """
      SELECT name FROM sqlite_master
      WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
      ORDER BY rowid
      """
    try database.prepare(sql).forEachRow { row in
      if let name = row.text(at: 0)?.string { names.append(name) }
    }
    return names
  }

  private static func columnNames(of table: String, in database: Database) throws -> [String] {
    var names: [String] = []
    let statement = try database.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")
    try statement.bind(table, at: 1)
    try statement.forEachRow { row in
      if let name = row.text(at: 0)?.string { names.append(name) }
    }
    return names
  }

  /// SQLite compares identifiers case-insensitively in ASCII only; so does this.
  static func sameName(_ lhs: String, _ rhs: String) -> Bool {
    lhs.utf8.count == rhs.utf8.count
      && zip(lhs.utf8, rhs.utf8).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
  }

  private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
  }
}

/// `"name"` with embedded quotes doubled, for SQL text.
func quotedIdentifier(_ name: String) -> String {
  "\"" + name.replacing("\"", with: "\"\"") + "\""
}
