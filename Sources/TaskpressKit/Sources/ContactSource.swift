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

  /// Opens the database and checks the table and its columns.
  ///
  /// - Parameters:
  ///   - path: The database file, as the user gave it; warnings and errors name it so.
  ///   - busyTimeout: How long to wait while another program writes to the file.
  /// - Throws: ``SourceError`` naming the file when it cannot be read or lacks the table or a
  ///   column.
  public init(path: String, busyTimeout: Duration = .seconds(5)) throws {
    self.path = path
    source = try SourceDatabase(path: path, table: "contacts", busyTimeout: busyTimeout)
    columns = try source.requireColumns(["id", "name", "address", "phone"])
  }

  /// Ends the snapshot and closes the database.
  public func close() {
    source.close()
  }

  /// Reads every contact, sorted by `id`, with a warning for each row that needed a repair.
  ///
  /// - Throws: ``SourceError`` when the database cannot be read.
  public func load() throws -> (contacts: [Contact], warnings: [BuildWarning]) {
    let names = columns.map(quotedIdentifier)
    let sql = """
      SELECT \(names.joined(separator: ", ")) FROM \(quotedIdentifier(source.table)) \
      ORDER BY \(names[0])
      """
    var reader = RowReader(file: path)
    var contacts: [Contact] = []
    // A damaged b-tree can return a row twice, anywhere in the scan.
    var seen = Set<Int64>()
    var ordinal = 0
    try source.forEachRow(sql) { row in
      ordinal += 1
      guard let id = reader.key(row, 0, field: "id", location: "contacts row \(ordinal)") else {
        return
      }
      // Made only for a warning: most rows have none.
      func location() -> String { "contacts id=\(id)" }
      guard seen.insert(id).inserted else {
        reader.warn(location(), "id \(id) is used by more than one row; row skipped")
        return
      }
      contacts.append(
        Contact(
          id: id,
          name: reader.text(row, 1, field: "name", location: location()),
          address: reader.text(row, 2, field: "address", location: location()),
          phone: reader.text(row, 3, field: "phone", location: location())))
    }
    try source.checkSnapshot()
    return (contacts, reader.warnings)
  }
}
