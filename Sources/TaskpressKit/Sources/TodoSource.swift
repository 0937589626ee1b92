import SQLite

/// Reads to-dos from the `todo` table of a database (or the table, columns and rows a
/// ``SourceMapping`` names), read-only, in one snapshot.
///
/// The database stays open inside one read transaction from `init` until the source is
/// closed or released.
public final class TodoSource {
  /// The database path as the user gave it.
  public let path: String
  private let source: SourceDatabase
  private let columns: [String]
  /// The due-date column: the mapping's, else the table's `due` column, if any.
  private let dueColumn: String?
  /// How warnings name the table and the key: `todo` and `pk` unless mapped.
  private let tableLabel: String
  private let mapping: SourceMapping

  /// Whether the to-dos have a due date (a column the mapping names, or one named `due`).
  public var hasDueDates: Bool { dueColumn != nil }

  /// Opens the database and checks the table and its columns.
  ///
  /// - Parameters:
  ///   - path: The database file, as the user gave it; warnings and errors name it so.
  ///   - mapping: The table, columns and filter, where they are not the usual ones.
  ///   - busyTimeout: How long to wait while another program writes to the file.
  /// - Throws: ``SourceError`` naming the file when it cannot be read or lacks the table or a
  ///   column.
  public init(
    path: String, mapping: SourceMapping = SourceMapping(), busyTimeout: Duration = .seconds(5)
  ) throws {
    self.path = path
    self.mapping = mapping
    source = try SourceDatabase(
      path: path, table: "todo", mapping: mapping, busyTimeout: busyTimeout)
    // The due date: the column the mapping names, else one named `due` (in any case) if the
    // table has it.
    let due = mapping.columns["due"] ?? source.column("due")
    let fields =
      ["pk", "text", "priority", "complete"].map(mapping.column) + (due.map { [$0] } ?? [])
    let found = try source.requireColumns(fields)
    columns = Array(found.prefix(4))
    dueColumn = found.count > 4 ? found[4] : nil
    tableLabel = mapping.table ?? "todo"
  }

  /// Ends the snapshot and closes the database.
  public func close() {
    source.close()
  }

  /// Reads every to-do, sorted by `pk`, with a warning for each row that needed a repair.
  ///
  /// - Throws: ``SourceError`` when the database cannot be read.
  public func load() throws -> (todos: [Todo], warnings: [BuildWarning]) {
    let (rows, warnings) = try loadRows()
    return (Array(rows), warnings)
  }

  /// ``load()``'s to-dos packed (``TodoRows``), their texts copied from SQLite's buffers into
  /// one block without a `String` for each.
  ///
  /// - Throws: ``SourceError`` when the database cannot be read.
  public func loadRows() throws -> (todos: TodoRows, warnings: [BuildWarning]) {
    var names = columns.map(quotedIdentifier)
    if let dueColumn {
      // A number is a time in seconds since 1970, as the sample apps store it; text stays.
      let due = quotedIdentifier(dueColumn)
      names.append(
        "CASE WHEN typeof(\(due)) IN ('integer', 'real')"
          + " THEN strftime('%Y-%m-%dT%H:%M:%SZ', \(due), 'unixepoch') ELSE \(due) END")
    }
    let sql = """
      SELECT \(names.joined(separator: ", ")) FROM \(quotedIdentifier(source.table))\
      \(source.whereClause) ORDER BY \(names[0])
      """
    let pkName = mapping.column("pk")
    let textName = mapping.column("text")
    let priorityName = mapping.column("priority")
    let tableLabel = tableLabel
    var reader = RowReader(file: path)
    var todos = TodoRows.Builder()
    var seen = SeenKeys()
    var ordinal = 0
    try source.forEachRow(sql) { row in
      ordinal += 1
      guard
        let pk = reader.key(
          row, 0, field: pkName, location: "\(tableLabel) row \(ordinal)")
      else { return }
      // Made only for a warning: most rows have none.
      func location() -> String { "\(tableLabel) \(pkName)=\(pk)" }
      guard seen.insert(pk, taken: { todos.pks }) else {
        reader.warn(location(), "\(pkName) \(pk) is used by more than one row; row skipped")
        return
      }
      // Warnings in the order of the columns: text, priority, complete, due.
      reader.withText(row, 1, field: textName, location: location()) { todos.appendText($0) }
      let priority = Self.priority(
        row, 2, field: priorityName, location: location, reader: &reader)
      let complete = isComplete(row, 3, location: location, reader: &reader)
      guard dueColumn != nil else {
        todos.append(pk: pk, priority: priority, complete: complete, due: nil)
        return
      }
      reader.withOptionalText(row, 4, field: "due", location: location()) { due in
        todos.append(pk: pk, priority: priority, complete: complete, due: due)
      }
    }
    try source.checkSnapshot()
    return (TodoRows(todos), reader.warnings)
  }

  // MARK: - Fields

  /// 1, 2, 3 are High, Medium, Low; another whole number keeps its value; anything else is
  /// no priority. All but the first three are warnings.
  private static func priority(
    _ row: Row, _ index: Int, field: String, location makeLocation: () -> String,
    reader: inout RowReader
  ) -> Priority {
    var location: String { makeLocation() }
    let number: Int64
    switch row.columnType(at: index) {
    case .integer:
      number = row.int64(at: index) ?? 0
    case .real:
      let value = row.double(at: index) ?? .nan
      guard let whole = Int64(exactly: value) else {
        reader.warn(location, "\(field) \(reader.quotedValue(row, index)) is not a whole number")
        return .none
      }
      number = whole
    case .null:
      reader.warn(location, "\(field) is NULL")
      return .none
    case .text:
      reader.warn(location, "\(field) \(reader.quotedValue(row, index)) is text, not a number")
      return .none
    case .blob:
      reader.warn(location, "\(field) is a blob, not a number")
      return .none
    }
    let priority = Priority(number)
    if case .other = priority {
      reader.warn(location, "\(field) \(number) is not 1, 2 or 3")
    }
    return priority
  }

  /// 0 and NULL are In Progress; any other number is Complete. Text reads as people mean it:
  /// `true`, `yes`, `1`, `done` (in any case, spaces around ignored) are Complete, `false`,
  /// `no`, `0` In Progress; any other text is Complete, with a warning.
  private func isComplete(
    _ row: Row, _ index: Int, location makeLocation: () -> String, reader: inout RowReader
  ) -> Bool {
    switch row.columnType(at: index) {
    case .null: return false
    case .integer: return row.int64(at: index) != 0
    case .real: return row.double(at: index) != 0
    case .blob: return true
    case .text:
      let text = row.text(at: index)?.string ?? ""
      switch text.trimmingASCIISpaces().lowercased() {
      case "true", "yes", "1", "done": return true
      case "false", "no", "0": return false
      default:
        reader.warn(
          makeLocation(),
          "\(mapping.column("complete")) \(reader.quotedValue(row, index)) is not true/false,"
            + " yes/no, 1/0 or done; shown as Complete")
        return true
      }
    }
  }
}
