import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// WAL-mode databases where taskpress may not write: a folder without write permission and a
/// read-only mount. Each builds, and the folder holds the same files afterwards.
@Suite struct DatabaseFolderTests {
  static let isRoot = getuid() == 0

  static let schema = """
    PRAGMA journal_mode = WAL;
    CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN);
    INSERT INTO todo VALUES (1, 'Renew passport', 1, 0), (2, 'Call Caitlin', 2, 1);
    """

  /// Runs `command` and returns its exit status and stderr.
  static func run(_ command: [String]) throws -> (status: Int32, stderr: String) {
    let process = Process()
    process.executableURL = URL(filePath: command[0])
    process.arguments = Array(command.dropFirst())
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    process.environment = environment
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let data = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  /// A folder for one test that every user may enter and write (the build runs as `nobody`).
  static func folder() throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appending(path: "taskpress-folder-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    chmod(path, 0o777)
    return path
  }

  /// A WAL database in `folder/data/todo.sqlite`; with `open`, also the `-wal` and `-shm` files
  /// of a program that has it open and has written (copied while it held them).
  static func database(in folder: String, named name: String, open: Bool) throws -> String {
    let data = "\(folder)/\(name)"
    try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
    let path = "\(data)/todo.sqlite"
    if open {
      let scratch = "\(folder)/scratch-\(name)"
      try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
      try Database.createForTesting(at: "\(scratch)/todo.sqlite", sql: schema)
      let writer = try Database.openWritableForTesting(at: "\(scratch)/todo.sqlite")
      try writer.execute(
        "PRAGMA wal_autocheckpoint = 0; INSERT INTO todo VALUES (3, 'In the log', 3, 0)")
      for suffix in ["", "-wal", "-shm"] {
        try FileManager.default.copyItem(
          atPath: "\(scratch)/todo.sqlite\(suffix)", toPath: path + suffix)
      }
    } else {
      try Database.createForTesting(at: path, sql: schema)
    }
    for file in try FileManager.default.contentsOfDirectory(atPath: data) {
      chmod("\(data)/\(file)", 0o644)
    }
    return path
  }

  /// `taskpress build --todos path` as `nobody` when this runs as root (root may write in any
  /// folder), else as this user.
  static func build(_ path: String, output: String) throws -> (status: Int32, stderr: String) {
    let binary = try TaskpressBinary.require()
    let build = [binary, "build", "--todos", path, "--output", output]
    if isRoot {
      return try run(
        ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + build)
    }
    return try run(build)
  }

  static func listing(_ folder: String) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
      files[name] = try Data(contentsOf: URL(filePath: "\(folder)/\(name)"))
    }
    return files
  }

  /// SQLite reads a file in WAL mode when byte 19 of its header is 2, whatever byte 18 says
  /// (found by `Scripts/fuzz-databases`, seed 3049791712, case 120: a `-shm` and an empty `-wal`
  /// were made beside the input).
  @Test("a WAL database with a damaged write version makes no file beside it")
  func damagedWriteVersion() throws {
    let root = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let path = try Self.database(in: root, named: "data", open: false)
    let data = (path as NSString).deletingLastPathComponent
    let handle = try #require(FileHandle(forUpdatingAtPath: path))
    try handle.seek(toOffset: 18)
    try handle.write(contentsOf: Data([0x66]))
    try handle.close()
    let before = try Self.listing(data)
    let result = try Self.build(path, output: "\(root)/site")
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try Self.listing(data) == before)
  }

  @Test(
    "a WAL database in a folder without write permission builds, with and without its log",
    arguments: [false, true])
  func readOnlyFolder(open: Bool) throws {
    let root = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let path = try Self.database(in: root, named: "data", open: open)
    let data = (path as NSString).deletingLastPathComponent
    chmod(data, 0o555)
    defer { chmod(data, 0o755) }
    let before = try Self.listing(data)
    let result = try Self.build(path, output: "\(root)/site")
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr == "")
    let names = try FileManager.default.contentsOfDirectory(atPath: data).sorted()
    #expect(
      names == (open ? ["todo.sqlite", "todo.sqlite-shm", "todo.sqlite-wal"] : ["todo.sqlite"]))
    let after = try Self.listing(data)
    #expect(after["todo.sqlite"] == before["todo.sqlite"])
    #expect(after["todo.sqlite-wal"] == before["todo.sqlite-wal"])
    let page = try String(
      contentsOfFile: "\(root)/site/todos/\(open ? 3 : 2).html", encoding: .utf8)
    #expect(page.contains(open ? "In the log" : "Call Caitlin"))
  }

  @Test(
    "a WAL database on a read-only mount builds, with and without its log",
    .enabled(
      if: isRoot && TestEnvironment.canMount,
      "needs root with the right to mount (mount --bind): not root, or a container without it"),
    arguments: [false, true])
  func readOnlyMount(open: Bool) throws {
    let root = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let path = try Self.database(in: root, named: "source", open: open)
    let mountPoint = "\(root)/mounted"
    try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
    let bind = try Self.run(["/usr/bin/mount", "--bind", "\(root)/source", mountPoint])
    try #require(bind.status == 0, "mount --bind failed: \(bind.stderr)")
    defer { _ = try? Self.run(["/usr/bin/umount", mountPoint]) }
    let readOnly = try Self.run(["/usr/bin/mount", "-o", "remount,ro,bind", mountPoint])
    try #require(readOnly.status == 0, "mount -o remount,ro,bind failed: \(readOnly.stderr)")
    #expect(!FileManager.default.isWritableFile(atPath: mountPoint))
    let before = try Self.listing(mountPoint)
    let mounted = "\(mountPoint)/todo.sqlite"
    let result = try Self.build(mounted, output: "\(root)/site")
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr == "")
    #expect(try Self.listing(mountPoint).keys.sorted() == before.keys.sorted())
    #expect(try Self.listing(mountPoint)["todo.sqlite"] == before["todo.sqlite"])
    _ = path
  }

  @Test("changes in a -wal without its -shm, in a folder without write permission, say what to do")
  func logWithoutIndex() throws {
    let root = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let path = try Self.database(in: root, named: "data", open: true)
    try FileManager.default.removeItem(atPath: path + "-shm")
    let data = (path as NSString).deletingLastPathComponent
    chmod(data, 0o555)
    defer { chmod(data, 0o755) }
    let result = try Self.build(path, output: "\(root)/site")
    #expect(result.status == 1)
    #expect(
      result.stderr == """
        error: \(path): its write-ahead log '\(path)-wal' holds changes that SQLite can read \
        only with a '\(path)-shm' file beside it, which cannot be made in this folder; run \
        sqlite3 '\(path)' 'PRAGMA wal_checkpoint' where the folder can be written, then build again

        """)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: data).sorted() == [
        "todo.sqlite", "todo.sqlite-wal",
      ])
  }
}
