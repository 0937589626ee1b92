import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressCLI
@testable import TaskpressKit

/// `--photo-cache` and `--photo-cache-size` on the command line and in `taskpress.json`.
@Suite struct PhotoCacheCommandTests {
  static let schema =
    "CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);"
    + "INSERT INTO possessions VALUES (1, 'lamp', '', NULL);"

  @Test(
    "a bad --photo-cache-size is a usage error naming it",
    arguments: ["", "0", "1000", "12X", "-5M", "1.5G", "99999999999999999999G"])
  func badSize(value: String) throws {
    let folder = try makeTemporaryFolder()
    let result = runTaskpress([
      "build", "--possessions", folder + "/p.sqlite", "--output", folder + "/site",
      "--photo-cache", folder + "/cache", "--photo-cache-size", value,
    ])
    #expect(result.status == 64)
    let message =
      "error: '--photo-cache-size': invalid value '\(value)': expected a size of at least 1M, "
      + "in bytes or with K, M or G (1024-based), such as '500M' or '2G'"
    #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: folder + "/site"))
  }

  @Test("sizes in bytes, K, M and G")
  func sizes() {
    #expect(Configuration.byteCount("1048576") == 1 << 20)
    #expect(Configuration.byteCount("500M") == 500 << 20)
    #expect(Configuration.byteCount("2g") == 2 << 30)
    #expect(Configuration.byteCount("64K") == 64 << 10)
    #expect(Configuration.byteCount("M") == nil)
    #expect(Configuration.byteCount("+5M") == nil)
  }

  @Test("taskpress.json's photo-cache is relative to the file; a file in its place fails the build")
  func configFile() throws {
    let folder = try makeTemporaryFolder()
    try FileManager.default.createDirectory(
      atPath: folder + "/project", withIntermediateDirectories: true)
    try Database.createForTesting(at: folder + "/project/p.sqlite", sql: Self.schema)
    try Data(
      #"{"possessions": "p.sqlite", "output": "site", "photo-cache": ".cache/photos", "photo-cache-size": "200M"}"#
        .utf8
    ).write(to: URL(filePath: folder + "/project/taskpress.json"))
    let built = runTaskpress(
      ["build", "--quiet", "--config", folder + "/project/taskpress.json"], in: folder)
    #expect(built.status == 0, "\(built.stderr)")
    var isFolder: ObjCBool = false
    #expect(
      FileManager.default.fileExists(
        atPath: folder + "/project/.cache/photos", isDirectory: &isFolder) && isFolder.boolValue)

    try Data("x".utf8).write(to: URL(filePath: folder + "/a-file"))
    let failed = runTaskpress(
      [
        "build", "--possessions", folder + "/project/p.sqlite", "--output", folder + "/other",
        "--photo-cache", folder + "/a-file",
      ])
    #expect(failed.status == 1)
    #expect(
      failed.stderr.hasPrefix(
        "error: --photo-cache '\(folder)/a-file': not a folder; give the path of a folder for "
          + "the cache"), "\(failed.stderr)")
  }
}
