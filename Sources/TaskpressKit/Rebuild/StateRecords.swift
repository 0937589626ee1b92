#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The records a build leaves in the state folder for the next one (the pages' fingerprints,
/// the rows, the photos, the inputs, the to-dos' copy record, the snapshots of unpublished
/// sources), handed to the output writer as data before the commit and written by it inside the
/// commit, before the folder's lock is released (`OutputWriter.writeRecords`).
///
/// Each record begins with one header line, the hash of the manifest it describes and a number
/// drawn for the commit that wrote it (`header(manifest:generation:)`); the index file
/// (`indexName`), written after every record, holds that line alone. A record is trusted only
/// when its header is the index's and the index names the manifest on disk: a build stopped
/// among the record writes leaves the old index, so that the records it wrote are ignored (the
/// plain path runs for them) and the old ones still describe the old manifest.
struct StateRecords: Sendable {
  /// The records by name, in the order written; nil bytes remove the record.
  var files: [(name: String, bytes: [UInt8]?)] = []
  /// The to-dos' copy record (`TodoCopyRecord`) and the path of the copy, relative to the
  /// output folder: its identity is the copy's stamp, taken by the commit under the lock. Nil
  /// removes the record.
  var todoCopy: (bytes: [UInt8], path: String)?

  /// The state file naming the header of the records in force.
  static let indexName = "records"

  /// Sets the record `name` to `bytes` (nil removes it).
  mutating func set(_ name: String, _ bytes: [UInt8]?) {
    files.removeAll { $0.name == name }
    files.append((name, bytes))
  }

  /// The header line of the records written for the manifest `manifest` by the commit that
  /// drew `generation`.
  static func header(manifest: ContentHash, generation: UInt64) -> [UInt8] {
    Array((manifest.hex + " " + String(generation, radix: 16) + "\n").utf8)
  }

  /// Whether the index `header` is of the manifest `manifest`.
  static func header(_ header: [UInt8], isOf manifest: ContentHash) -> Bool {
    header.starts(with: Array((manifest.hex + " ").utf8)) && header.last == UInt8(ascii: "\n")
      && header.dropLast().firstIndex(of: UInt8(ascii: "\n")) == nil
  }

  /// The body of the record `bytes` when it begins with `header`, else nil.
  static func body(_ bytes: [UInt8], header: [UInt8]?) -> [UInt8]? {
    guard let header, bytes.starts(with: header) else { return nil }
    return Array(bytes[header.count...])
  }

  /// The header the index of the state folder `stateFD` holds, when it is of the manifest
  /// `manifest`; nil otherwise (no index, a damaged one, one of another manifest): then no
  /// record is trusted.
  static func trustedHeader(_ stateFD: Int32, manifest: ContentHash?) -> [UInt8]? {
    guard let manifest, stateFD >= 0,
      let index = OutputWriter.readStateFile(stateFD, indexName), index.count < 256,
      header(index, isOf: manifest)
    else { return nil }
    return index
  }

  /// The index of the state folder at `statePath`, unchecked against its manifest (the reader
  /// of the previous build, which runs beside the manifest's loading, checks it later against
  /// `OutputWriter.recordsHeader`).
  static func indexHeader(statePath: String) -> [UInt8]? {
    let fd = open(statePath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    guard let index = OutputWriter.readStateFile(fd, indexName), index.count < 256,
      index.last == UInt8(ascii: "\n")
    else { return nil }
    return index
  }
}
