import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

/// Tables as other apps declare them: views, `WITHOUT ROWID` tables.
@Suite struct SourcesSchemaTests {
  /// `Fixtures/photos.sql` with its table renamed to `stuff`, and `possessions` made by `sql`.
  static func photos(in folder: FixtureFolder, name: String, possessions sql: String) throws
    -> String
  {
    let fixture = try String(
      contentsOf: FixtureFolder.fixtures.appending(path: "photos.sql"), encoding: .utf8)
    let renamed =
      fixture
      .replacing("CREATE TABLE possessions(", with: "CREATE TABLE stuff(")
      .replacing("INSERT INTO possessions ", with: "INSERT INTO stuff ")
    return try folder.database(name, sql: renamed + sql)
  }

  static let variants = [
    ("view", "CREATE VIEW possessions AS SELECT id, name, description, photo FROM stuff;"),
    (
      "without-rowid",
      """
      CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB)
        WITHOUT ROWID;
      INSERT INTO possessions SELECT * FROM stuff;
      """
    ),
  ]

  @Test(
    "possessions in a view or a WITHOUT ROWID table read as in a table, photos byte for byte",
    arguments: variants)
  func possessions(name: String, sql: String) throws {
    let folder = try FixtureFolder()
    let plainPath = try folder.database("photos")
    let path = try Self.photos(in: folder, name: name, possessions: sql)
    let plain = try PossessionSource(path: plainPath)
    let source = try PossessionSource(path: path)
    let (expected, expectedWarnings) = try plain.load()
    let (possessions, warnings) = try source.load()
    #expect(possessions == expected)
    #expect(possessions.compactMap(\.photo).count == 12)
    #expect(
      warnings.map(\.description)
        == expectedWarnings.map { $0.description.replacing(plainPath, with: path) })
    for photo in possessions.compactMap(\.photo) {
      let bytes = try plain.readPhoto(photo)
      #expect(try source.readPhoto(photo) == bytes, "possession \(photo.row)")
      var chunks: [Int] = []
      var streamed: [UInt8] = []
      try source.streamPhoto(photo, chunkSize: 1000) { chunk in
        chunks.append(chunk.count)
        streamed.append(contentsOf: chunk)
      }
      #expect(streamed == bytes, "possession \(photo.row)")
      #expect(chunks.allSatisfy { $0 <= 1000 })
    }
    try source.checkSnapshot()
  }

  @Test("a view or WITHOUT ROWID table without an id column names the missing column")
  func noID() throws {
    let folder = try FixtureFolder()
    let path = try Self.photos(
      in: folder, name: "view",
      possessions: "CREATE VIEW possessions AS SELECT name, description, photo FROM stuff;")
    let error = sourceError { _ = try PossessionSource(path: path) }
    #expect(
      error?.description
        == "\(path): table 'possessions' has no column 'id' (found: name, description, photo)")
  }

  @Test("to-dos and contacts read from views that rename another app's columns")
  func views() throws {
    let folder = try FixtureFolder()
    let path = try folder.database(
      "app",
      sql: """
        CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT, prio INTEGER, done INTEGER);
        INSERT INTO tasks VALUES (1, 'Renew passport', 1, 0), (2, 'Call Caitlin', 2, 1);
        CREATE VIEW todo AS SELECT id AS pk, title AS text, prio AS priority, done AS complete
          FROM tasks;
        CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT, address TEXT, phone TEXT)
          WITHOUT ROWID;
        INSERT INTO people VALUES (7, 'Ada', 'London', '555-0101');
        CREATE VIEW contacts AS SELECT * FROM people;
        """)
    let (todos, todoWarnings) = try TodoSource(path: path).load()
    #expect(
      todos == [
        Todo(pk: 1, text: "Renew passport", priority: .high, complete: false),
        Todo(pk: 2, text: "Call Caitlin", priority: .medium, complete: true),
      ])
    #expect(todoWarnings == [])
    let (contacts, _) = try ContactSource(path: path).load()
    #expect(contacts == [Contact(id: 7, name: "Ada", address: "London", phone: "555-0101")])
  }
}
