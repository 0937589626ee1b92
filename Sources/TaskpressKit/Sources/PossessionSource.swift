import SQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads possessions from the `possessions` table (or view) of a database, read-only, in one
/// snapshot, and streams their photos.
///
/// A table with rowids has its photos read in pieces with SQLite's blob I/O. A view or a
/// `WITHOUT ROWID` table has no rowid, which blob I/O needs: its photos are found by `id`, and
/// each is read in one step from SQLite's buffer, handed on in chunks (SQLite holds the one
/// value while it is read, as it would for each `substr` of it).
///
/// The database stays open inside one read transaction from `init` until the source is
/// closed or released, so photos stream from the same snapshot the rows came from.
///
/// A photo stored as text is the path of a file beneath the photo folder (`PhotoFolder`): the
/// database's folder, or the one given. The file is looked at when the rows are read (its
/// stamp kept), read in pieces when the photo is published, and checked again by
/// ``checkSnapshot()``: a file that changed meanwhile fails the build, as a database written
/// without SQLite's locks does.
public final class PossessionSource {
  /// The database path as the user gave it.
  public let path: String
  private let source: SourceDatabase
  /// `id` as spelled in the table, or `nil` when the rowid stands in for it.
  private let idColumn: String?
  /// The name of the rowid, or `nil` for a view or a `WITHOUT ROWID` table.
  private let rowidName: String?
  private let mapping: SourceMapping
  private let columns: [String]
  /// The photo column's reader for sniffing (`load`) and the one for reading photos, each moved
  /// from row to row: `load` and the photo reads run on different threads, one after the other.
  private var sniffingBlob: BlobReader?
  private var photoBlob: BlobReader?
  /// The folder photos stored as files are beneath, as given (nil: the database's folder).
  private let photoFolderPath: String?
  /// That folder, opened when the first row with a path is read.
  private var photoFolder: PhotoFolder?
  /// The photos stored as files, by their `PhotoInfo.row`.
  private var photoFiles: [Int64: PhotoFileEntry] = [:]
  /// The file last opened for reading a photo, kept open while the same photo is read.
  private var openedFile: (row: Int64, file: PhotoFolder.File)?
  /// What the rows' paths found, for the keys that decide whether a rebuild may skip reading
  /// the photos (`photoFilesDescription`).
  private var pathOutcomes: [UInt8] = []
  private var hasPhotoPaths = false

  /// A photo stored as a file: its path as the row holds it, where warnings and errors name it,
  /// and the stamp of the file when the rows were read.
  private struct PhotoFileEntry {
    var path: String
    var location: String
    var stamp: FileStamp
  }

  /// How much of a photo sniffing may read: enough for JPEG headers with large metadata.
  static let sniffLimit = 64 * 1024

  /// Opens the database and checks the table and its columns.
  ///
  /// - Parameters:
  ///   - path: The database file, as the user gave it; warnings and errors name it so.
  ///   - mapping: The table, columns and filter, where they are not the usual ones.
  ///   - photoFolder: The folder that photos stored as paths are relative to; nil for the
  ///     database's folder.
  ///   - busyTimeout: How long to wait while another program writes to the file.
  ///   - queryTimeout: How long one read of the mapping's query may run.
  /// - Throws: ``SourceError`` naming the file when it cannot be read or lacks the table or a
  ///   column.
  public init(
    path: String, mapping: SourceMapping = SourceMapping(), photoFolder: String? = nil,
    busyTimeout: Duration = .seconds(5), queryTimeout: Duration = SourceQuery.defaultTimeout
  ) throws {
    self.path = path
    photoFolderPath = photoFolder
    source = try SourceDatabase(
      path: path, table: "possessions", mapping: mapping, busyTimeout: busyTimeout,
      queryTimeout: queryTimeout)
    let mapping = source.resolved(mapping)
    self.mapping = mapping
    rowidName = source.rowidName()
    // A mapped id must be there; the usual one may be missing (the rowid stands in).
    idColumn =
      mapping.columns["id"] != nil
      ? try source.requireColumns([mapping.column("id")])[0] : source.column("id")
    // Without a rowid, the photos are found by their `id`.
    let wanted = SourceMapping.possessionFields.map(mapping.column)
    columns = Array(
      try source.requireColumns(Array(wanted.dropFirst(rowidName == nil ? 0 : 1)))
        .suffix(3))
  }

