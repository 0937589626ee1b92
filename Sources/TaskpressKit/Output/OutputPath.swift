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
    var first = true
    for part in utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
      if part.isEmpty || part.elementsEqual(".".utf8) || part.elementsEqual("..".utf8) {
        return "contains an empty, '.' or '..' part; output paths must be plain relative paths"
      }
      if first && part.elementsEqual(stateFolder.utf8) {
        return "is inside '.taskpress', the folder taskpress keeps for its own state"
      }
      first = false
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
    a.utf8.lexicographicallyPrecedes(b.utf8)
  }
}
