import Foundation
import Testing

/// A fresh folder for one test, removed when released.
final class TemporaryFolder {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appending(path: "taskpress-sqlite-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }

  func path(_ name: String) -> String {
    url.appending(path: name).path
  }

  func write(_ bytes: [UInt8], to name: String) throws -> String {
    let path = path(name)
    try Data(bytes).write(to: URL(filePath: path))
    return path
  }

  func contents() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
  }
}

/// The sample databases kept in `shared/corpora/` beside the repository (or beside a folder
/// that holds the repository, as in a checkout with several work trees).
enum SampleDatabases {
  static let folder: URL? = {
    var folder = URL(filePath: #filePath)
      .deletingLastPathComponent()  // SQLiteTests
      .deletingLastPathComponent()  // Tests
      .deletingLastPathComponent()  // the repository
    while folder.path != "/" {
      folder = folder.deletingLastPathComponent()
      let candidate = folder.appending(path: "shared/corpora/sample-dbs/icodeblog-todo")
      if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
    }
    return nil
  }()

  /// The path of sample database `name`; records a clear failure when the corpus is missing.
  static func path(_ name: String) throws -> String {
    let folder = try #require(
      folder, "shared/corpora/sample-dbs/ was not found beside the repository or its parents")
    return folder.appending(path: name).path
  }
}
