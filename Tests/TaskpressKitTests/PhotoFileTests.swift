import Foundation
@_spi(Testing) import SQLite
import Synchronization
import TestFixtures
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Photos stored as files: a `photo` column holding text is a path beneath the photo folder.
@Suite struct PhotoFileTests {
  /// A small PNG, published as stored.
  static let small = TestPNG.make(width: 3, height: 2, seed: 1)
  /// A PNG wide enough to need renditions, and larger than what is read whole (streamed).
  static let large = TestPNG.make(width: 700, height: 30, seed: 2, padding: 1_100_000)

  static func write(_ bytes: [UInt8], to path: String) throws {
    let folder = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }

  static func symlink(_ path: String, to target: String) throws {
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
  }

  /// Builds `options` into `output`, collecting the warnings.
  static func build(_ options: BuildOptions, into output: String) throws -> (
    summary: BuildSummary, warnings: [String]
  ) {
    var options = options
    options.output = output
    let collected = Mutex<[String]>([])
    let summary = try Build.run(
      options, interrupt: InterruptFlag(),
      reporter: Build.Reporter(warning: { warning in
        collected.withLock { $0.append("\(warning)") }
      }))
    return (summary, collected.withLock { $0 })
  }

  static let table =
    "CREATE TABLE possessions(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, description TEXT, photo BLOB);"

