@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

@Suite struct ImageSnifferTests {
  /// The photo bytes of `Fixtures/photos.sql`, by id.
  private func fixturePhotos() throws -> [Int64: [UInt8]] {
    let folder = try FixtureFolder()
    let database = try Database(path: try folder.database("photos"))
    var photos: [Int64: [UInt8]] = [:]
    try database.prepare("SELECT id, photo FROM possessions").forEachRow { row in
      if let id = row.int64(at: 0), let bytes = row.bytes(at: 1) { photos[id] = bytes }
    }
    return photos
  }

  @Test("every prefix of every fixture image sniffs without a crash, and never wrongly")
  func prefixes() throws {
    for (id, bytes) in try fixturePhotos().sorted(by: { $0.key < $1.key }) {
      let whole = ImageSniffer.sniff(bytes, isComplete: true)
      for length in 0...min(bytes.count, 400) {
        let prefix = Array(bytes.prefix(length))
        let partial = ImageSniffer.sniff(prefix, isComplete: false)
        let final = ImageSniffer.sniff(prefix, isComplete: true)
        #expect(final != .needsMoreBytes, "id \(id), \(length) bytes")
        if case .image(let format, let width?, let height?) = partial {
          #expect(whole == .image(format, width: width, height: height), "id \(id), \(length)")
        }
      }
    }
  }

  @Test("random bytes after each signature: an answer, never 'more bytes' for a whole value")
  func randomBytes() {
    var generator = SplitMix(state: 7)
    // Whether the signature alone makes an image: BMP and HEIC need a valid header too.
    let signatures: [(bytes: [UInt8], isEnough: Bool)] = [
      ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], true), ([0xFF, 0xD8, 0xFF], true),
      (Array("GIF89a".utf8), true), (Array("RIFF\0\0\0\0WEBPVP8X".utf8), true),
      ([0x49, 0x49, 0x2A, 0x00], true), ([0x4D, 0x4D, 0x00, 0x2A], true),
      (Array("BM".utf8), false), (Array("\0\0\0\u{18}ftypheic".utf8), false), ([], false),
    ]
    for (signature, isEnough) in signatures {
      var images = 0
      for _ in 0..<300 {
        let tail = (0..<Int.random(in: 0..<200, using: &generator)).map { _ in
          UInt8.random(in: 0...255, using: &generator)
        }
        let bytes = signature + tail
        let whole = ImageSniffer.sniff(bytes, isComplete: true)
        #expect(whole != .needsMoreBytes, "\(bytes)")
        if case .image = whole { images += 1 }
        // Dimensions read from a prefix are those of the whole value.
        let prefix = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
        if case .image(let format, let width?, let height?) =
          ImageSniffer.sniff(prefix, isComplete: false)
        {
          #expect(whole == .image(format, width: width, height: height), "\(bytes)")
        }
      }
      if isEnough {
        #expect(images == 300, "\(signature): \(images) of 300 images")
      }
    }
  }

  @Test("a top-down BMP has a positive height")
  func topDownBMP() {
    var header: [UInt8] = Array("BM".utf8) + [UInt8](repeating: 0, count: 12)
    header += [40, 0, 0, 0]  // BITMAPINFOHEADER
    header += [0x20, 0, 0, 0]  // width 32
    header += [0xF0, 0xFF, 0xFF, 0xFF]  // height -16
    #expect(ImageSniffer.sniff(header, isComplete: true) == .image(.bmp, width: 32, height: 16))
  }

  @Test("a JPEG whose frame header lies past the bytes read asks for more")
  func jpegNeedsMore() throws {
    let jpeg = try #require(try fixturePhotos()[3])
    #expect(ImageSniffer.sniff(Array(jpeg.prefix(4096)), isComplete: false) == .needsMoreBytes)
    #expect(
      ImageSniffer.sniff(Array(jpeg.prefix(4096)), isComplete: true)
        == .image(.jpeg, width: nil, height: nil))
    #expect(ImageSniffer.sniff(jpeg, isComplete: true) == .image(.jpeg, width: 12, height: 7))
  }

  @Test("an MP4 video is not an image")
  func video() {
    let mp4 = Array("\0\0\0\u{18}ftypisom\0\0\0\0isommp42".utf8)
    #expect(ImageSniffer.sniff(mp4, isComplete: true) == .unrecognized)
  }
}

/// A deterministic generator, so a failure here reproduces on every run.
/// A seeded generator (SplitMix64), so that a failing case reproduces.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
