import JSONEscaping
import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The JSON file `--report` writes: what a build did or why it failed, for CI to act on.
///
/// Its shape is `Docs/report.schema.json`; keys are only ever added.
struct BuildReport {
  /// How the build ended.
  enum Status: String {
    case built
    case failed
    case interrupted
  }

  var status: Status
  var exitStatus: Int32
  var output: String
  var state: String?
  var summary: BuildSummary
  var warnings: [BuildWarning]
  var error: String?

  /// The report as pretty-printed JSON, keys in a fixed order: the plain twin of `stream`,
  /// which `write(to:)` uses.
  var json: String {
    head + "  \"writtenPaths\": "
      + Self.array(summary.writtenPaths.map { "\n    " + Self.string($0) })
      + ",\n  \"removedPaths\": "
      + Self.array(summary.removedPaths.map { "\n    " + Self.string($0) }) + "\n}\n"
  }

  /// `json` handed to `out` in pieces of about 64 KB, the same bytes: each path is escaped
  /// from its bytes in the summary (`PathList`) into one buffer, where `json` makes a few
  /// `String`s of it (a million written paths were about 100 MB at the end of a build).
  func stream(_ out: (UnsafeBufferPointer<UInt8>) -> Void) {
    var buffer: [UInt8] = []
    buffer.reserveCapacity(Self.streamChunk + 4096)
    func flush(_ buffer: inout [UInt8]) {
      buffer.withUnsafeBufferPointer(out)
      buffer.removeAll(keepingCapacity: true)
    }
    buffer += head.utf8
    buffer += "  \"writtenPaths\": ".utf8
    let written = summary.writtenPaths
    Self.streamArray(count: written.count, into: &buffer, flush: flush) { index, buffer in
      written.withPath(index) { Self.appendString($0, to: &buffer) }
    }
    buffer += ",\n  \"removedPaths\": ".utf8
    let removed = summary.removedPaths
    Self.streamArray(count: removed.count, into: &buffer, flush: flush) { index, buffer in
      var path = removed[index]
      path.withUTF8 { Self.appendString($0, to: &buffer) }
    }
    buffer += "\n}\n".utf8
    flush(&buffer)
  }

  private static let streamChunk = 64 << 10

  /// `array` of `count` items written by `item`, flushing the buffer when it is full.
  private static func streamArray(
    count: Int, into buffer: inout [UInt8], flush: (inout [UInt8]) -> Void,
    item: (Int, inout [UInt8]) -> Void
  ) {
    guard count > 0 else {
      buffer += "[]".utf8
      return
    }
    buffer.append(UInt8(ascii: "["))
    for index in 0..<count {
      if index > 0 { buffer.append(UInt8(ascii: ",")) }
      buffer += "\n    ".utf8
      item(index, &buffer)
      if buffer.count >= streamChunk { flush(&buffer) }
    }
    buffer += "\n  ]".utf8
  }

  /// `string(_:)` of the UTF-8 text `utf8`, appended to `buffer`.
  private static func appendString(_ utf8: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
    buffer.append(UInt8(ascii: "\""))
    JSONText.escape(utf8, .delete) { buffer.append(contentsOf: $0) }
    buffer.append(UInt8(ascii: "\""))
  }