  @Test("photos stored as files are published as the same files as the same bytes stored as BLOBs")
  func sameAsBlobs() throws {
    let site = try SiteFixture()
    let blobs = try site.database(
      "blobs.sqlite",
      Self.table + """
        INSERT INTO possessions VALUES (1, 'Lamp', 'small', X'\(TestPNG.hex(Self.small))');
        INSERT INTO possessions VALUES (2, 'Chair', 'large', X'\(TestPNG.hex(Self.large))');
        INSERT INTO possessions VALUES (3, 'Lamp again', 'the same photo', X'\(TestPNG.hex(Self.small))');
        INSERT INTO possessions VALUES (4, 'Desk', 'no photo', NULL);
        """)
    try Self.write(Self.small, to: site.folder + "/files/photos/lamp.png")
    try Self.write(Self.large, to: site.folder + "/files/photos/big/chair.png")
    let files = site.folder + "/files/files.sqlite"
    try Database.createForTesting(
      at: files,
      sql: Self.table + """
        INSERT INTO possessions VALUES (1, 'Lamp', 'small', 'photos/lamp.png');
        INSERT INTO possessions VALUES (2, 'Chair', 'large', 'photos/big/chair.png');
        INSERT INTO possessions VALUES (3, 'Lamp again', 'the same photo', './photos//lamp.png');
        INSERT INTO possessions VALUES (4, 'Desk', 'no photo', '');
        """)
    var options = BuildOptions()
    options.possessions = blobs
    let fromBlobs = try Self.build(options, into: site.folder + "/from-blobs")
    options.possessions = files
    let fromFiles = try Self.build(options, into: site.folder + "/from-files")
    #expect(fromBlobs.warnings == [])
    #expect(fromFiles.warnings == [])
    #expect(fromFiles.summary.photosDecoded == 1)
    let blobTree = try PhotoCacheTests.tree(site.folder + "/from-blobs")
    let fileTree = try PhotoCacheTests.tree(site.folder + "/from-files")
    #expect(blobTree.keys.filter { $0.hasPrefix("photos/") }.count >= 2)
    #expect(blobTree.keys.sorted() == fileTree.keys.sorted())
    for (path, bytes) in blobTree {
      #expect(fileTree[path] == bytes, "\(path) differs")
    }
    // Nothing was written beside the database.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: site.folder + "/files").sorted() == [
        "files.sqlite", "photos",
      ])
  }

  @Test("hostile paths are warnings naming the row; nothing outside the folder is read")
  func hostilePaths() throws {
    let folder = try FixtureFolder()
    let root = folder.url.path
    let outside = try FixtureFolder()
    try Self.write(Self.small, to: outside.url.path + "/secret.png")
    try Self.write(Self.small, to: root + "/photos/ok.png")
    try Self.write(Array("hello, not an image".utf8), to: root + "/photos/text.jpg")
    try FileManager.default.createDirectory(
      atPath: root + "/photos/folder.jpg", withIntermediateDirectories: true)
    #expect(mkfifo(root + "/photos/fifo.jpg", 0o600) == 0)
    // Out of the folder by a relative link, by an absolute one; a link inside it; a loop.
    try Self.symlink(
      root + "/photos/out.png", to: "../../" + outside.url.lastPathComponent + "/secret.png")
    try Self.symlink(root + "/photos/abs.png", to: outside.url.path + "/secret.png")
    try Self.symlink(root + "/photos/in.png", to: "ok.png")
    try Self.symlink(root + "/photos/loop-a", to: "loop-b")
    try Self.symlink(root + "/photos/loop-b", to: "loop-a")
    try Self.symlink(root + "/up", to: "..")
    let path = try folder.database(
      "hostile",
      sql: Self.table + """
        INSERT INTO possessions VALUES (1, 'ok', '', 'photos/ok.png');
        INSERT INTO possessions VALUES (2, 'up', '', '../x.jpg');
        INSERT INTO possessions VALUES (3, 'absolute', '', '/etc/passwd');
        INSERT INTO possessions VALUES (4, 'link out', '', 'photos/out.png');
        INSERT INTO possessions VALUES (5, 'absolute link', '', 'photos/abs.png');
        INSERT INTO possessions VALUES (6, 'folder', '', 'photos/folder.jpg');
        INSERT INTO possessions VALUES (7, 'fifo', '', 'photos/fifo.jpg');
        INSERT INTO possessions VALUES (8, 'text', '', 'photos/text.jpg');
        INSERT INTO possessions VALUES (9, 'long', '', replace(hex(zeroblob(5000)), '0', 'a'));
        INSERT INTO possessions VALUES (10, 'nul', '', 'photos/ok.png' || char(0) || '.jpg');
        INSERT INTO possessions VALUES (11, 'newline', '', 'photos/ok.png' || char(10) || 'x');
        INSERT INTO possessions VALUES (12, 'climbs', '', 'x/../../etc/passwd');
        INSERT INTO possessions VALUES (13, 'empty', '', '');
        INSERT INTO possessions VALUES (14, 'null', '', NULL);
        INSERT INTO possessions VALUES (15, 'link in', '', 'photos/in.png');
        INSERT INTO possessions VALUES (16, 'missing', '', 'photos/missing.png');
        INSERT INTO possessions VALUES (17, 'loop', '', 'photos/loop-a');
        INSERT INTO possessions VALUES (18, 'round trip', '', 'photos/../photos/ok.png');
        INSERT INTO possessions VALUES (19, 'link up', '', 'up/x.png');
        INSERT INTO possessions VALUES (20, 'the folder', '', '.');
        """)
    let source = try PossessionSource(path: path)
    let (possessions, warnings) = try source.load()
    let photos = Dictionary(uniqueKeysWithValues: possessions.map { ($0.id, $0.photo) })
    for id: Int64 in [1, 15, 18] {
      let photo = try #require(photos[id] ?? nil, "possession \(id)")
      #expect(photo.format == .png && photo.width == 3 && photo.height == 2)
      #expect(try source.readPhoto(photo) == Self.small)
    }
    for id: Int64 in 2...20 where ![15, 18].contains(id) {
      #expect(photos[id] == .some(nil), "possession \(id) has no photo")
    }
    let long = String(repeating: "a", count: 80) + "…"
    #expect(
      warnings.map(\.description) == [
        "\(path): possessions id=2: photo '../x.jpg' leaves the photo folder; not published",
        "\(path): possessions id=3: photo '/etc/passwd' is an absolute path; give a path relative "
          + "to the photo folder; not published",
        "\(path): possessions id=4: photo 'photos/out.png' leaves the photo folder; not published",
        "\(path): possessions id=5: photo 'photos/abs.png' leaves the photo folder; not published",
        "\(path): possessions id=6: photo 'photos/folder.jpg' is not a regular file; not published",
        "\(path): possessions id=7: photo 'photos/fifo.jpg' is not a regular file; not published",
        "\(path): possessions id=8: photo 'photos/text.jpg' is not a recognized image (starts with "
          + "68 65 6c 6c); not published",
        "\(path): possessions id=9: photo '\(long)' is longer than 4096 bytes; not published",
        "\(path): possessions id=10: photo 'photos/ok.png\\u{0}.jpg' holds a control character "
          + "(a NUL byte, a line break, a tab); not published",
        "\(path): possessions id=11: photo 'photos/ok.png\\u{a}x' holds a control character "
          + "(a NUL byte, a line break, a tab); not published",
        "\(path): possessions id=12: photo 'x/../../etc/passwd' leaves the photo folder; not "
          + "published",
        "\(path): possessions id=16: photo 'photos/missing.png' is not in the photo folder; not "
          + "published",
        "\(path): possessions id=17: photo 'photos/loop-a' goes through more than 40 links; not "
          + "published",
        "\(path): possessions id=19: photo 'up/x.png' leaves the photo folder; not published",
        "\(path): possessions id=20: photo '.' is not a regular file; not published",
      ])
    // Every warning is one line.
    #expect(warnings.allSatisfy { !$0.description.contains("\n") })
    try source.checkSnapshot()
  }

  @Test("a photo folder given apart from the database; a missing one is an error naming it")
  func photoFolder() throws {
    let folder = try FixtureFolder()
    let pictures = folder.url.path + "/pictures"
    try Self.write(Self.small, to: pictures + "/lamp.png")
    let path = try folder.database(
      "folder", sql: Self.table + "INSERT INTO possessions VALUES (1, 'Lamp', '', 'lamp.png');")
    let (plain, plainWarnings) = try PossessionSource(path: path).load()
    #expect(plain[0].photo == nil)
    #expect(
      plainWarnings.map(\.description) == [
        "\(path): possessions id=1: photo 'lamp.png' is not in the photo folder; not published"
      ])
    let source = try PossessionSource(path: path, photoFolder: pictures)
    let (possessions, warnings) = try source.load()
    #expect(warnings == [])
    #expect(try source.readPhoto(try #require(possessions[0].photo)) == Self.small)

    let missing = sourceError {
      _ = try PossessionSource(path: path, photoFolder: folder.url.path + "/nowhere").load()
    }
    #expect(
      missing?.description
        == "\(path): the photo folder '\(folder.url.path)/nowhere' cannot be opened (No such file "
        + "or directory); give the folder the photos' paths are relative to with --photo-folder "
        + "or \"photo-folder\"")
  }

  @Test("a file changed after the rows were read fails the snapshot check")
  func changedWhileBuilding() throws {
    let folder = try FixtureFolder()
    try Self.write(Self.small, to: folder.url.path + "/lamp.png")
    let path = try folder.database(
      "changing", sql: Self.table + "INSERT INTO possessions VALUES (1, 'Lamp', '', 'lamp.png');")
    let source = try PossessionSource(path: path)
    _ = try source.load()
    // Moved aside, not removed: its inode is not free for the new file to take.
    try FileManager.default.moveItem(
      atPath: folder.url.path + "/lamp.png", toPath: folder.url.path + "/old.png")
    try Self.write(TestPNG.make(width: 3, height: 2, seed: 9), to: folder.url.path + "/lamp.png")
    let error = sourceError { try source.checkSnapshot() }
    #expect(
      error?.description
        == "\(path): possessions id=1: photo 'lamp.png' changed while the site was built; build again"
    )
  }

  @Test("rebuilds key photo files by content: each step gives a cold build's bytes")
  func rebuilds() throws {
    let site = try SiteFixture()
    let root = site.folder + "/inventory"
    let first = TestPNG.make(width: 700, height: 30, seed: 3, padding: 8000)
    let second = TestPNG.make(width: 700, height: 30, seed: 4, padding: 8000)
    #expect(first.count == second.count && first != second)
    try Self.write(first, to: root + "/photos/chair.png")
    try Self.write(Self.small, to: root + "/photos/lamp.png")
    let database = root + "/possessions.sqlite"
    try Database.createForTesting(
      at: database,
      sql: Self.table + """
        INSERT INTO possessions VALUES (1, 'Chair', '', 'photos/chair.png');
        INSERT INTO possessions VALUES (2, 'Lamp', '', 'photos/lamp.png');
        """)
    try FileTimes.settle(database)
    var options = BuildOptions()
    options.possessions = database
    // A given date: the changes a rebuild records name no clock.
    options.date = "2026-12-10"
    let output = site.folder + "/site"
    var cold = 0
    /// Rebuilds the site and checks it against a cold build of the same inputs, which compares
    /// with a copy of the site the rebuild replaced (`--previous`), as the rebuild does.
    func check(_ step: String, decoded: Int) throws {
      cold += 1
      let before = site.folder + "/before-\(cold)"
      if FileManager.default.fileExists(atPath: output) {
        try IncrementalTests.copy(output, before)
      }
      let rebuilt = try Self.build(options, into: output)
      #expect(rebuilt.warnings == [], "\(step)")
      #expect(rebuilt.summary.photosDecoded == decoded, "\(step)")
      var plain = options
      plain.previous = FileManager.default.fileExists(atPath: before) ? before : nil
      plain.renderPaths = RenderPaths.all.subtracting(.incremental)
      _ = try Self.build(plain, into: site.folder + "/cold-\(cold)")
      let expected = try PhotoCacheTests.tree(site.folder + "/cold-\(cold)")
      let found = try PhotoCacheTests.tree(output)
      #expect(found.keys.sorted() == expected.keys.sorted(), "\(step)")
      for (path, bytes) in expected {
        #expect(found[path] == bytes, "\(step): \(path) differs")
      }
    }
    try check("first build", decoded: 1)
    try check("nothing changed", decoded: 0)
    // The same size, other bytes, written in place: no clock tick needs to pass.
    try Self.write(second, to: root + "/photos/chair.png")
    try check("a file's bytes changed", decoded: 1)
    // Renamed, and the row changed with it: the same content, nothing decoded.
    try FileManager.default.moveItem(
      atPath: root + "/photos/chair.png", toPath: root + "/photos/seat.png")
    let writable = try Database.openWritableForTesting(at: database)
    try writable.execute("UPDATE possessions SET photo = 'photos/seat.png' WHERE id = 1")
    try check("a file renamed", decoded: 0)
    // Another file holding the first photo's bytes.
    try Self.write(first, to: root + "/photos/other.png")
    try writable.execute("UPDATE possessions SET photo = 'photos/other.png' WHERE id = 1")
    try check("the row points at another file", decoded: 1)
    // A file replaced by another of the same size (a new inode), the database untouched.
    try FileManager.default.moveItem(
      atPath: root + "/photos/other.png", toPath: root + "/photos/old.png")
    try Self.write(second, to: root + "/photos/other.png")
    try check("a file replaced", decoded: 1)
    // The file gone: a warning, and the placeholder.
    try FileManager.default.removeItem(atPath: root + "/photos/other.png")
    let gone = try Self.build(options, into: output)
    #expect(
      gone.warnings == [
        "\(database): possessions id=1: photo 'photos/other.png' is not in the photo folder; "
          + "not published"
      ])
  }
}
