import SQLite

/// A source database that cannot be read: missing, not a database, locked, or without the
/// table or columns taskpress needs.
public struct SourceError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The input file, as the user gave its path.
  public var file: String
  /// What is wrong: lower-case start, no trailing period, names in quotes.
  public var message: String
  /// The SQLite error behind this one, if any.
  public var underlying: SQLiteError?

  public init(file: String, message: String, underlying: SQLiteError? = nil) {
    self.file = file
    self.message = message
    self.underlying = underlying
  }

  /// Wraps an error from the SQLite layer, keeping its message.
  public init(_ error: SQLiteError) {
    self.init(file: error.file, message: error.detail, underlying: error)
  }

  /// `todo.sqlite: table 'todo' has no column 'priority' (found: pk, text, complete)`
  public var description: String { "\(file): \(message)" }
}

// MARK: - Schema errors

extension SourceError {
  static func noTable(file: String, table: String, found: [String]) -> SourceError {
    let list = found.isEmpty ? "the file has no tables" : "found: " + found.joined(separator: ", ")
    return SourceError(file: file, message: "no table '\(table)' (\(list))")
  }

  static func missingColumns(
    file: String, table: String, missing: [String], found: [String]
  ) -> SourceError {
    let names = missing.map { "'\($0)'" }
    let what =
      names.count == 1
      ? "column \(names[0])"
      : "columns \(names.dropLast().joined(separator: ", ")) and \(names[names.count - 1])"
    let list = found.joined(separator: ", ")
    return SourceError(file: file, message: "table '\(table)' has no \(what) (found: \(list))")
  }

  static func closed(file: String) -> SourceError {
    SourceError(file: file, message: "the source was closed before it was read")
  }
}
