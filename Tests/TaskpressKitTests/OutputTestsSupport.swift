import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A fresh folder under the system temporary folder, removed by `cleanUp()`.
struct TemporaryFolder {
  let path: String

  init() throws {
    var template = Array("/tmp/taskpress-output-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
    }
    path = try #require(made)
  }

  func cleanUp() {
    let fd = open(path, O_RDONLY | O_DIRECTORY)
    guard fd >= 0 else { return }
    for name in (try? FileSystem.listDirectory(fd)) ?? [] { FileSystem.removeTree(fd, name) }
    close(fd)
    rmdir(path)
  }

  func sub(_ name: String) -> String { path + "/" + name }
}

/// One entry of a folder tree, as seen without following links.
struct TreeEntry: Equatable, CustomStringConvertible {
  var kind: String
  var bytes: [UInt8]
  var modified: Int64
  /// The inode: a file replaced by another with the same bytes and time still differs.
  var inode: UInt64 = 0

  var description: String { "\(kind) \(bytes.count) bytes @\(modified) inode \(inode)" }
}

enum Tree {
  /// Every entry below `root` (paths relative to it), links not followed.
  static func snapshot(_ root: String, includeState: Bool = true) -> [String: TreeEntry] {
    var result: [String: TreeEntry] = [:]
    walk(root, "", &result, includeState)
    if includeState {
      // The state folder beside the output, its paths under `statePrefix`.
      var state: [String: TreeEntry] = [:]
      walk(stateFolder(root), "", &state, true)
      for (path, entry) in state { result[statePrefix + path] = entry }
    }
    return result
  }

  /// Where `snapshot` puts the entries of the state folder beside the output folder.
  static let statePrefix = "(state)/"

  private static func walk(
    _ root: String, _ relative: String, _ result: inout [String: TreeEntry], _ includeState: Bool
  ) {
    let full = relative.isEmpty ? root : root + "/" + relative
    let fd = open(full, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    guard fd >= 0 else { return }
    defer { close(fd) }
    for name in ((try? FileSystem.listDirectory(fd)) ?? []).sorted() {
      if relative.isEmpty && name == ".taskpress" && !includeState { continue }
      let path = relative.isEmpty ? name : relative + "/" + name
      guard let info = FileSystem.statNoFollow(fd, name) else { continue }
      if info.isDirectory {
        result[path] = TreeEntry(kind: "folder", bytes: [], modified: 0, inode: UInt64(info.st_ino))
        walk(root, path, &result, includeState)
      } else if info.isSymbolicLink {
        var target = [CChar](repeating: 0, count: 4096)
        let n = readlinkat(fd, name, &target, target.count)
        let bytes = target.prefix(max(n, 0)).map { UInt8(bitPattern: $0) }
        result[path] = TreeEntry(
          kind: "link", bytes: bytes, modified: 0, inode: UInt64(info.st_ino))
      } else {
        result[path] = TreeEntry(
          kind: "file", bytes: readFile(full + "/" + name) ?? [],
          modified: info.modificationNanoseconds, inode: UInt64(info.st_ino))
      }
    }
  }

  /// The paths and bytes only (what a reader of the site sees).
  static func contents(_ root: String) -> [String: [UInt8]] {
    snapshot(root, includeState: false).compactMapValues { $0.kind == "file" ? $0.bytes : nil }
  }
}

func readFile(_ path: String) -> [UInt8]? {
  let fd = open(path, O_RDONLY)
  guard fd >= 0 else { return nil }
  defer { close(fd) }
  var info = stat()
  guard fstat(fd, &info) == 0 else { return nil }
  return try? FileSystem.readAll(fd, expected: Int(info.st_size))
}

func writeFile(_ path: String, _ text: String) throws {
  if let slash = path.lastIndex(of: "/") { try makeFolders(String(path[..<slash])) }
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  try #require(fd >= 0)
  defer { close(fd) }
  try FileSystem.writeAll(fd, Array(text.utf8))
}

func makeFolders(_ path: String) throws {
  var prefix = ""
  for part in path.split(separator: "/") {
    prefix += "/" + part
    if mkdir(prefix, 0o755) != 0 { try #require(errno == EEXIST) }
  }
}

/// Sets the modification time of `path` back by `seconds`.
func ageFile(_ path: String, by seconds: Int) throws {
  var info = stat()
  try #require(stat(path, &info) == 0)
  var times = [
    timespec(tv_sec: info.st_atim.tv_sec, tv_nsec: info.st_atim.tv_nsec),
    timespec(tv_sec: info.st_mtim.tv_sec - seconds, tv_nsec: info.st_mtim.tv_nsec),
  ]
  try #require(utimensat(AT_FDCWD, path, &times, 0) == 0)
}

func modificationTime(_ path: String) -> Int64? {
  var info = stat()
  guard lstat(path, &info) == 0 else { return nil }
  return info.modificationNanoseconds
}

/// Builds `files` (path -> text) into `root` in one writer run.
@discardableResult
func build(
  _ root: String, _ files: [String: String], interrupt: InterruptFlag = InterruptFlag()
) throws -> OutputSummary {
  let writer = try OutputWriter(root: root, interrupt: interrupt)
  for (path, text) in files { try writer.add(path, bytes: Array(text.utf8)) }
  return try writer.commit()
}

/// The `OutputError` thrown by `body`, or nil.
func outputError(_ body: () throws -> Void) -> OutputError? {
  do {
    try body()
    return nil
  } catch let error as OutputError {
    return error
  } catch {
    return OutputError(path: "?", reason: "unexpected \(error)")
  }
}

/// taskpress's state folder for the output folder `root` (beside it).
func stateFolder(_ root: String) -> String {
  OutputWriter.stateFolder(ofOutput: root) ?? root + "/(no state folder)"
}
