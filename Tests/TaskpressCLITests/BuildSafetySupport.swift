import Foundation
@_spi(Testing) import SQLite
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

// MARK: - The taskpress binary

/// The `taskpress` executable SwiftPM built beside the test bundle.
enum TaskpressBinary {
  static let path: String? = {
    var candidates: [URL] = []
    // `swift build` and `swift test` put the executable in the same folder as the test bundle
    // (`.build/<triple>/debug/taskpress` next to `taskpressPackageTests.xctest`).
    if let bundle = Bundle.main.executableURL {
      candidates.append(bundle.deletingLastPathComponent().appending(path: "taskpress"))
    }
    let package = URL(filePath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(package.appending(path: ".build/debug/taskpress"))
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }?.path
  }()

  /// The path, or a failed requirement that says how to get the binary.
  static func require() throws -> String {
    try #require(
      path,
      "the taskpress executable was not found beside the test bundle; run 'swift build' first")
  }
}

/// `taskpress` running as a child process, its stdout and stderr read through pipes.
final class ChildTaskpress: @unchecked Sendable {
  // `@unchecked`: `output` is behind a mutex; `process` is only used from the test's thread
  // (the pipe readers only touch their own file handles).

  struct Result {
    /// The exit status, or the signal's number when `killed` is set.
    var status: Int32
    /// Whether the process was ended by a signal it did not handle.
    var killed: Bool
    var stdout: String
    var stderr: String
  }

  private let process = Process()
  private let output = Mutex((out: Data(), err: Data()))
  private let readers = DispatchGroup()

  /// Starts `taskpress arguments` in `directory`.
  init(_ arguments: [String], in directory: String) throws {
    process.executableURL = URL(filePath: try TaskpressBinary.require())
    process.arguments = arguments
    process.currentDirectoryURL = URL(filePath: directory)
    var environment = ProcessInfo.processInfo.environment
    environment["SOURCE_DATE_EPOCH"] = nil
    process.environment = environment
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    drain(stdout.fileHandleForReading, isError: false)
    drain(stderr.fileHandleForReading, isError: true)
  }

  private func drain(_ handle: FileHandle, isError: Bool) {
    readers.enter()
    DispatchQueue.global().async { [self] in
      let data = handle.readDataToEndOfFile()
      output.withLock { output in
        if isError { output.err = data } else { output.out = data }
      }
      readers.leave()
    }
  }

  var isRunning: Bool { process.isRunning }

  /// Sends `signal` to the child.
  func send(_ signal: Int32) {
    kill(process.processIdentifier, signal)
  }

  /// Waits for the child to end and returns how it ended and what it printed.
  func wait() -> Result {
    process.waitUntilExit()
    readers.wait()
    let (out, err) = output.withLock { ($0.out, $0.err) }
    return Result(
      status: process.terminationStatus, killed: process.terminationReason == .uncaughtSignal,
      stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
  }
}

/// Polls `condition` every millisecond until it holds; false when it still does not after
/// `limit`, a bound that is only there so that a broken build cannot hang the tests.
func poll(upTo limit: Duration = .seconds(600), _ condition: () -> Bool) -> Bool {
  let deadline = ContinuousClock.now + limit
  while !condition() {
    if ContinuousClock.now > deadline { return false }
    usleep(1000)
  }
  return true
}

// MARK: - Snapshots of a folder

/// One entry of a folder tree as `lstat` sees it, with the bytes of a file.
struct EntryState: Equatable, CustomStringConvertible {
  var kind: String
  var bytes: Data?
  var linkTarget: String?
  var modified: Int64
  var inode: UInt64

  var description: String {
    "\(kind), \(bytes?.count ?? 0) bytes, mtime \(modified), inode \(inode)"
      + (linkTarget.map { " -> \($0)" } ?? "")
  }
}

/// Every entry under a folder (never following a link): paths, kinds, bytes, mtimes, inodes.
struct FolderSnapshot: Equatable {
  var entries: [String: EntryState]