  /// Ends the snapshot and closes the database.
  public func close() {
    sniffingBlob = nil
    photoBlob = nil
    openedFile = nil
    photoFolder = nil
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
    let key = idColumn.map(quotedIdentifier) ?? rowidName ?? "rowid"
    let names = columns.map(quotedIdentifier)
    let sql = """
      SELECT \(rowidName ?? key), \(key), \(names[0]), \(names[1]), typeof(\(names[2])), \
      CASE WHEN typeof(\(names[2])) = 'text' \
      THEN substr(CAST(\(names[2]) AS BLOB), 1, \(PhotoFolder.maxPathBytes + 1)) END \
      FROM \(source.fromClause)\(source.whereClause) ORDER BY \(key)
      """
    let table = mapping.table ?? "possessions"
    let idName = mapping.column("id")
    var reader = RowReader(file: path)
    var possessions: [Possession] = []
    var seen = SeenKeys()
    var ordinal = 0
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let loadedAt = FileStamp.nanoseconds(now)
    try source.forEachRow(sql) { row in
      ordinal += 1
      let rowid = row.int64(at: 0) ?? 0
      // Made only for a warning: most rows have none.
      guard
        let id = reader.key(
          row, 1, field: idName,
          location: rowidName == nil ? "\(table) row \(ordinal)" : "\(table) rowid=\(rowid)")
      else { return }
      // Made only for a warning: most rows have none.
      func location() -> String { "\(table) \(idName)=\(id)" }
      guard seen.insert(id, taken: { possessions.map(\.id) }) else {
        reader.warn(location(), "\(idName) \(id) is used by more than one row; row skipped")
        return
      }
      let name = reader.text(row, 2, field: mapping.column("name"), location: location())
      let description = reader.text(
        row, 3, field: mapping.column("description"), location: location())
      let type = row.text(at: 4)?.string ?? "null"
      let photo =
        type == "text"
        ? try sniffFile(
          row.bytes(at: 5) ?? [], row: rowid, location: location(), loadedAt: loadedAt,
          reader: &reader)
        : try sniffPhoto(type: type, rowid: rowid, location: location, reader: &reader)
      possessions.append(Possession(id: id, name: name, description: description, photo: photo))
    }
    return (possessions, reader.warnings)
  }

  /// Throws when the snapshot may not have been one state of the file (another program wrote
  /// to it while it was read without SQLite's locks); call it once the photos are read.
  public func checkSnapshot() throws {
    try source.checkSnapshot()
    openedFile = nil
    for (_, entry) in photoFiles.sorted(by: { $0.key < $1.key }) {
      _ = try openFile(entry)
    }
  }