  /// The report up to its lists of paths (which `json` and `stream` add).
  private var head: String {
    var fields: [(String, String)] = [
      ("version", Self.string(taskpressVersion)),
      ("status", Self.string(status.rawValue)),
      ("exitStatus", "\(exitStatus)"),
      ("output", Self.string(output)),
      ("state", state.map(Self.string) ?? "null"),
      ("written", "\(summary.written)"),
      ("unchanged", "\(summary.unchanged)"),
      ("removed", "\(summary.removed)"),
      ("pages", "\(summary.pages)"),
      ("rendered", "\(summary.rendered)"),
      ("photos", "\(summary.photos)"),
      ("photosDecoded", "\(summary.photosDecoded)"),
      ("filesRehashed", "\(summary.filesRehashed)"),
      ("photoSeconds", "\(Self.milliseconds(summary.photoSeconds))"),
      ("warnings", "\(warnings.count)"),
      ("repaired", "\(summary.repaired)"),
      ("seconds", "\(Self.milliseconds(summary.seconds))"),
    ]
    let phases = summary.phases.map {
      "\n    \(Self.string($0.name)): \(Self.milliseconds($0.seconds))"
    }
    fields.append(
      ("phases", "{" + phases.joined(separator: ",") + (phases.isEmpty ? "}" : "\n  }")))
    let warningObjects = warnings.map { warning -> String in
      let (table, row) = Self.tableAndRow(warning.location)
      let parts = [
        ("file", Self.string(warning.file)), ("table", table.map(Self.string) ?? "null"),
        ("row", row.map(Self.string) ?? "null"), ("message", Self.string(warning.message)),
        ("text", Self.string(warning.description)),
      ]
      return "\n    {" + parts.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }
    fields.append(("warningList", Self.array(warningObjects)))
    fields.append(("error", error.map(Self.string) ?? "null"))
    return "{\n" + fields.map { "  \"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + ",\n"
  }

  private static func array(_ items: [String]) -> String {
    items.isEmpty ? "[]" : "[" + items.joined(separator: ",") + "\n  ]"
  }

  /// `todo pk=42` -> (`todo`, `pk=42`); `todo row 3` -> (`todo`, `row 3`).
  static func tableAndRow(_ location: String?) -> (String?, String?) {
    guard let location else { return (nil, nil) }
    guard let space = location.firstIndex(of: " ") else { return (location, nil) }
    return (String(location[..<space]), String(location[location.index(after: space)...]))
  }

  private static func milliseconds(_ seconds: Double) -> Double {
    (seconds * 1000).rounded() / 1000
  }

  /// `text` as a JSON string (DEL escaped too).
  static func string(_ text: String) -> String {
    JSONText.quoted(text, .delete)
  }

  // MARK: - The file

  /// Why the report cannot be written to `path`, checked before anything is built; nil when it
  /// can. `source` names where the path came from (`'--report'`).
  static func problem(writing path: String, source: String) -> String? {
    let quoted = "\(source): '\(path)'"
    var info = stat()
    if stat(path, &info) == 0 {
      if (info.st_mode & S_IFMT) == S_IFDIR {
        return "\(quoted) is a folder; give the path of a file, such as '\(path)/report.json'"
      }
      if (info.st_mode & S_IFMT) != S_IFREG {
        return "\(quoted) is not a regular file; give the path of a file"
      }
      if access(path, W_OK) != 0 {
        return "\(quoted) cannot be written (\(reason(errno))); give a path you can write"
      }
      return nil
    }
    let folder = parent(of: path)
    guard stat(folder, &info) == 0 else {
      return
        "\(quoted) is in a folder that does not exist ('\(folder)'); create it or give another path"
    }
    guard (info.st_mode & S_IFMT) == S_IFDIR else {
      return "\(quoted) is in '\(folder)', which is not a folder; give another path"
    }
    guard access(folder, W_OK | X_OK) == 0 else {
      return "\(quoted) cannot be created in '\(folder)' (\(reason(errno))); give another path"
    }
    return nil
  }

  /// Writes the report (`stream`) to `path` whole: a temporary file beside it, then a rename.
  /// Returns why it could not, or nil.
  func write(to path: String) -> String? {
    Self.write(to: path, stream)
  }

  /// Writes what `produce` hands its argument to `path` whole.
  private static func write(
    to path: String, _ produce: ((UnsafeBufferPointer<UInt8>) -> Void) -> Void
  ) -> String? {
    let temporary = path + ".tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
    guard fd >= 0 else { return reason(errno) }
    var failure: Int32 = 0
    produce { buffer in
      var offset = 0
      while failure == 0, offset < buffer.count {
        let count = System.write(
          fd, buffer.baseAddress?.advanced(by: offset), buffer.count - offset)
        if count < 0, errno == EINTR { continue }
        guard count > 0 else {
          failure = count < 0 ? errno : ENOSPC
          return
        }
        offset += count
      }
    }
    if close(fd) != 0, failure == 0 { failure = errno }
    if failure == 0, rename(temporary, path) != 0 { failure = errno }
    if failure != 0 {
      unlink(temporary)
      return reason(failure)
    }
    return nil
  }

  private static func parent(of path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return "." }
    return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
  }

  private static func reason(_ code: Int32) -> String {
    String(cString: strerror(code)).lowercased()
  }
}
