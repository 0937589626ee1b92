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
  /// The app's priorities as levels (`"values"`), when the mapping has them.
  private let priorityValues: PriorityValues?

  /// Whether the to-dos have a due date (a column the mapping names, or one named `due`).
  public var hasDueDates: Bool { dueColumn != nil }

  /// Opens the database and checks the table and its columns.
  ///
  /// - Parameters:
  ///   - path: The database file, as the user gave it; warnings and errors name it so.
  ///   - mapping: The table, columns and filter, where they are not the usual ones.
  ///   - busyTimeout: How long to wait while another program writes to the file.
  ///   - queryTimeout: How long one read of the mapping's query may run.
  /// - Throws: ``SourceError`` naming the file when it cannot be read or lacks the table or a
  ///   column.
  public init(
    path: String, mapping: SourceMapping = SourceMapping(), busyTimeout: Duration = .seconds(5),
    queryTimeout: Duration = SourceQuery.defaultTimeout
  ) throws {
    self.path = path
    source = try SourceDatabase(
      path: path, table: "todo", mapping: mapping, busyTimeout: busyTimeout,
      queryTimeout: queryTimeout)
    let mapping = source.resolved(mapping)
    self.mapping = mapping
    do {
      priorityValues = try mapping.priorityValues()
    } catch {
      throw SourceError(file: path, message: "\"values\" \(error.description)")
    }
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
    // A number is a time in the field's unit (seconds since 1970 unless the mapping says
    // otherwise); text stays. The number itself comes too, to see whether it looks right.
    let dueUnit = mapping.dates["due"] ?? .seconds
    if let dueColumn {
      let due = quotedIdentifier(dueColumn)
      names.append(dueUnit.expression(due))
      names.append("CASE WHEN typeof(\(due)) IN ('integer', 'real') THEN \(due) END")
    }
    var wrongUnit: (count: Int, likely: DateUnit)?
    var unmappedPriorities: [String: Int] = [:]
    let priorityValues = priorityValues
    let sql = """
      SELECT \(names.joined(separator: ", ")) FROM \(source.fromClause)\
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
        let (pk, key) = reader.todoKey(
          row, 0, field: pkName, location: "\(tableLabel) row \(ordinal)")
      else { return }
      // Made only for a warning: most rows have none.
      func keyText() -> String {
        key.map { quoted(String(decoding: $0, as: UTF8.self)) } ?? "\(pk)"
      }
      func location() -> String { "\(tableLabel) \(pkName)=\(keyText())" }
      guard seen.insert(pk, taken: { todos.pks }) else {
        reader.warn(location(), "\(pkName) \(keyText()) is used by more than one row; row skipped")
        return
      }
      // Warnings in the order of the columns: text, priority, complete, due.
      reader.withText(row, 1, field: textName, location: location()) { todos.appendText($0) }
      let priority =
        priorityValues.map { Self.priority(row, 2, $0, unmapped: &unmappedPriorities) }
        ?? Self.priority(row, 2, field: priorityName, location: location, reader: &reader)
      if dueColumn != nil, let number = row.double(at: 5),
        let likely = dueUnit.likelyUnit(of: number)
      {
        wrongUnit = ((wrongUnit?.count ?? 0) + 1, likely)
      }
      let complete = isComplete(row, 3, location: location, reader: &reader)
      key.withOptionalBuffer { key in
        guard dueColumn != nil else {
          todos.append(pk: pk, priority: priority, complete: complete, due: nil, key: key)
          return
        }
        reader.withOptionalText(row, 4, field: "due", location: location()) { due in
          todos.append(pk: pk, priority: priority, complete: complete, due: due, key: key)
        }
      }
    }
    try source.checkSnapshot()
    for (value, count) in unmappedPriorities.sorted(by: { $0.key < $1.key }) {
      reader.warn(
        tableLabel,
        "\(priorityName) \(value) is not in the mapping's \"values\" (\(count) "
          + (count == 1 ? "row" : "rows") + "); shown as No priority")
    }
    if let wrongUnit, let dueName = dueColumn {
      reader.warn(
        tableLabel,
        "\(dueName): \(wrongUnit.count) " + (wrongUnit.count == 1 ? "number looks" : "numbers look")
          + " like \(wrongUnit.likely.rawValue), not \(dueUnit.rawValue); set \"dates\": "
          + "{\"due\": \"\(wrongUnit.likely.rawValue)\"} in the mapping")
    }
    let rows = TodoRows(todos)
    // Text keys are numbered by a hash, so rows read in the column's order are not in the
    // numbers' order, which the plan and the records find rows by.
    guard !rows.isInPKOrder else { return (rows, reader.warnings) }
    return (TodoRows(rows, at: rows.indices.sorted { rows.pk($0) < rows.pk($1) }), reader.warnings)
  }

  // MARK: - Fields

  /// The level `values` gives the value in column `index` (NULL is no priority unless the map
  /// names `null`); a value the map does not name is no priority, counted in `unmapped` (a
  /// warning for each value, not each row).
  private static func priority(
    _ row: Row, _ index: Int, _ values: PriorityValues, unmapped: inout [String: Int]
  ) -> Priority {
    let text: String
    switch row.columnType(at: index) {
    case .null: text = "null"
    case .integer: text = String(row.int64(at: index) ?? 0)
    case .real:
      let value = row.double(at: index) ?? .nan
      text = Int64(exactly: value).map(String.init) ?? String(value)
    case .text: text = row.text(at: index)?.string ?? ""
    case .blob: text = "(a blob)"
    }
    if let priority = values.priority(ofText: text) { return priority }
    if text == "null" { return .none }
    unmapped[quoted(text), default: 0] += 1
    return .none
  }

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
