import Foundation
import TestFixtures
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `--photo-cache`: renditions kept outside the site, so that a new output folder (a fresh CI
/// checkout with its cache restored) decodes nothing and gets the same bytes.
@Suite struct PhotoCacheTests {
  /// The photo fixtures (`photo-cases.sql`: 9 photos decoded, others published as stored or
  /// refused) in a new folder.
  static func fixture() throws -> (site: SiteFixture, database: String) {
    let site = try SiteFixture()
    let sql = try String(
      contentsOf: FixtureFolder.fixtures.appending(path: "photo-cases.sql"), encoding: .utf8)
    return (site, try site.database("possessions.sqlite", sql))
  }

  /// Every file of `folder` but the state, by path.
  static func tree(_ folder: String) throws -> [String: Data] {
    var files: [String: Data] = [:]
    let enumerator = try #require(FileManager.default.enumerator(atPath: folder))
    while let path = enumerator.nextObject() as? String {
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder)
      if !isFolder.boolValue {
        files[path] = FileManager.default.contents(atPath: folder + "/" + path)
      }
    }
    return files
  }

  static func entries(_ cache: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasSuffix(".tpc") }
      .sorted()
  }

  /// Builds the fixture into a new output folder with `cache` (nil: none).
  static func build(
    _ fixture: (site: SiteFixture, database: String), into name: String, cache: String?,
    configure: (inout BuildOptions) -> Void = { _ in }
  ) throws -> (summary: BuildSummary, tree: [String: Data]) {
    var options = BuildOptions()
    options.possessions = fixture.database
    options.output = fixture.site.folder + "/" + name
    options.photoCache = cache
    configure(&options)
    let summary = try fixture.site.build(options, sourceDateEpoch: "1764547200")
    return (summary, try tree(options.output))
  }

  @Test(
    "a new output folder with a warm cache decodes nothing and gets the bytes of a build without one"
  )
  func warmCache() throws {
    let fixture = try Self.fixture()
    let cache = fixture.site.folder + "/cache/photos"
    let plain = try Self.build(fixture, into: "plain", cache: nil)
    let cold = try Self.build(fixture, into: "cold", cache: cache)
    #expect(plain.summary.photosDecoded == 9)
    #expect(cold.summary.photosDecoded == 9)
    #expect(try Self.entries(cache).count == 9)
    let warm = try Self.build(fixture, into: "warm", cache: cache)
    #expect(warm.summary.photosDecoded == 0)
    #expect(cold.tree == plain.tree)
    #expect(warm.tree == plain.tree)
    #expect(warm.tree.keys.contains { $0.hasPrefix("photos/") && $0.hasSuffix("w.webp") })
  }

  @Test("other settings are other entries: the photos are decoded again")
  func settingsInKey() throws {
    let fixture = try Self.fixture()
    let cache = fixture.site.folder + "/cache"
    _ = try Self.build(fixture, into: "a", cache: cache)
    let other = try Self.build(fixture, into: "b", cache: cache) { $0.keepPhotoMetadata = true }
    #expect(other.summary.photosDecoded == 9)
    #expect(try Self.entries(cache).count == 18)
    let lower = try Self.build(fixture, into: "c", cache: cache) { $0.maxPhotoPixels = 10_000 }
    // Every photo to decode has more pixels than that: none is published from the entries
    // made under the higher limit.
    #expect(lower.summary.photosDecoded == 0)
    #expect(!lower.tree.keys.contains { $0.hasSuffix("w.webp") })
  }

  @Test(
    "a damaged, cut, foreign or renamed entry is found out by its content and made again",
    arguments: ["flip", "cut", "foreign", "renamed", "empty"])
  func damagedEntry(damage: String) throws {
    let fixture = try Self.fixture()
    let cache = fixture.site.folder + "/cache"
    let plain = try Self.build(fixture, into: "plain", cache: cache)
    let names = try Self.entries(cache)
    let victim = cache + "/" + names[0]
    var bytes = [UInt8](try #require(FileManager.default.contents(atPath: victim)))
    switch damage {
    case "flip": bytes[bytes.count / 2] ^= 0x40
    case "cut": bytes.removeLast(bytes.count / 3)
    case "foreign": bytes = Array("not an entry of taskpress's, but long enough to read".utf8)
    case "renamed":
      bytes = [UInt8](try #require(FileManager.default.contents(atPath: cache + "/" + names[1])))
    default: bytes = []
    }
    try Data(bytes).write(to: URL(filePath: victim))
    let again = try Self.build(fixture, into: "again", cache: cache)
    #expect(again.summary.photosDecoded == 1)
    #expect(again.tree == plain.tree)
    // Stored again, whole: the next new folder decodes nothing.
    let third = try Self.build(fixture, into: "third", cache: cache)
    #expect(third.summary.photosDecoded == 0)
    #expect(third.tree == plain.tree)
  }

  @Test("an entry round-trips, and every single-byte change or cut of it is refused")
  func entryFormat() throws {
    let renditions = [
      PhotoCache.Rendition(nameWidth: 240, width: 240, height: 180, bytes: [1, 2, 3]),
      PhotoCache.Rendition(nameWidth: 300, width: 300, height: 225, bytes: Array(0..<200)),
    ]
    let bytes = PhotoCache.encode(renditions, key: "0123456789abcdef")
    #expect(PhotoCache.decode(bytes, key: "0123456789abcdef") == renditions)
    #expect(PhotoCache.decode(bytes, key: "0123456789abcdee") == nil)
    for index in bytes.indices {
      var changed = bytes
      changed[index] ^= 0x01
      #expect(PhotoCache.decode(changed, key: "0123456789abcdef") == nil, "byte \(index)")
      #expect(
        PhotoCache.decode(Array(bytes[..<index]), key: "0123456789abcdef") == nil, "cut \(index)")
    }
  }

  @Test("the folder is kept within its bound, the entries used least recently dropped first")
  func bound() throws {
    let folder = try SiteFixture().folder + "/cache"
    let cache = try PhotoCache(folder: folder, limit: 3000)
    let big = [
      PhotoCache.Rendition(
        nameWidth: 1, width: 1, height: 1, bytes: Array(repeating: 7, count: 900))
    ]
    for (index, key) in [
      "000000000000000a", "000000000000000b", "000000000000000c", "000000000000000d",
    ]
    .enumerated() {
      cache.store(big, key: key)
      // Used at distinct times, a minute apart (set, not waited for).
      var times = [
        timespec(tv_sec: 1_700_000_000 + 60 * index, tv_nsec: 0),
        timespec(tv_sec: 1_700_000_000 + 60 * index, tv_nsec: 0),
      ]
      #expect(utimensat(AT_FDCWD, "\(folder)/\(key).tpc", &times, 0) == 0)
    }
    // Reading the oldest marks it used now: it is kept, the next oldest goes.
    #expect(cache.read("000000000000000a") == big)
    // Another program's file in the folder is left alone.
    try Data("notes".utf8).write(to: URL(filePath: folder + "/README"))
    cache.trim()
    #expect(
      try Self.entries(folder) == [
        "000000000000000a.tpc", "000000000000000c.tpc", "000000000000000d.tpc",
      ])
    #expect(FileManager.default.fileExists(atPath: folder + "/README"))
    let small = try PhotoCache(folder: folder, limit: 1000)
    small.trim()
    #expect(try Self.entries(folder) == ["000000000000000a.tpc"])
  }

  @Test("a cache path that is a file, or cannot be made, is an error naming it; nothing is written")
  func badFolder() throws {
    let fixture = try Self.fixture()
    let file = fixture.site.folder + "/a-file"
    try Data("x".utf8).write(to: URL(filePath: file))
    for (path, message) in [
      (file, "--photo-cache '\(file)': not a folder; give the path of a folder for the cache"),
      (
        file + "/inside",
        "--photo-cache '\(file)/inside': cannot make the folder (not a directory); check the "
          + "path and its permissions"
      ),
    ] {
      #expect(throws: BuildError(message)) {
        _ = try Self.build(fixture, into: "out", cache: path)
      }
      #expect(!FileManager.default.fileExists(atPath: fixture.site.folder + "/out"))
    }
  }
}
