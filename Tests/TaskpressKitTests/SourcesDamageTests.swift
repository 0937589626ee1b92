import Foundation
@_spi(Testing) import SQLite
import Synchronization
import Testing

@testable import TaskpressKit

/// Damaged files as a crash or a bad disk leaves them: every reader skips a row it sees twice,
/// wherever it comes, and names the file, the table and the row.
@Suite struct SourcesDamageTests {
  /// A table of 60 rows over several 1 KB leaf pages, with the child pointer of the root's third
  /// cell aimed at the first leaf: a scan returns the first leaf's rows again after the second
  /// leaf's, out of order, and never the third leaf's. Returns the keys of the first leaf.
  static func repeatFirstLeaf(
    in folder: FixtureFolder, name: String, create: String, insert: (Int) -> String
  ) throws -> (path: String, repeated: [Int64]) {
    var sql = "PRAGMA page_size = 1024; \(create);"
    for key in 1...60 { sql += insert(key) + ";" }
    let path = try folder.database(name, sql: sql)
    var bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
    let table = create.split(separator: " ")[2].split(separator: "(")[0]
    let database = try Database(path: path)
    let rootRow = try database.prepare(
      "SELECT rootpage FROM sqlite_master WHERE name = '\(table)'"
    ).step()
    let root = Int(try #require(rootRow?.int64(at: 0)))
    let page = (root - 1) * 1024
    try #require(bytes[page] == 0x05, "the root is an interior table page")
    func cell(_ index: Int) -> Int {
      Int(bytes[page + 12 + 2 * index]) << 8 | Int(bytes[page + 13 + 2 * index])
    }
    try #require(Int(bytes[page + 3]) << 8 | Int(bytes[page + 4]) >= 3)
    let firstLeaf = cell(0)
    let firstChild = Array(bytes[(page + firstLeaf)..<(page + firstLeaf + 4)])
    let childPage = firstChild.reduce(0) { $0 << 8 | Int($1) }
    // The keys on the first leaf, read before the damage.
    var repeated: [Int64] = []
    let leaf = (childPage - 1) * 1024
    let count = Int(bytes[leaf + 3]) << 8 | Int(bytes[leaf + 4])
    let keys = try database.prepare("SELECT rowid FROM \(table) ORDER BY rowid LIMIT ?1")
    try keys.bind(Int64(count), at: 1)
    try keys.forEachRow { repeated.append($0.int64(at: 0) ?? 0) }
    try #require(!repeated.isEmpty)
    let third = cell(2)
    bytes.replaceSubrange((page + third)..<(page + third + 4), with: firstChild)
    try Data(bytes).write(to: URL(filePath: path))
    return (path, repeated)
  }

  @Test("to-dos: a pk returned again after other rows is skipped with a warning")
  func todos() throws {
    let folder = try FixtureFolder()
    let (path, repeated) = try Self.repeatFirstLeaf(
      in: folder, name: "todo",
      create: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text, priority, complete)",
      insert: { "INSERT INTO todo VALUES (\($0), '\(String(repeating: "t", count: 90))', 1, 0)" })
    let (todos, warnings) = try TodoSource(path: path).load()
    #expect(Set(todos.map(\.pk)).count == todos.count)
    #expect(todos.count < 60)
    #expect(
      warnings.map(\.description)
        == repeated.map {
          "\(path): todo pk=\($0): pk \($0) is used by more than one row; row skipped"
        })
  }

  @Test("possessions: an id returned again after other rows is skipped with a warning")
  func possessions() throws {
    let folder = try FixtureFolder()
    let (path, repeated) = try Self.repeatFirstLeaf(
      in: folder, name: "possessions",
      create: "CREATE TABLE possessions(id INTEGER PRIMARY KEY, name, description, photo)",
      insert: {
        "INSERT INTO possessions VALUES (\($0), '\(String(repeating: "p", count: 90))', '', NULL)"
      })
    let (possessions, warnings) = try PossessionSource(path: path).load()
    #expect(Set(possessions.map(\.id)).count == possessions.count)
    #expect(
      warnings.map(\.description)
        == repeated.map {
          "\(path): possessions id=\($0): id \($0) is used by more than one row; row skipped"
        })
  }

  @Test("contacts: an id returned again after other rows is skipped with a warning")
  func contacts() throws {
    let folder = try FixtureFolder()
    let (path, repeated) = try Self.repeatFirstLeaf(
      in: folder, name: "contacts",
      create: "CREATE TABLE contacts(id INTEGER PRIMARY KEY, name, address, phone)",
      insert: {
        "INSERT INTO contacts VALUES (\($0), '\(String(repeating: "c", count: 90))', 'a', 'p')"
      })
    let (contacts, warnings) = try ContactSource(path: path).load()
    #expect(Set(contacts.map(\.id)).count == contacts.count)
    #expect(
      warnings.map(\.description)
        == repeated.map {
          "\(path): contacts id=\($0): id \($0) is used by more than one row; row skipped"
        })
  }

  @Test("a build from a damaged file that repeats rows publishes each row once, with warnings")
  func build() throws {
    let folder = try FixtureFolder()
    let (path, repeated) = try Self.repeatFirstLeaf(
      in: folder, name: "todo",
      create: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text, priority, complete)",
      insert: { "INSERT INTO todo VALUES (\($0), '\(String(repeating: "t", count: 90))', 1, 0)" })
    var options = BuildOptions()
    options.todos = path
    options.output = folder.url.appending(path: "site").path
    let warnings = Warnings()
    let summary = try Build.run(options, reporter: .init(warning: { warnings.append($0) }))
    #expect(summary.warnings == repeated.count)
    #expect(
      warnings.all.first?.description
        == "\(path): todo pk=1: pk 1 is used by more than one row; row skipped")
  }
}

/// Warnings collected from a build's reporter.
final class Warnings: Sendable {
  private let list = Mutex<[BuildWarning]>([])
  func append(_ warning: BuildWarning) { list.withLock { $0.append(warning) } }
  var all: [BuildWarning] { list.withLock { $0 } }
}