  /// Takes a snapshot of `root`; `.taskpress/` is left out unless `includingState`.
  init(_ root: String, includingState: Bool = false) {
    entries = [:]
    collect(root, relative: "", includingState: includingState)
  }

  private mutating func collect(_ folder: String, relative: String, includingState: Bool) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
    for name in names {
      let path = relative.isEmpty ? name : relative + "/" + name
      if path == ".taskpress" && !includingState { continue }
      let full = folder + "/" + name
      var info = stat()
      guard lstat(full, &info) == 0 else { continue }
      let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
      var entry = EntryState(
        kind: "other", bytes: nil, linkTarget: nil, modified: modified, inode: UInt64(info.st_ino))
      switch info.st_mode & S_IFMT {
      case S_IFDIR:
        entry.kind = "folder"
        entries[path] = entry
        collect(full, relative: path, includingState: includingState)
        continue
      case S_IFREG:
        entry.kind = "file"
        entry.bytes = FileManager.default.contents(atPath: full)
      case S_IFLNK:
        entry.kind = "link"
        entry.linkTarget = try? FileManager.default.destinationOfSymbolicLink(atPath: full)
      default:
        break
      }
      entries[path] = entry
    }
  }

  /// The paths that differ from `other`, described, at most `limit` of them.
  func differences(from other: FolderSnapshot, limit: Int = 10) -> [String] {
    var found: [String] = []
    for path in Set(entries.keys).union(other.entries.keys).sorted() {
      let mine = entries[path]
      let theirs = other.entries[path]
      guard mine != theirs else { continue }
      found.append(
        "\(path): \(theirs.map(String.init(describing:)) ?? "absent") -> "
          + "\(mine.map(String.init(describing:)) ?? "absent")")
      if found.count == limit { break }
    }
    return found
  }

  /// The file paths and bytes only (no mtimes, inodes or folders): what a reader of the site sees.
  var contents: [String: Data] {
    entries.compactMapValues(\.bytes)
  }
}

/// Sets the access and modification times of every entry under `root` back by `seconds`
/// (links themselves, never their targets).
func age(_ root: String, by seconds: Int) throws {
  let snapshot = FolderSnapshot(root, includingState: true)
  for (path, entry) in snapshot.entries {
    let old = timespec(
      tv_sec: Int(entry.modified / 1_000_000_000) - seconds,
      tv_nsec: Int(entry.modified % 1_000_000_000))
    var times = [old, old]
    try #require(
      utimensat(AT_FDCWD, root + "/" + path, &times, AT_SYMLINK_NOFOLLOW) == 0, "aging \(path)")
  }
}

// MARK: - Fixture databases

enum SafetyFixtures {
  static let todoTable =
    "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN);"

  /// A to-do database with `count` rows `text 1`, `text 2`, …, made in one transaction.
  static func todos(at path: String, count: Int, text: String = "task") throws {
    try Database.createForTesting(
      at: path,
      sql: """
        BEGIN;
        \(todoTable)
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
        INSERT INTO todo SELECT i, '\(text) ' || i, i % 3 + 1, i % 2 FROM n;
        COMMIT;
        """)
  }

  /// A possessions database with `count` rows, each with a different photo of about
  /// `photoBytes` bytes (a real 3×2 PNG with a private chunk of random bytes).
  static func possessions(at path: String, count: Int, photoBytes: Int) throws {
    let rows = (1...count).map { i in
      let png = TestPNG.make(seed: i, padding: max(1, photoBytes - 80))
      return "(\(i), 'thing \(i)', 'described', X'\(TestPNG.hex(png))')"
    }
    try Database.createForTesting(
      at: path,
      sql: """
        BEGIN;
        CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);
        INSERT INTO possessions VALUES \(rows.joined(separator: ", "));
        COMMIT;
        """)
  }
}
