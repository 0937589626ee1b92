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
    // Hand-rolled over the raw bytes: a site's manifest has 100,000 lines and more.
    let parsed: (files: [String: Entry], folders: Set<String>)? = bytes.withUnsafeBufferPointer {
      Self.parse($0)
    }
    guard let parsed else { return nil }
    files = parsed.files
    folders = parsed.folders
  }

  private static func parse(_ text: UnsafeBufferPointer<UInt8>) -> (
    files: [String: Entry], folders: Set<String>
  )? {
    var files: [String: Entry] = [:]
    var folders: Set<String> = []
    let newline = UInt8(ascii: "\n")
    let space = UInt8(ascii: " ")
    let folderPrefix = Array("folder ".utf8)
    var start = 0
    var first = true
    while start < text.count {
      var end = start
      while end < text.count && text[end] != newline { end += 1 }
      let line = UnsafeBufferPointer(rebasing: text[start..<end])
      start = end + 1
      if line.isEmpty { continue }
      if first {
        guard line.elementsEqual(header.utf8) else { return nil }
        first = false
        continue
      }
      if line.starts(with: folderPrefix) {
        let path = String(decoding: line[folderPrefix.count...], as: UTF8.self)
        guard OutputPath.problem(path) == nil else { return nil }
        folders.insert(path)
        continue
      }
      // hash (16 hex digits) SP size SP mtime SP path
      guard line.count > 17, line[16] == space, let hash = parseHex(line[0..<16]) else {
        return nil
      }
      var index = 17
      guard let size = parseDecimal(line, &index), size >= 0, index < line.count,
        line[index] == space
      else { return nil }
      index += 1
      guard let modified = parseDecimal(line, &index), index < line.count - 1,
        line[index] == space
      else { return nil }
      let path = String(decoding: line[(index + 1)...], as: UTF8.self)
      guard OutputPath.problem(path) == nil else { return nil }
      files[path] = Entry(hash: ContentHash(value: hash), size: Int(size), modified: modified)
    }
    return first ? nil : (files, folders)
  }

  private static func parseHex(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> UInt64? {
    var value: UInt64 = 0
    for digit in digits {
      let nibble: UInt8
      switch digit {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
      default: return nil
      }
      value = value << 4 | UInt64(nibble)
    }
    return value
  }

  /// An optionally negative decimal at `index`, which moves past it.
  private static func parseDecimal(_ line: UnsafeBufferPointer<UInt8>, _ index: inout Int)
    -> Int64?
  {
    var negative = false
    if index < line.count && line[index] == UInt8(ascii: "-") {
      negative = true
      index += 1
    }
    var value: Int64 = 0
    var digits = 0
    while index < line.count, line[index] >= UInt8(ascii: "0"), line[index] <= UInt8(ascii: "9") {
      let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times.addingReportingOverflow(Int64(line[index] - UInt8(ascii: "0")))
      guard !overflow1 && !overflow2 else { return nil }
      value = sum
      index += 1
      digits += 1
    }
    guard digits > 0 else { return nil }
    return negative ? -value : value
  }

  /// The text of the manifest, sorted by path.
  func serialized() -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(64 * (files.count + 1))
    out.append(contentsOf: Self.header.utf8)
    out.append(UInt8(ascii: "\n"))
    let hexDigits = Array("0123456789abcdef".utf8)
    for path in files.keys.sorted(by: OutputPath.precedes) {
      guard let entry = files[path] else { continue }
      var shift: UInt64 = 64
      while shift > 0 {
        shift -= 4
        out.append(hexDigits[Int((entry.hash.value >> shift) & 0xF)])
      }
      out.append(UInt8(ascii: " "))
      Self.appendDecimal(Int64(entry.size), to: &out)
      out.append(UInt8(ascii: " "))
      Self.appendDecimal(entry.modified, to: &out)
      out.append(UInt8(ascii: " "))
      var name = path
      name.withUTF8 { out.append(contentsOf: $0) }
      out.append(UInt8(ascii: "\n"))
    }
    for folder in folders.sorted(by: OutputPath.precedes) {
      out.append(contentsOf: "folder ".utf8)
      out.append(contentsOf: folder.utf8)
      out.append(UInt8(ascii: "\n"))
    }
    return out
  }

  private static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
    if value < 0 { out.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    let first = out.count
    repeat {
      out.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
      magnitude /= 10
    } while magnitude > 0
    var low = first
    var high = out.count - 1
    while low < high {
      out.swapAt(low, high)
      low += 1
      high -= 1
    }
  }
}
