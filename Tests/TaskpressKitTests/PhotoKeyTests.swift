import Foundation
import Testing

@testable import TaskpressKit

/// Two different photos that share today's unkeyed name (`ContentHash` and byte count) are not
/// mixed up across builds: a rebuild does not keep the other photo's renditions from the site,
/// and `--photo-cache` does not hand them out (both are matched by keyed hashes of the bytes).
@Suite struct PhotoKeyTests {
  /// A 16 × 16 24-bit BMP of one colour (BMPs are always decoded into renditions), with
  /// `trailer` after its pixels (readers ignore what follows the pixels).
  static func bmp(red: UInt8, trailer: [UInt8]) -> [UInt8] {
    let width = 16
    let height = 16
    let pixels = width * 3 * height
    // The pixels end on a 32-byte block: the trailer is one block of its own.
    let padding = (32 - (54 + pixels) % 32) % 32
    let size = 54 + pixels + padding + trailer.count
    func le32(_ value: Int) -> [UInt8] {
      (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    var bytes: [UInt8] = [0x42, 0x4D] + le32(size) + [0, 0, 0, 0] + le32(54)
    bytes += le32(40) + le32(width) + le32(height) + [1, 0, 24, 0] + le32(0) + le32(pixels)
    bytes += le32(2835) + le32(2835) + le32(0) + le32(0)
    for _ in 0..<(width * height) { bytes += [0x20, 0x80, red] }
    bytes += [UInt8](repeating: 0, count: padding) + trailer
    return bytes
  }

  /// Two BMPs of other colours whose `ContentHash` and size are the same: the hash's lanes take
  /// each 32-byte block as `rotl(lane + word·p2, 31)·p1`, so a last block that makes
  /// `lane + word·p2` equal for both makes every lane, and so the hash, equal.
  static func collidingPhotos() -> (first: [UInt8], second: [UInt8]) {
    let p1: UInt64 = 0x9E37_79B1_85EB_CA87
    let p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    func lanes(_ bytes: [UInt8]) -> [UInt64] {
      var lanes: [UInt64] = [
        0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344, 0xA409_3822_299F_31D0,
        0x082E_FA98_EC4E_6C89,
      ]
      for block in stride(from: 0, to: bytes.count, by: 32) {
        for lane in 0..<4 {
          var word: UInt64 = 0
          for index in 0..<8 { word |= UInt64(bytes[block + 8 * lane + index]) << (8 * index) }
          let mixed = lanes[lane] &+ word &* p2
          lanes[lane] = ((mixed << 31) | (mixed >> 33)) &* p1
        }
      }
      return lanes
    }
    // The inverse of p2 modulo 2^64 (Newton's iteration).
    var inverse: UInt64 = 1
    for _ in 0..<6 { inverse = inverse &* (2 &- p2 &* inverse) }
    let zero = [UInt8](repeating: 0, count: 32)
    let first = bmp(red: 0xF0, trailer: zero)
    let second = bmp(red: 0x10, trailer: zero)
    let head = first.count - 32
    let (a, b) = (lanes(Array(first[..<head])), lanes(Array(second[..<head])))
    var trailer: [UInt8] = []
    for lane in 0..<4 {
      let word = (a[lane] &- b[lane]) &* inverse
      trailer += (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
    }
    return (first, Array(second[..<head]) + trailer)
  }

  static func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02X", $0) }.joined()
  }

  /// A possessions database in `site`'s folder whose one possession has `photo`.
  static func database(_ site: SiteFixture, _ name: String, photo: [UInt8]) throws -> String {
    try site.database(
      name,
      "CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);"
        + "INSERT INTO possessions VALUES (1, 'lamp', '', X'\(hex(photo))');")
  }

  /// Every file of the site in `folder`, by path.
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

  static func build(
    _ site: SiteFixture, _ database: String, into name: String, cache: String? = nil
  ) throws -> (summary: BuildSummary, tree: [String: Data]) {
    var options = BuildOptions()
    options.possessions = database
    options.output = site.folder + "/" + name
    options.photoCache = cache
    let summary = try site.build(options, sourceDateEpoch: "1764547200")
    return (summary, try tree(options.output))
  }

  static func renditions(_ tree: [String: Data]) -> [String: Data] {
    tree.filter { $0.key.hasPrefix("photos/") && $0.key.hasSuffix("w.webp") }
  }

  @Test("the two test photos differ and collide under the unkeyed content hash")
  func collision() {
    let (first, second) = Self.collidingPhotos()
    #expect(first != second)
    #expect(first.count == second.count)
    #expect(ContentHash(of: first) == ContentHash(of: second))
  }

  @Test("a rebuild with a colliding photo decodes it: the site is a cold build's")
  func rebuildDoesNotKeepTheOtherPhoto() throws {
    let site = try SiteFixture()
    let (first, second) = Self.collidingPhotos()
    let built = try Self.build(
      site, try Self.database(site, "first.sqlite", photo: first), into: "site")
    let secondDatabase = try Self.database(site, "second.sqlite", photo: second)
    let rebuilt = try Self.build(site, secondDatabase, into: "site")
    let cold = try Self.build(site, secondDatabase, into: "cold")
    #expect(!Self.renditions(built.tree).isEmpty)
    // Same names (the name is the unkeyed hash), other bytes: the second photo's own.
    #expect(
      Self.renditions(rebuilt.tree).keys.sorted() == Self.renditions(built.tree).keys.sorted())
    #expect(Self.renditions(rebuilt.tree) != Self.renditions(built.tree))
    #expect(rebuilt.summary.photosDecoded == 1)
    #expect(rebuilt.tree == cold.tree)
    // The same photo again keeps its renditions: nothing is decoded.
    let again = try Self.build(site, secondDatabase, into: "site")
    #expect(again.summary.photosDecoded == 0)
    #expect(again.tree == cold.tree)
  }

  @Test("a photo cache does not hand a colliding photo the other's renditions")
  func cacheDoesNotMixThemUp() throws {
    let site = try SiteFixture()
    let cache = site.folder + "/cache"
    let (first, second) = Self.collidingPhotos()
    let firstDatabase = try Self.database(site, "first.sqlite", photo: first)
    let secondDatabase = try Self.database(site, "second.sqlite", photo: second)
    _ = try Self.build(site, firstDatabase, into: "a", cache: cache)
    let cached = try Self.build(site, secondDatabase, into: "b", cache: cache)
    let plain = try Self.build(site, secondDatabase, into: "plain")
    #expect(cached.summary.photosDecoded == 1)
    #expect(cached.tree == plain.tree)
    // Each photo is found again under its own entry.
    let warm = try Self.build(site, secondDatabase, into: "c", cache: cache)
    #expect(warm.summary.photosDecoded == 0)
    #expect(warm.tree == plain.tree)
    let key = try #require(FileManager.default.contents(atPath: cache + "/key"))
    #expect(HashKey(bytes: Array(key)) != nil)
  }

  @Test("the record of rendition sources reads back what it wrote, and refuses damage")
  func sourcesRecord() {
    let record = RenditionSources([
      "0123456789abcdef": KeyedHash(low: 1, high: 2),
      "fedcba9876543210": KeyedHash(low: 3, high: 4),
    ])
    #expect(RenditionSources(bytes: record.bytes) == record)
    #expect(RenditionSources(bytes: Array(record.bytes.dropLast())) == nil)
    #expect(RenditionSources(bytes: Array("taskpress-renditions 1\nxyz 00\n".utf8)) == nil)
    #expect(RenditionSources(bytes: RenditionSources([:]).bytes) == RenditionSources([:]))
  }
}
