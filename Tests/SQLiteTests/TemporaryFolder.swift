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
