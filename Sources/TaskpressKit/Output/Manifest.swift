/// What taskpress wrote into an output folder in its last build: `.taskpress/manifest`.
///
/// A plain text file, sorted and deterministic, one line per file and then one per folder that
/// taskpress created:
///
/// ```
/// taskpress-manifest 1
/// 8f1a9c03d2e4b5a6 2048 1732900000123456789 todos/3.html
/// folder todos
/// ```
///
/// A file line is the content hash, the size in bytes, the modification time (nanoseconds since
/// the epoch) of the file as written, and the path. The modification time lets a rebuild trust
/// the hash without reading the file; when it differs, the file is compared byte by byte.
struct Manifest: Equatable {
  struct Entry: Equatable {
    var hash: ContentHash
    var size: Int
    var modified: Int64
  }

  static let header = "taskpress-manifest 1"

  var files: [String: Entry] = [:]
  /// Folders taskpress created (so it may remove them when they become empty).
  var folders: Set<String> = []

  init() {}

  /// Parses a manifest; nil when it is damaged.
  init?(parsing bytes: [UInt8]) {
    var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
      .makeIterator()
    guard let first = lines.next(), first.elementsEqual(Self.header.utf8) else { return nil }
    let folderPrefix = "folder ".utf8
    while let line = lines.next() {
      if line.starts(with: folderPrefix) {
        let path = String(decoding: line.dropFirst(folderPrefix.count), as: UTF8.self)
        guard OutputPath.problem(path) == nil else { return nil }
        folders.insert(path)
        continue
      }
      let fields = line.split(
        separator: UInt8(ascii: " "), maxSplits: 3, omittingEmptySubsequences: false)
      guard fields.count == 4,
        let hash = ContentHash(hex: Substring(decoding: fields[0], as: UTF8.self)),
        let size = Int(String(decoding: fields[1], as: UTF8.self)), size >= 0,
        let modified = Int64(String(decoding: fields[2], as: UTF8.self))
      else { return nil }
      let path = String(decoding: fields[3], as: UTF8.self)
      guard OutputPath.problem(path) == nil else { return nil }
      files[path] = Entry(hash: hash, size: size, modified: modified)
    }
  }

  /// The text of the manifest, sorted by path.
  func serialized() -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(64 * (files.count + 1))
    out.append(contentsOf: Self.header.utf8)
    out.append(UInt8(ascii: "\n"))
    for path in files.keys.sorted(by: OutputPath.precedes) {
      guard let entry = files[path] else { continue }
      out.append(contentsOf: entry.hash.hex.utf8)
      out.append(UInt8(ascii: " "))
      out.append(contentsOf: String(entry.size).utf8)
      out.append(UInt8(ascii: " "))
      out.append(contentsOf: String(entry.modified).utf8)
      out.append(UInt8(ascii: " "))
      out.append(contentsOf: path.utf8)
      out.append(UInt8(ascii: "\n"))
    }
    for folder in folders.sorted(by: OutputPath.precedes) {
      out.append(contentsOf: "folder ".utf8)
      out.append(contentsOf: folder.utf8)
      out.append(UInt8(ascii: "\n"))
    }
    return out
  }
}
