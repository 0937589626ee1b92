import Foundation
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

extension KeyedHash {
  /// A hash whose low half is `value` (tests of records and manifests).
  init(value: UInt64) {
    self.init(low: value, high: 0)
  }
}

extension HashKey {
  /// The key of the reference vectors, for tests without an output folder.
  static let test = HashKey(k0: 0x0706_0504_0302_0100, k1: 0x0f0e_0d0c_0b0a_0908)

  /// The key a build left in the state folder `state`.
  static func of(stateFolder state: String) -> HashKey? {
    FileManager.default.contents(atPath: state + "/" + HashKey.fileName).flatMap {
      HashKey(bytes: Array($0))
    }
  }
}

/// The lines of the manifest of the output folder `root` without the modification times, each
/// file's hash checked against its bytes under the folder's key and given under `HashKey.test`
/// instead: manifests of two folders (two keys) compare equal when they record the same files.
func manifestLinesUnderOneKey(_ root: String) throws -> [String] {
  let state = try #require(OutputWriter.stateFolder(ofOutput: root))
  let key = try #require(HashKey.of(stateFolder: state))
  let text = String(decoding: try #require(readFile(state + "/manifest")), as: UTF8.self)
  return text.split(separator: "\n").map { line in
    guard !line.hasPrefix("folder "), !line.hasPrefix("taskpress-") else { return String(line) }
    let fields = line.split(separator: " ", maxSplits: 3).map(String.init)
    guard fields.count == 4, let bytes = readFile(root + "/" + fields[3]) else {
      return "? " + line
    }
    let hash = key.hash(bytes).hex == fields[0] ? HashKey.test.hash(bytes).hex : "wrong-hash"
    return [hash, fields[1], fields[3]].joined(separator: " ")
  }
}
