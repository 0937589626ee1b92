import Foundation
@_spi(Testing) import SQLite
import TaskpressCLI
import TestFixtures
import Testing

/// `"photo-folder"` in the possessions' object of `taskpress.json`, and `--photo-folder`.
@Suite struct PhotoFolderCommandTests {
  static let png = TestPNG.make(width: 3, height: 2, seed: 5)

  /// A folder with `inventory/items.db` (a lamp whose photo is `lamp.png`, and a row whose
  /// path leaves the folder), `pictures/lamp.png` and `taskpress.json` as given.
  static func folder(config: String) throws -> String {
    let folder = try makeTemporaryFolder()
    for name in ["inventory", "pictures", "empty"] {
      try FileManager.default.createDirectory(
        atPath: "\(folder)/\(name)", withIntermediateDirectories: true)
    }
    try Data(Self.png).write(to: URL(filePath: "\(folder)/pictures/lamp.png"))
    try Database.createForTesting(
      at: "\(folder)/inventory/items.db",
      sql: """
        CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);
        INSERT INTO possessions VALUES (1, 'Lamp', '', 'lamp.png');
        INSERT INTO possessions VALUES (2, 'Secret', '', '../inventory/items.db');
        """)
    try Data(config.utf8).write(to: URL(filePath: "\(folder)/taskpress.json"))
    return folder
  }

  /// `taskpress build` in-process, with the folder's `taskpress.json` (paths in it are
  /// relative to it).
  static func build(_ folder: String, _ arguments: [String] = []) -> (Int32, String) {
    let io = CapturedIO(environment: ["NO_COLOR": "1", "CI": "true"], currentDirectory: folder)
    let status = TaskpressCLI.run(
      arguments: ["build", "--config", "\(folder)/taskpress.json", "--output", "\(folder)/site"]
        + arguments, io: io)
    return (status, io.stderr)
  }

  static func leaves(_ folder: String) -> String {
    "\(folder)/inventory/items.db: possessions id=2: photo '../inventory/items.db' leaves the "
      + "photo folder; not published"
  }

  @Test("photo-folder is relative to taskpress.json; the photo is published, an escape is not")
  func configured() throws {
    let folder = try Self.folder(
      config: #"{"possessions": {"file": "inventory/items.db", "photo-folder": "pictures"}}"#)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let (status, stderr) = Self.build(folder)
    #expect(status == 0, "\(stderr)")
    #expect(stderr.contains("warning: " + Self.leaves(folder)))
    #expect(!stderr.contains("id=1"))
    let photos = try FileManager.default.contentsOfDirectory(atPath: "\(folder)/site/photos")
    #expect(photos.count == 1)
    let published = try Data(contentsOf: URL(filePath: "\(folder)/site/photos/\(photos[0])"))
    #expect([UInt8](published) == Self.png)
    // Nothing was written beside the database or the photos.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: "\(folder)/inventory") == ["items.db"])
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: "\(folder)/pictures") == ["lamp.png"])
  }

  @Test("--photo-folder wins over the file's; without either, the database's folder")
  func flagWins() throws {
    let folder = try Self.folder(
      config: #"{"possessions": {"file": "inventory/items.db", "photo-folder": "pictures"}}"#)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let (status, stderr) = Self.build(folder, ["--photo-folder", "\(folder)/empty"])
    #expect(status == 0, "\(stderr)")
    #expect(
      stderr.contains(
        "warning: \(folder)/inventory/items.db: possessions id=1: photo 'lamp.png' is not in the photo "
          + "folder; not published"))
    #expect(!FileManager.default.fileExists(atPath: "\(folder)/site/photos"))

    let plain = try Self.folder(config: #"{"possessions": "inventory/items.db"}"#)
    defer { try? FileManager.default.removeItem(atPath: plain) }
    let (plainStatus, plainErrors) = Self.build(plain)
    #expect(plainStatus == 0)
    #expect(plainErrors.contains("possessions id=1: photo 'lamp.png' is not in the photo folder"))
    // The database's folder: `..` leaves it, although the file is the database itself.
    #expect(plainErrors.contains("warning: " + Self.leaves(plain)))
  }

  @Test("photo-folder anywhere but the possessions is an error naming the key; a missing one fails")
  func mistakes() throws {
    let folder = try Self.folder(
      config: #"{"todos": {"file": "inventory/items.db", "photo-folder": "pictures"}}"#)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let (status, stderr) = Self.build(folder)
    #expect(status == 64)
    #expect(
      stderr.hasPrefix(
        "error: \(folder)/taskpress.json:1:2: key 'todos': \"photo-folder\" is for \"possessions\", whose rows "
          + "have photos"))

    let missing = try Self.folder(config: #"{"possessions": "inventory/items.db"}"#)
    defer { try? FileManager.default.removeItem(atPath: missing) }
    let (missingStatus, missingErrors) = Self.build(
      missing, ["--photo-folder", "\(missing)/nowhere"])
    #expect(missingStatus == 1)
    #expect(
      missingErrors.contains(
        "error: \(missing)/inventory/items.db: the photo folder '\(missing)/nowhere' cannot be opened (No such file or "
          + "directory)"))
  }
}
