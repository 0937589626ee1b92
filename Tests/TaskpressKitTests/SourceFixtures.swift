import Foundation
@_spi(Testing) import SQLite
import TaskpressKit
import Testing

/// Builds fixture databases from the `.sql` files in `Fixtures/`, each in its own folder.
final class FixtureFolder {
  static let fixtures = URL(filePath: #filePath).deletingLastPathComponent()
    .appending(path: "Fixtures")

  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appending(path: "taskpress-source-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }

  /// Creates `<fixture name>.sqlite` from `Fixtures/<fixture>.sql` and returns its path.
  func database(_ fixture: String) throws -> String {
    let sql = try String(
      contentsOf: Self.fixtures.appending(path: "\(fixture).sql"), encoding: .utf8)
    return try database(fixture, sql: sql)
  }

  /// Creates `<name>.sqlite` from `sql` and returns its path.
  func database(_ name: String, sql: String) throws -> String {
    let path = url.appending(path: "\(name).sqlite").path
    try Database.createForTesting(at: path, sql: sql)
    return path
  }
}

/// The error `body` throws, or a recorded issue when it throws none.
func sourceError(_ body: () throws -> Void) -> SourceError? {
  do {
    try body()
  } catch let error as SourceError {
    return error
  } catch {
    Issue.record("unexpected error \(error)")
    return nil
  }
  Issue.record("no error thrown")
  return nil
}
