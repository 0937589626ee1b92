import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

/// Photos are one file only when their bytes are the same, not merely their 64-bit hash.
@Suite struct PhotoIdentityTests {
  /// Two byte strings that differ and have the same `ContentHash`: `base` with two words of
  /// 32-byte stripe lane 0, at `offset` and `offset + 32`, chosen so that lane comes out the same.
  static func collision(_ base: [UInt8], at offset: Int) -> ([UInt8], [UInt8]) {
    let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    func round(_ lane: UInt64, _ word: UInt64) -> UInt64 {
      let mixed = lane &+ word &* prime2
      return ((mixed << 31) | (mixed >> 33)) &* prime1
    }
    func word(_ bytes: [UInt8], _ at: Int) -> UInt64 {
      (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
    }
    func setWord(_ bytes: inout [UInt8], _ at: Int, _ value: UInt64) {
      for index in 0..<8 {
        bytes[at + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))
      }
    }
    var lane: UInt64 = 0x243F_6A88_85A3_08D3
    for block in stride(from: 0, to: offset, by: 32) { lane = round(lane, word(base, block)) }
    var first = base
    var second = base
    setWord(&first, offset, 0x1111_1111_1111_1111)
    setWord(&second, offset, 0x2222_2222_2222_2222)
    let one = round(lane, word(first, offset))
    let other = round(lane, word(second, offset))
    // The inverse of prime2 modulo 2^64, by Newton's iteration.
    var inverse = prime2
    for _ in 0..<6 { inverse = inverse &* (2 &- prime2 &* inverse) }
    setWord(&first, offset + 32, 0x3333_3333_3333_3333)
    setWord(&second, offset + 32, 0x3333_3333_3333_3333 &+ (one &- other) &* inverse)
    return (first, second)
  }

  @Test("two photos whose 64-bit hashes collide are two files, each on its own page")
  func collision() throws {
    // A small JPEG of the fixtures, with an APP0 segment (which is published as stored) that
    // holds the crafted words at bytes 32 to 96.
    let fixtures = try FixtureFolder()
    var jpeg: [UInt8] = []
    try Database(path: try fixtures.database("photos")).prepare(
      "SELECT photo FROM possessions WHERE id = 2"
    ).forEachRow { row in jpeg = row.bytes(at: 0) ?? [] }
    #expect(jpeg.starts(with: [0xFF, 0xD8]))
    let app0: [UInt8] = [0xFF, 0xE0, 0x00, 2 + 90] + [UInt8](repeating: 0x41, count: 90)
    let (first, second) = Self.collision([0xFF, 0xD8] + app0 + jpeg.dropFirst(2), at: 32)
    #expect(first != second)
    #expect(ContentHash(of: first) == ContentHash(of: second))

    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }
    let database = folder.sub("possessions.sqlite")
    try Database.createForTesting(
      at: database,
      sql: """
        CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);
        INSERT INTO possessions VALUES (1, 'first', '', X'\(hex(first))');
        INSERT INTO possessions VALUES (2, 'second', '', X'\(hex(second))');
        INSERT INTO possessions VALUES (3, 'the first again', '', X'\(hex(first))');
        """)
    var options = BuildOptions()
    options.possessions = database
    options.output = folder.sub("site")
    _ = try Build.run(options, interrupt: InterruptFlag(), reporter: Build.Reporter { _ in })
    let site = Tree.contents(options.output)
    let photos = site.filter { $0.key.hasPrefix("photos/") }
    let hash = ContentHash(of: first).hex
    #expect(Set(photos.keys) == ["photos/\(hash).jpg", "photos/\(hash)-2.jpg"])
    #expect(photos["photos/\(hash).jpg"] == first)
    #expect(photos["photos/\(hash)-2.jpg"] == second)
    func page(_ id: Int) -> String {
      String(decoding: site["possessions/\(id).html"] ?? [], as: UTF8.self)
    }
    #expect(page(1).contains("../photos/\(hash).jpg"))
    #expect(page(2).contains("../photos/\(hash)-2.jpg"))
    #expect(!page(2).contains("../photos/\(hash).jpg"))
    #expect(page(3).contains("../photos/\(hash).jpg"), "the same bytes are still one file")
  }
}
