import Glibc

/// Checks of the relative paths given to `OutputWriter`.
enum OutputPath {
  /// The folder, at the top of the output, that holds taskpress's own state.
  static let stateFolder = ".taskpress"

  /// Why `path` cannot be written, or nil when it is a valid relative file path.
  static func problem(_ path: String) -> String? {
    let utf8 = path.utf8
    if utf8.isEmpty { return "an empty path is not a valid output file" }
    if utf8.first == UInt8(ascii: "/") {
      return "is absolute; output paths are relative to the output folder"
    }
    if utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "contains a control character" }
    // One pass over the bytes, part by part (no allocation: manifests are checked line by line).
    var partStart = utf8.startIndex
    var isFirst = true
    var index = utf8.startIndex
    while true {
      let atEnd = index == utf8.endIndex
      if atEnd || utf8[index] == UInt8(ascii: "/") {
        let part = utf8[partStart..<index]
        if part.isEmpty || part.elementsEqual(".".utf8) || part.elementsEqual("..".utf8) {
          return "contains an empty, '.' or '..' part; output paths must be plain relative paths"
        }
        if isFirst && part.elementsEqual(stateFolder.utf8) {
          return "is inside '.taskpress', the folder taskpress keeps for its own state"
        }
        isFirst = false
        if atEnd { break }
        partStart = utf8.index(after: index)
      }
      index = utf8.index(after: index)
    }
    return nil
  }

  /// Splits `a/b/c.html` into (`a/b`, `c.html`); the folder is empty at the top.
  static func split(_ path: String) -> (folder: String, name: String) {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return ("", path) }
    return (String(path[..<slash]), String(path[path.index(after: slash)...]))
  }

  /// `a/b/c.html` -> [`a`, `a/b`]: the folders that must exist for the file.
  static func ancestors(ofFolder folder: String) -> [String] {
    guard !folder.isEmpty else { return [] }
    var result: [String] = []
    var index = folder.startIndex
    while let slash = folder[index...].firstIndex(of: "/") {
      result.append(String(folder[..<slash]))
      index = folder.index(after: slash)
    }
    result.append(folder)
    return result
  }

  /// Byte-wise order, the same on every machine and locale.
  static func precedes(_ a: String, _ b: String) -> Bool {
    // memcmp on the contiguous UTF-8 of native strings: sorting 100,000 paths is a hot spot.
    var a = a
    var b = b
    return a.withUTF8 { x in
      b.withUTF8 { y in
        let common = min(x.count, y.count)
        guard common > 0, let p = x.baseAddress, let q = y.baseAddress else {
          return x.count < y.count
        }
        let order = memcmp(p, q, common)
        return order != 0 ? order < 0 : x.count < y.count
      }
    }
  }

  /// Whether `path` is `folder` or inside it.
  static func isWithin(_ path: String, _ folder: String) -> Bool {
    path == folder
      || (path.utf8.count > folder.utf8.count && path.hasPrefix(folder)
        && path.utf8[path.utf8.index(path.utf8.startIndex, offsetBy: folder.utf8.count)]
          == UInt8(ascii: "/"))
  }
}
