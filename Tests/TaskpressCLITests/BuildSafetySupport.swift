import Foundation
@_spi(Testing) import SQLite
import Synchronization
import TestFixtures
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#endif

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

  /// Takes a snapshot of `root`; the state folder beside it is added (its paths under
  /// `(state)/`) when `includingState`.
  init(_ root: String, includingState: Bool = false) {
    entries = [:]
    collect(root, relative: "", includingState: includingState)
    if includingState {
      var state = FolderSnapshot(entries: [:])
      state.collect(stateFolder(root), relative: "", includingState: true)
      for (path, entry) in state.entries { entries[Self.statePrefix + path] = entry }
    }
  }

  /// Where the entries of the state folder beside the output folder go.
  static let statePrefix = "(state)/"

  private init(entries: [String: EntryState]) {
    self.entries = entries
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

  /// `contents` without the record of changes (`changes.html`, `data/changes.json`,
  /// `data/history.json`, `data/todo-history.json`, `data/flow.json`, the feeds, `flow.html`
  /// and `report.html`, and the report on `index.html`: its trend and latest changes), which
  /// tell how a
  /// site got where it is: a site repaired after an interrupted build, compared with one built
  /// afresh, differs there by design.
  var contentsApartFromChanges: [String: Data] {
    var files = contents.filter { path, _ in
      ![
        "changes.html", "data/changes.json", "data/history.json", "data/todo-history.json",
        "data/flow.json", "feed.xml", "feed.json", "flow.html", "report.html",
      ].contains(path)
        && !path.hasPrefix("changes/")
    }
    if let index = files["index.html"] {
      let text = String(decoding: index, as: UTF8.self)
      files["index.html"] = Data(
        text.replacing(/(?s)<div class="report">.*?<\/section>\n<\/div>\n/, with: "").utf8)
    }
    // Each to-do's page shows its own history (the builds that saw it change), which a site
    // built once does not have.
    for (path, bytes) in files where path.hasPrefix("todos/") {
      let text = String(decoding: bytes, as: UTF8.self)
      files[path] = Data(text.replacing(/(?s)<h2>History<\/h2>\n<ul>\n.*?<\/ul>\n/, with: "").utf8)
    }
    return files
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
    let full =
      path.hasPrefix(FolderSnapshot.statePrefix)
      ? stateFolder(root) + "/" + path.dropFirst(FolderSnapshot.statePrefix.count)
      : root + "/" + path
    try #require(utimensat(AT_FDCWD, full, &times, AT_SYMLINK_NOFOLLOW) == 0, "aging \(path)")
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

/// taskpress's state folder for the output folder `root` (beside it).
func stateFolder(_ root: String) -> String {
  OutputWriter.stateFolder(ofOutput: root) ?? root + "/(no state folder)"
}