  /// Streams a photo's bytes to `body` in chunks of at most `chunkSize` bytes, from the same
  /// snapshot ``load()`` read. The photo is never held whole in memory.
  ///
  /// - Throws: ``SourceError`` when the database cannot be read, or what `body` throws.
  public func streamPhoto(
    _ photo: PhotoInfo, chunkSize: Int = 64 * 1024,
    _ body: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    if let file = try photoFile(photo) {
      var offset: Int64 = 0
      while offset < photo.byteCount {
        let bytes = try read(file, photo, offset: offset, count: max(1, chunkSize))
        guard !bytes.isEmpty else { break }
        try bytes.withUnsafeBytes(body)
        offset += Int64(bytes.count)
      }
      return
    }
    guard rowidName != nil else {
      try withKeyedPhoto(photo.row) { bytes in
        var offset = 0
        while offset < bytes.count {
          let end = min(bytes.count, offset + max(1, chunkSize))
          try body(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
          offset = end
        }
      }
      return
    }
    do {
      let blob = try blob(&photoBlob, rowid: photo.row)
      try blob.stream(chunkSize: chunkSize, body)
    } catch let error as SQLiteError {
      throw SourceError(error)
    }
  }

  /// Up to `count` bytes of a photo from `offset` (fewer at its end), for a decoder that reads
  /// it piece by piece.
  public func readPhoto(_ photo: PhotoInfo, offset: Int, count: Int) throws -> [UInt8] {
    if let file = try photoFile(photo) {
      return try read(file, photo, offset: Int64(max(0, offset)), count: max(0, count))
    }
    guard rowidName != nil else {
      return try withKeyedPhoto(photo.row) { bytes in
        let start = min(max(0, offset), bytes.count)
        return [UInt8](bytes[start..<min(bytes.count, start + max(0, count))])
      }
    }
    do {
      let blob = try blob(&photoBlob, rowid: photo.row)
      return try blob.read(offset: offset, count: count)
    } catch let error as SQLiteError {
      throw SourceError(error)
    }
  }

  /// The whole photo in memory, read straight into one array: for photos small enough to hold
  /// (`Build.photoBufferLimit`); larger ones are streamed.
  public func readPhoto(_ photo: PhotoInfo) throws -> [UInt8] {
    if let file = try photoFile(photo) {
      return try read(file, photo, offset: 0, count: Int(photo.byteCount))
    }
    guard rowidName != nil else {
      return try withKeyedPhoto(photo.row) { [UInt8]($0) }
    }
    do {
      let blob = try blob(&photoBlob, rowid: photo.row)
      return try blob.read(offset: 0, count: blob.byteCount)
    } catch let error as SQLiteError {
      throw SourceError(error)
    }
  }

  // MARK: - Photos stored as files

  /// A description of every photo path the rows hold and what each found (the file's stamp, or
  /// why it was refused), for the keys that let a rebuild skip reading the photos: a file
  /// edited, replaced, added or removed gives another description. Nil when no row holds a
  /// path. A file modified within a tick of the moment the rows were read gives a description
  /// no later build matches (git's racy-clean rule).
  public var photoFilesDescription: [UInt8]? {
    hasPhotoPaths ? Array("photo-folder \(photoFolder?.path ?? "-")\u{0}".utf8) + pathOutcomes : nil
  }

  /// The folder photos stored as files are beneath, opened once.
  private func folder() throws -> PhotoFolder {
    if let photoFolder { return photoFolder }
    let folderPath: String
    if let photoFolderPath {
      folderPath = photoFolderPath
    } else if let slash = path.lastIndex(of: "/") {
      folderPath = slash == path.startIndex ? "/" : String(path[..<slash])
    } else {
      folderPath = "."
    }
    let opened = try PhotoFolder(path: folderPath, file: path)
    photoFolder = opened
    return opened
  }

  /// Sniffs the photo file whose path (its first bytes) the row holds; nil, with a warning
  /// naming the row and the path, for a path that is refused or a file that is not an image.
  private func sniffFile(
    _ pathBytes: [UInt8], row: Int64, location: String, loadedAt: Int64,
    reader: inout RowReader
  ) throws -> PhotoInfo? {
    guard !pathBytes.isEmpty else { return nil }
    hasPhotoPaths = true
    pathOutcomes += "row \(row) \(pathBytes.count)\u{0}".utf8
    pathOutcomes += pathBytes
    let shown = Self.shown(pathBytes)
    func refuse(_ reason: String) -> PhotoInfo? {
      pathOutcomes += "\u{0}refused \(reason)\u{0}".utf8
      reader.warn(location, "photo '\(shown)' \(reason); not published")
      return nil
    }
    if let reason = PhotoFolder.check(pathBytes) { return refuse(reason) }
    let relative = String(decoding: pathBytes, as: UTF8.self)
    let file: PhotoFolder.File
    switch try folder().open(relative) {
    case .success(let opened): file = opened
    case .failure(let refusal): return refuse(refusal.message)
    }
    let stamp = file.stamp
    pathOutcomes += "\u{0}file \(stamp.device ?? 0) \(stamp.inode ?? 0) \(stamp.size) ".utf8
    pathOutcomes += "\(stamp.modified) \(stamp.changed ?? 0)\u{0}".utf8
    if FileStamp.isRacy(stamp.modified, recordedAt: loadedAt)
      || FileStamp.isRacy(stamp.changed ?? stamp.modified, recordedAt: loadedAt)
    {
      pathOutcomes += "modified just now, at \(loadedAt)\u{0}".utf8
    }
    guard stamp.size > 0 else { return refuse("is an empty file, not an image") }
    guard stamp.size <= PhotoFolder.maxFileBytes else {
      return refuse(
        "is \(stamp.size) bytes, more than a photo may be (\(PhotoFolder.maxFileBytes))")
    }
    let limit = Int(min(stamp.size, Int64(Self.sniffLimit)))
    var bytes: [UInt8] = []
    do {
      bytes = try file.read(offset: 0, count: min(limit, 512))
      var complete = bytes.count >= limit || bytes.count < min(limit, 512)
      while true {
        let result = ImageSniffer.sniff(bytes, isComplete: complete)
        guard case .needsMoreBytes = result, !complete else {
          guard case .image(let format, let width, let height) = result else {
            let start = bytes.prefix(4).map { hex($0) }.joined(separator: " ")
            return refuse("is not a recognized image (starts with \(start))")
          }
          photoFiles[row] = PhotoFileEntry(path: relative, location: location, stamp: stamp)
          return PhotoInfo(
            format: format, width: width, height: height, byteCount: stamp.size, row: row)
        }
        let next = min(limit, bytes.count * 8)
        let more = try file.read(offset: Int64(bytes.count), count: next - bytes.count)
        bytes += more
        // A file cut short since it was opened ends here.
        complete = bytes.count >= limit || more.count < next - (bytes.count - more.count)
      }
    } catch let failure as PhotoFolder.Failure {
      return refuse("cannot be read (\(failure.reason))")
    }
  }

  /// The file of a photo stored as a file, opened (kept open while the same photo is read);
  /// nil for a photo stored in the database.
  private func photoFile(_ photo: PhotoInfo) throws -> PhotoFolder.File? {
    guard let entry = photoFiles[photo.row] else { return nil }
    if let openedFile, openedFile.row == photo.row { return openedFile.file }
    openedFile = nil
    let file = try openFile(entry)
    openedFile = (photo.row, file)
    return file
  }

  /// Opens a photo's file again, and checks that it is the file the rows were read with.
  private func openFile(_ entry: PhotoFileEntry) throws -> PhotoFolder.File {
    let changed = SourceError(
      file: path,
      message:
        "\(entry.location): photo '\(Self.shown(Array(entry.path.utf8)))' changed while the "
        + "site was built; build again")
    guard case .success(let file) = try folder().open(entry.path) else { throw changed }
    let now = file.stamp
    guard now.device == entry.stamp.device, now.inode == entry.stamp.inode,
      now.size == entry.stamp.size, now.modified == entry.stamp.modified,
      now.changed == entry.stamp.changed
    else { throw changed }
    return file
  }

  /// Up to `count` bytes of a photo file from `offset`.
  private func read(
    _ file: PhotoFolder.File, _ photo: PhotoInfo, offset: Int64, count: Int
  ) throws -> [UInt8] {
    let count = Int(min(Int64(count), max(0, photo.byteCount - offset)))
    do {
      return try file.read(offset: offset, count: count)
    } catch let error as PhotoFolder.Failure {
      let entry = photoFiles[photo.row]
      throw SourceError(
        file: path,
        message:
          "\(entry?.location ?? "possessions"): photo '\(entry.map { Self.shown(Array($0.path.utf8)) } ?? "")' "
          + "cannot be read (\(error.reason))")
    }
  }

  /// A path as a warning shows it: on one line (control characters as `\u{…}`), invalid UTF-8
  /// repaired, and cut short after 80 characters.
  static func shown(_ bytes: [UInt8]) -> String {
    let text = String(decoding: bytes.prefix(PhotoFolder.maxPathBytes), as: UTF8.self)
    var shown = ""
    var count = 0
    for scalar in text.unicodeScalars {
      if count == 80 {
        shown += "…"
        break
      }
      count += 1
      if scalar.value < 0x20 || scalar.value == 0x7F {
        shown += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        shown.unicodeScalars.append(scalar)
      }
    }
    return shown
  }

  // MARK: - Tables without rowids

  /// `SELECT photo ... WHERE id = ?`, compiled once.
  private var keyedPhotoStatement: Statement?

  /// Calls `body` with the photo of the row whose id is `id`, in SQLite's buffer: a view or a
  /// `WITHOUT ROWID` table cannot be read with blob I/O. Text is read as its bytes.
  private func withKeyedPhoto<T>(
    _ id: Int64, _ body: (UnsafeRawBufferPointer) throws -> T
  ) throws -> T {
    let statement: Statement
    if let existing = keyedPhotoStatement {
      statement = existing
    } else {
      let sql = """
        SELECT CAST(\(quotedIdentifier(columns[2])) AS BLOB) \
        FROM \(source.fromClause) WHERE \(quotedIdentifier(idColumn ?? "id")) = ?1 \
        LIMIT 1
        """
      statement = try source.prepare(sql)
      keyedPhotoStatement = statement
    }
    statement.reset()
    defer { statement.reset() }
    do {
      try statement.bind(id, at: 1)
      guard let row = try statement.step() else {
        throw SourceError(
          file: path, message: "possessions id=\(id): the row is gone from the snapshot")
      }
      return try row.withUnsafeBytes(at: 0, body)
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
    guard rowidName == nil else {
      return try sniffBlob(rowid: rowid, location: makeLocation, reader: &reader)
    }
    let (byteCount, bytes) = try withKeyedPhoto(rowid) { value in
      (value.count, [UInt8](value.prefix(Self.sniffLimit)))
    }
    guard byteCount > 0 else { return nil }
    return sniffed(
      ImageSniffer.sniff(bytes, isComplete: true), of: bytes, byteCount: byteCount, row: rowid,
      location: makeLocation, reader: &reader)
  }

  /// Sniffs the photo of row `rowid`, read a little at a time with blob I/O.
  private func sniffBlob(
    rowid: Int64, location makeLocation: () -> String, reader: inout RowReader
  ) throws -> PhotoInfo? {
    do {
      let blob = try blob(&sniffingBlob, rowid: rowid)
      guard blob.byteCount > 0 else { return nil }
      let limit = min(blob.byteCount, Self.sniffLimit)
      var bytes = try blob.prefix(min(limit, 512))
      while true {
        let result = ImageSniffer.sniff(bytes, isComplete: bytes.count >= limit)
        guard case .needsMoreBytes = result else {
          return sniffed(
            result, of: bytes, byteCount: blob.byteCount, row: rowid, location: makeLocation,
            reader: &reader)
        }
        let next = min(limit, bytes.count * 8)
        bytes += try blob.read(offset: bytes.count, count: next - bytes.count)
      }
    } catch let error as SQLiteError {
      throw SourceError(error)
    }
  }

  /// The photo that sniffing found, or `nil` with a warning for bytes that are not an image.
  private func sniffed(
    _ result: ImageSniffer.Result, of bytes: [UInt8], byteCount: Int, row: Int64,
    location: () -> String, reader: inout RowReader
  ) -> PhotoInfo? {
    switch result {
    case .image(let format, let width, let height):
      return PhotoInfo(
        format: format, width: width, height: height, byteCount: Int64(byteCount), row: row)
    case .unrecognized, .needsMoreBytes:
      // Everything there is was read: too short for its format is not an image either.
      let start = bytes.prefix(4).map { hex($0) }.joined(separator: " ")
      reader.warn(location(), "photo is not a recognized image (starts with \(start))")
      return nil
    }
  }
}

private func hex(_ byte: UInt8) -> String {
  let digits = Array("0123456789abcdef")
  return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}
