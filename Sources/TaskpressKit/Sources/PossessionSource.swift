import SQLite

/// Reads possessions from the `possessions` table of a database, read-only, in one snapshot,
/// and streams their photos.
///
/// The database stays open inside one read transaction from `init` until the source is
/// closed or released, so photos stream from the same snapshot the rows came from.
public final class PossessionSource {
  /// The database path as the user gave it.
  public let path: String
  private let source: SourceDatabase
  /// `id` as spelled in the table, or `nil` when the rowid stands in for it.
  private let idColumn: String?
  private let columns: [String]
  /// The photo column's reader for sniffing (`load`) and the one for reading photos, each moved
  /// from row to row: `load` and the photo reads run on different threads, one after the other.
  private var sniffingBlob: BlobReader?
  private var photoBlob: BlobReader?

  /// How much of a photo sniffing may read: enough for JPEG headers with large metadata.
  static let sniffLimit = 64 * 1024

  /// Opens the database and checks the table and its columns.
  ///
  /// - Parameters:
  ///   - path: The database file, as the user gave it; warnings and errors name it so.
  ///   - busyTimeout: How long to wait while another program writes to the file.
  /// - Throws: ``SourceError`` naming the file when it cannot be read or lacks the table or a
  ///   column.
  public init(path: String, busyTimeout: Duration = .seconds(5)) throws {
    self.path = path
    source = try SourceDatabase(path: path, table: "possessions", busyTimeout: busyTimeout)
    idColumn = source.column("id")
    columns = try source.requireColumns(["name", "description", "photo"])
  }

  /// Ends the snapshot and closes the database.
  public func close() {
    sniffingBlob = nil
    photoBlob = nil
    source.close()
  }

  /// The photo column's value in row `rowid`, read by `reader` moved there (or by a new reader,
  /// kept in `reader`, when there is none yet or the last move failed).
  private func blob(_ reader: inout BlobReader?, rowid: Int64) throws -> BlobReader {
    if let existing = reader, existing.isUsable {
      do {
        try existing.reopen(rowid: rowid)
        return existing
      } catch {
        reader = nil
        throw error
      }
    }
    let opened = try source.open().openBlob(table: source.table, column: columns[2], rowid: rowid)
    reader = opened
    return opened
  }

  /// Reads every possession, sorted by `id`, sniffing each photo's first bytes.
  ///
  /// - Throws: ``SourceError`` when the database cannot be read.
  public func load() throws -> (possessions: [Possession], warnings: [BuildWarning]) {
    let key = idColumn.map(quotedIdentifier) ?? "rowid"
    let names = columns.map(quotedIdentifier)
    let sql = """
      SELECT rowid, \(key), \(names[0]), \(names[1]), typeof(\(names[2])) \
      FROM \(quotedIdentifier(source.table)) ORDER BY \(key)
      """
    var reader = RowReader(file: path)
    var possessions: [Possession] = []
    try source.forEachRow(sql) { row in
      let rowid = row.int64(at: 0) ?? 0
      guard let id = reader.key(row, 1, field: "id", location: "possessions rowid=\(rowid)")
      else { return }
      // Made only for a warning: most rows have none.
      func location() -> String { "possessions id=\(id)" }
      if possessions.last?.id == id {
        reader.warn(location(), "id \(id) is used by more than one row; row skipped")
        return
      }
      let name = reader.text(row, 2, field: "name", location: location())
      let description = reader.text(row, 3, field: "description", location: location())
      let photo = try sniffPhoto(
        type: row.text(at: 4)?.string ?? "null", rowid: rowid, location: location,
        reader: &reader)
      possessions.append(Possession(id: id, name: name, description: description, photo: photo))
    }
    return (possessions, reader.warnings)
  }

  /// Streams a photo's bytes to `body` in chunks of at most `chunkSize` bytes, from the same
  /// snapshot ``load()`` read. The photo is never held whole in memory.
  ///
  /// - Throws: ``SourceError`` when the database cannot be read, or what `body` throws.
  public func streamPhoto(
    _ photo: PhotoInfo, chunkSize: Int = 64 * 1024,
    _ body: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    do {
      let blob = try blob(&photoBlob, rowid: photo.rowid)
      try blob.stream(chunkSize: chunkSize, body)
    } catch let error as SQLiteError {
      throw SourceError(error)
    }
  }

  /// The whole photo in memory, read straight into one array: for photos small enough to hold
  /// (`Build.photoBufferLimit`); larger ones are streamed.
  public func readPhoto(_ photo: PhotoInfo) throws -> [UInt8] {
    do {
      let blob = try blob(&photoBlob, rowid: photo.rowid)
      return try blob.read(offset: 0, count: blob.byteCount)
    } catch let error as SQLiteError {
      throw SourceError(error)
    }
  }

  /// Up to `count` bytes of a photo from `offset` (fewer at its end), for a decoder that reads
  /// it piece by piece.
  public func readPhoto(_ photo: PhotoInfo, offset: Int, count: Int) throws -> [UInt8] {
    do {
      let blob = try blob(&photoBlob, rowid: photo.rowid)
      return try blob.read(offset: offset, count: count)
    } catch let error as SQLiteError {
      throw SourceError(error)
    }
  }

  // MARK: - Sniffing

  /// The photo's format and size from its first bytes, read a little at a time. NULL or empty
  /// is no photo; anything not an image is a warning.
  private func sniffPhoto(
    type: String, rowid: Int64, location makeLocation: () -> String, reader: inout RowReader
  ) throws -> PhotoInfo? {
    var location: String { makeLocation() }
    switch type {
    case "null":
      return nil
    case "blob", "text":
      break
    default:
      reader.warn(location, "photo is a number, not an image")
      return nil
    }
    do {
      let blob = try blob(&sniffingBlob, rowid: rowid)
      guard blob.byteCount > 0 else { return nil }
      let limit = min(blob.byteCount, Self.sniffLimit)
      var bytes = try blob.prefix(min(limit, 512))
      while true {
        let isComplete = bytes.count >= limit
        switch ImageSniffer.sniff(bytes, isComplete: isComplete) {
        case .image(let format, let width, let height):
          return PhotoInfo(
            format: format, width: width, height: height, byteCount: Int64(blob.byteCount),
            rowid: rowid)
        case .unrecognized:
          let start = bytes.prefix(4).map { hex($0) }.joined(separator: " ")
          reader.warn(location, "photo is not a recognized image (starts with \(start))")
          return nil
        case .needsMoreBytes:
          let next = min(limit, bytes.count * 8)
          bytes += try blob.read(offset: bytes.count, count: next - bytes.count)
        }
      }
    } catch let error as SQLiteError {
      throw SourceError(error)
    }
  }
}

private func hex(_ byte: UInt8) -> String {
  let digits = Array("0123456789abcdef")
  return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}
