import SQLite

/// Reads to-dos from the `todo` table of a database, read-only, in one snapshot.
///
/// The database stays open inside one read transaction from `init` until the source is
/// closed or released.
public final class TodoSource {
  /// The database path as the user gave it.
  public let path: String
  private let source: SourceDatabase
  private let columns: [String]

  /// Opens the database and checks the table and its columns.
  ///
  /// - Parameters:
  ///   - path: The database file, as the user gave it; warnings and errors name it so.
  ///   - busyTimeout: How long to wait while another program writes to the file.
  /// - Throws: ``SourceError`` naming the file when it cannot be read or lacks the table or a
  ///   column.
  public init(path: String, busyTimeout: Duration = .seconds(5)) throws {
    self.path = path
    source = try SourceDatabase(path: path, table: "todo", busyTimeout: busyTimeout)
    columns = try source.requireColumns(["pk", "text", "priority", "complete"])
  }

  /// Ends the snapshot and closes the database.
  public func close() {
    source.close()
  }

  /// Reads every to-do, sorted by `pk`, with a warning for each row that needed a repair.
  ///
  /// - Throws: ``SourceError`` when the database cannot be read.
  public func load() throws -> (todos: [Todo], warnings: [BuildWarning]) {
    let names = columns.map(quotedIdentifier)
    let sql = """
      SELECT \(names.joined(separator: ", ")) FROM \(quotedIdentifier(source.table)) \
      ORDER BY \(names[0])
      """
    var reader = RowReader(file: path)
    var todos: [Todo] = []
    // A damaged b-tree can return a row twice, anywhere in the scan.
    var seen = Set<Int64>()
    var ordinal = 0
    try source.forEachRow(sql) { row in
      ordinal += 1
      guard let pk = reader.key(row, 0, field: "pk", location: "todo row \(ordinal)") else {
        return
      }
      // Made only for a warning: most rows have none.
      func location() -> String { "todo pk=\(pk)" }
      guard seen.insert(pk).inserted else {
        reader.warn(location(), "pk \(pk) is used by more than one row; row skipped")
        return
      }
      let text = reader.text(row, 1, field: "text", location: location())
      let priority = Self.priority(row, 2, location: location, reader: &reader)
      todos.append(Todo(pk: pk, text: text, priority: priority, complete: Self.isComplete(row, 3)))
    }
    try source.checkSnapshot()
    return (todos, reader.warnings)
  }

  // MARK: - Fields

  /// 1, 2, 3 are High, Medium, Low; another whole number keeps its value; anything else is
  /// no priority. All but the first three are warnings.
  private static func priority(
    _ row: Row, _ index: Int, location makeLocation: () -> String, reader: inout RowReader
  ) -> Priority {
    var location: String { makeLocation() }
    let number: Int64
    switch row.columnType(at: index) {
    case .integer:
      number = row.int64(at: index) ?? 0
    case .real:
      let value = row.double(at: index) ?? .nan
      guard let whole = Int64(exactly: value) else {
        reader.warn(location, "priority \(reader.quotedValue(row, index)) is not a whole number")
        return .none
      }
      number = whole
    case .null:
      reader.warn(location, "priority is NULL")
      return .none
    case .text:
      reader.warn(location, "priority \(reader.quotedValue(row, index)) is text, not a number")
      return .none
    case .blob:
      reader.warn(location, "priority is a blob, not a number")
      return .none
    }
    let priority = Priority(number)
    if case .other = priority {
      reader.warn(location, "priority \(number) is not 1, 2 or 3")
    }
    return priority
  }

  /// 0 and NULL are In Progress; any other value is Complete.
  private static func isComplete(_ row: Row, _ index: Int) -> Bool {
    switch row.columnType(at: index) {
    case .null: return false
    case .integer: return row.int64(at: index) != 0
    case .real: return row.double(at: index) != 0
    case .text, .blob: return true
    }
  }
}
