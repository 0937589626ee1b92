/// What the pages of a build showed of its to-dos: the `PageFingerprints.todoLayout` and the
/// hash of each to-do's row, in index order. Recorded in the state folder beside the manifest
/// (`rows`), with the fingerprints, so that the next build finds the pages a change of rows
/// shows by comparing the rows (`PageFingerprints.pages(showingChangesSince:)`), without making
/// the fingerprint of every page (`RenderPaths.dependents`).
struct RowRecord: Sendable, Equatable {
  var layout: KeyedHash
  var rows: [KeyedHash]

  static let fileName = "rows"
  private static let header = Array("taskpress-rows 2\n".utf8)

  init(layout: KeyedHash, rows: [KeyedHash]) {
    self.layout = layout
    self.rows = rows
  }

  /// The record as it is stored: a header line, then the layout and each row's hash as 16
  /// bytes (`low` first), little endian.
  var bytes: [UInt8] {
    var bytes = Self.header
    bytes.reserveCapacity(bytes.count + (rows.count + 1) * 16)
    // The layout, then the rows read in place (`[layout] + rows` would be a copy of them).
    func add(_ hash: KeyedHash) {
      withUnsafeBytes(of: hash.low.littleEndian) { bytes += $0 }
      withUnsafeBytes(of: hash.high.littleEndian) { bytes += $0 }
    }
    add(layout)
    for hash in rows { add(hash) }
    return bytes
  }

  /// Reads a stored record; nil when `bytes` are not one (another version, cut short).
  init?(bytes: [UInt8]) {
    guard bytes.starts(with: Self.header), bytes.count >= Self.header.count + 16,
      (bytes.count - Self.header.count) % 16 == 0
    else { return nil }
    let words = bytes.withUnsafeBytes { raw in
      stride(from: Self.header.count, to: raw.count, by: 16).map {
        KeyedHash(
          low: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: $0, as: UInt64.self)),
          high: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: $0 + 8, as: UInt64.self)))
      }
    }
    layout = words[0]
    rows = Array(words.dropFirst())
  }
}
