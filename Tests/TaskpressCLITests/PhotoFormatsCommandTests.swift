import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressCLI
@testable import TaskpressKit

/// `--photo-formats` on the command line and in `taskpress.json`.
@Suite struct PhotoFormatsCommandTests {
  @Test(
    "a bad --photo-formats is a usage error naming it and the allowed values",
    arguments: ["png", "", "avif", "avif,webp", "webp,webp", "webp,avif,png", "webp,"])
  func badFormats(value: String) throws {
    let folder = try makeTemporaryFolder()
    let result = runTaskpress([
      "build", "--possessions", folder + "/p.sqlite", "--output", folder + "/site",
      "--photo-formats", value,
    ])
    #expect(result.status == 64)
    let message =
      "error: '--photo-formats': invalid value '\(value)': expected 'webp' or 'webp,avif' "
      + "(WebP always, AVIF beside it)"
    #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: folder + "/site"))
  }

  @Test("webp and webp,avif on the command line; photo-formats in taskpress.json")
  func formats() throws {
    var options = BuildOptions()
    try Configuration.apply(
      name: "photo-formats", value: "webp,avif", source: "'--photo-formats'", to: &options)
    #expect(options.photoFormats == [.webp, .avif])
    try Configuration.apply(
      name: "photo-formats", value: "WebP", source: "'--photo-formats'", to: &options)
    #expect(options.photoFormats == [.webp])

    let folder = try makeTemporaryFolder()
    try Database.createForTesting(
      at: folder + "/p.sqlite",
      sql: PhotoCacheCommandTests.schema)
    try Data(#"{"possessions": "p.sqlite", "output": "site", "photo-formats": "webp,avif"}"#.utf8)
      .write(to: URL(filePath: folder + "/taskpress.json"))
    let built = runTaskpress(
      ["build", "--quiet", "--config", folder + "/taskpress.json"], in: folder)
    #expect(built.status == 0, "\(built.stderr)")
  }
}
