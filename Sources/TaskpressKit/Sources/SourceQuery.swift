import SQLite

/// A source mapped by a query (`"query"` in `taskpress.json`): SQL the user wrote, read as if
/// its result were a table.
///
/// The query is compiled alone first, so that its errors point into it (line and column) and
/// it is checked to be one statement that only reads (`Database.prepareUntrusted`). The readers
/// then read `FROM (` the query `)`, the query on lines of its own so that a `--` comment at its
/// end cannot hide the closing parenthesis; each statement that does is compiled under the same
/// authorizer and runs under the query's time limit.
public struct SourceQuery {
  /// How long one read of a query may run unless `--query-timeout` says otherwise.
  public static let defaultTimeout: Duration = .seconds(30)

  /// What a `SELECT` reads the query's rows from: the query in parentheses.
  let fromClause: String
  /// The query's result columns as the readers see them, in order.
  let columns: [String]
  /// The time limit of each read, with its error.
  let limit: TimeLimit

  /// Checks `sql` and finds its result columns.
  ///
  /// - Throws: ``SourceError`` naming the file and the source, with SQLite's message and the
  ///   position in the query, or saying what the query may not do.
  init(_ sql: String, source: String, file: String, timeout: Duration, in database: Database)
    throws
  {
    let name = "the \"\(source)\" query"
    limit = TimeLimit(
      timeout,
      message: "\(name) stopped after \(Self.seconds(timeout)) (--query-timeout); make it read"
        + " less (an index on what it joins or filters on helps), or give it longer with"
        + " --query-timeout SECONDS")
    do {
      let statement = try database.prepareUntrusted(sql, timeLimit: limit)
      fromClause = "(\n" + statement.statementText + "\n)"
    } catch let error as SQLiteError {
      throw SourceError(file: file, message: "\(name): \(error.message)", underlying: error)
    }
    do {
      let wrapped = try database.prepareUntrusted("SELECT * FROM \(fromClause)", timeLimit: limit)
      columns = (0..<wrapped.columnCount).map(wrapped.columnName(at:))
    } catch let error as SQLiteError {
      throw SourceError(
        file: file, message: "\(name) cannot be read as a table: \(error.message)",
        underlying: error)
    }
  }

  /// The key in `taskpress.json` of the source whose usual table is `table`.
  static func sourceName(table: String) -> String {
    table == "todo" ? "todos" : table
  }

  /// `30 s`, `1.5 s`.
  static func seconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    guard attoseconds != 0 else { return "\(seconds) s" }
    return "\(Double(seconds) + Double(attoseconds) / 1e18) s"
  }
}

extension SourceError {
  /// A field the query's result has no column for, with the result columns and the closest.
  static func missingQueryColumns(
    file: String, source: String, missing: [String], found: [String]
  ) -> SourceError {
    let names = missing.map { "'\($0)'" }
    let what =
      names.count == 1
      ? "column \(names[0])"
      : "columns \(names.dropLast().joined(separator: ", ")) and \(names[names.count - 1])"
    var message =
      "the \"\(source)\" query has no \(what) (found: \(found.joined(separator: ", ")))"
    if let first = missing.first, let suggestion = closestName(to: first, in: found) {
      message += "; did you mean '\(suggestion)'?"
    }
    message += " (a result column is named by its field: SELECT title AS text)"
    return SourceError(file: file, message: message)
  }
}
