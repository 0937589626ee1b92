import SQLite

/// Reads contacts from the `contacts` table of a database, read-only, in one snapshot.
///
/// The database stays open inside one read transaction from `init` until the source is
/// closed or released.
public final class ContactSource {
  /// The database path as the user gave it.
  public let path: String
  private let source: SourceDatabase
  private let columns: [String]
  private let mapping: SourceMapping

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
      path: path, table: "contacts", mapping: mapping, busyTimeout: busyTimeout,
      queryTimeout: queryTimeout)
    let mapping = source.resolved(mapping)
    self.mapping = mapping
    columns = try source.requireColumns(SourceMapping.contactFields.map(mapping.column))
  }

  /// Ends the snapshot and closes the database.
  public func close() {
    source.close()
  }

  /// Reads every contact, sorted by `id`, with a warning for each row that needed a repair.
  /// A NULL address or phone is empty, without a warning: many address books leave them out.
  ///
  /// - Throws: ``SourceError`` when the database cannot be read.
  public func load() throws -> (contacts: [Contact], warnings: [BuildWarning]) {
    let names = columns.map(quotedIdentifier)
    let sql = """
      SELECT \(names.joined(separator: ", ")) FROM \(source.fromClause)\
      \(source.whereClause) ORDER BY \(names[0])
      """
    let table = mapping.table ?? "contacts"
    let idName = mapping.column("id")
    var reader = RowReader(file: path)
    var contacts: [Contact] = []
    var seen = SeenKeys()
    var ordinal = 0
    try source.forEachRow(sql) { row in
      ordinal += 1
      guard let id = reader.key(row, 0, field: idName, location: "\(table) row \(ordinal)")
      else { return }
      // Made only for a warning: most rows have none.
      func location() -> String { "\(table) \(idName)=\(id)" }
      guard seen.insert(id, taken: { contacts.map(\.id) }) else {
        reader.warn(location(), "\(idName) \(id) is used by more than one row; row skipped")
        return
      }
      let name = reader.text(row, 1, field: mapping.column("name"), location: location())
      let address = reader.optionalText(
        row, 2, field: mapping.column("address"), location: location())
      let phone = reader.optionalText(row, 3, field: mapping.column("phone"), location: location())
      contacts.append(Contact(id: id, name: name, address: address ?? "", phone: phone ?? ""))
    }
    try source.checkSnapshot()
    return (contacts, reader.warnings)
  }
}
