import Testing

@testable import TaskpressKit

@Suite struct OutputHashTests {
  @Test("the content hash is fixed across runs and machines")
  func knownValues() {
    // Recorded once; a change here changes every photo name of every site.
    #expect(ContentHash.hex(of: []) == "a2b68888bae30e84")
    #expect(ContentHash.hex(of: []).count == 16)
    #expect(ContentHash.hex(of: Array("abc".utf8)) == "63b33dc22e56a06f")
    #expect(ContentHash.hex(of: Array(0..<100)) == "13e051394b4d68ae")
  }

  @Test("hashing in pieces equals hashing at once", arguments: [1, 3, 7, 31, 32, 33, 1000])
  func streaming(piece: Int) {
    let bytes = (0..<1234).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 3) }
    var hasher = ContentHasher()
    var start = 0
    while start < bytes.count {
      let end = min(start + piece, bytes.count)
      hasher.update(Array(bytes[start..<end]))
      start = end
    }
    #expect(hasher.finalize() == ContentHash(of: bytes))
  }

  @Test("nearby inputs hash apart")
  func distinct() {
    var seen = Set<UInt64>()
    for length in 0..<64 {
      let zeros = [UInt8](repeating: 0, count: length)
      seen.insert(ContentHash(of: zeros).value)
      for bit in 0..<(length * 8) {
        var flipped = zeros
        flipped[bit / 8] ^= 1 << UInt8(bit % 8)
        seen.insert(ContentHash(of: flipped).value)
      }
    }
    #expect(seen.count == 64 + (0..<64).reduce(0) { $0 + $1 * 8 })
  }

  @Test("hex round-trips")
  func hexRoundTrip() throws {
    let hash = ContentHash(of: Array("photo".utf8))
    #expect(ContentHash(hex: Substring(hash.hex)) == hash)
    #expect(ContentHash(hex: "xyz") == nil)
  }

  @Test("a manifest round-trips and rejects damage")
  func manifest() throws {
    var manifest = Manifest()
    manifest.files["a b/c d.html"] = .init(hash: ContentHash(value: 42), size: 3, modified: -5)
    manifest.files["a.html"] = .init(hash: ContentHash(value: 1), size: 0, modified: 1)
    manifest.folders = ["a b"]
    let text = manifest.serialized()
    #expect(
      String(decoding: text, as: UTF8.self)
        == "taskpress-manifest 1\n000000000000002a 3 -5 a b/c d.html\n0000000000000001 0 1 a.html\n"
        + "folder a b\n")
    #expect(Manifest(parsing: text) == manifest)
    #expect(Manifest(parsing: Array("taskpress-manifest 1\nnonsense\n".utf8)) == nil)
    #expect(Manifest(parsing: Array("other\n".utf8)) == nil)
    #expect(
      Manifest(parsing: Array("taskpress-manifest 1\n0000000000000001 0 1 ../x\n".utf8)) == nil)
  }
}
