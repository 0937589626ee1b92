import CVipsShim
import Foundation
@_spi(Testing) import SQLite
import Synchronization
import TestFixtures
import Testing

@testable import TaskpressKit

/// A site built from `Fixtures/photo-cases.sql` (made by Scripts/make-photo-fixtures.py).
private struct PhotoSite {
  let site: SiteFixture
  var warnings: [String] = []
  var summary = BuildSummary()

  static func fixtureSQL() throws -> String {
    try String(
      contentsOf: FixtureFolder.fixtures.appending(path: "photo-cases.sql"), encoding: .utf8)
  }

  init(sql: String? = nil, configure: (inout BuildOptions) -> Void = { _ in }) throws {
    site = try SiteFixture()
    let database = try site.database("possessions.sqlite", try sql ?? Self.fixtureSQL())
    // Written a minute ago, explicitly: a rebuild may then stop early, whatever the clock's tick.
    try FileTimes.settle(database)
    var options = BuildOptions()
    options.possessions = database
    configure(&options)
    try build(options)
  }

  mutating func build(_ options: BuildOptions) throws {
    var options = options
    options.output = site.output
    let collected = Mutex<[String]>([])
    let reporter = Build.Reporter(warning: { warning in
      collected.withLock { $0.append("\(warning)") }
    })
    summary = try Build.run(options, interrupt: InterruptFlag(), reporter: reporter)
    warnings = collected.withLock { $0 }
  }

  /// The `src` and `srcset` files of the first `<img>` of a page.
  func image(_ page: String) throws -> (src: String, srcset: [String])? {
    let html = try site.page(page)
    guard let tag = html.range(of: #"<img [^>]*>"#, options: .regularExpression) else {
      return nil
    }
    let img = String(html[tag])
    func attribute(_ name: String) -> String? {
      guard let range = img.range(of: " \(name)=\"[^\"]*\"", options: .regularExpression) else {
        return nil
      }
      return String(img[range].dropFirst(name.count + 3).dropLast())
    }
    let src = try #require(attribute("src"))
    let srcset = (attribute("srcset") ?? "").split(separator: ",").map {
      String($0.trimmingCharacters(in: .whitespaces).split(separator: " ")[0])
    }
    return (String(src.dropFirst(3)), srcset.map { String($0.dropFirst(3)) })
  }

  func bytes(_ path: String) throws -> [UInt8] {
    [UInt8](try #require(FileManager.default.contents(atPath: site.output + "/" + path)))
  }

  func photoFiles() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: site.output + "/photos").sorted()
  }
}

private func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
  let needle = Array(needle.utf8)
  guard haystack.count >= needle.count else { return false }
  for start in 0...(haystack.count - needle.count)
  where haystack[start] == needle[0] && Array(haystack[start..<start + needle.count]) == needle {
    return true
  }
  return false
}

@Suite struct EndOfImageTests {
  @Test("the CRC-32 eight bytes at a time equals the byte-by-byte one, at every length and offset")
  func crcSameAsPlain() {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    let bytes: [UInt8] = (0..<600).map { _ in
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return UInt8(truncatingIfNeeded: state)
    }
    #expect(CRC32.checksum(Array("IEND".utf8)[...]) == 0xAE42_6082)
    for start in 0..<20 {
      for end in start...bytes.count where end < start + 40 || end == bytes.count {
        #expect(
          CRC32.checksum(bytes[start..<end]) == CRC32.checksumByteByByte(bytes[start..<end]),
          "\(start)..<\(end)")
      }
    }
  }

  @Test("the end-of-image search with memchr finds what the byte-by-byte one finds")
  func sameAsPlain() {
    var state: UInt64 = 0x1234_5678_9ABC_DEF1
    for round in 0..<300 {
      var bytes: [UInt8] = []
      for _ in 0..<(round % 97) {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        // Mostly 0xFF and 0xD9, so that markers, pairs and ends all occur.
        let pick = Int(state % 5)
        bytes.append(
          pick == 0
            ? 0xFF : pick == 1 ? 0xD9 : pick == 2 ? 0x00 : UInt8(truncatingIfNeeded: state >> 40))
      }
      for start in 0...bytes.count {
        #expect(
          LosslessStrip.endOfImage(bytes, from: start)
            == LosslessStrip.endOfImageByteByByte(bytes, from: start), "\(bytes) from \(start)")
      }
    }
  }
}

@Suite struct PhotoRenditionTests {
  /// The colour (0-3 per channel) at a fraction of the width and height of an RGB image.
  private func colour(_ image: Vips.Image, _ x: Double, _ y: Double) -> [Int] {
    let column = Int(x * Double(image.width))
    let row = Int(y * Double(image.height))
    let at = (row * image.width + column) * 3
    return (0..<3).map { Int((Double(image.bytes[at + $0]) / 85).rounded()) }
  }

  @Test("EXIF orientations 1-8 give upright renditions at every width")
  func orientations() throws {
    let built = try PhotoSite()
    for orientation in 1...8 {
      let image = try #require(try built.image("possessions/\(orientation).html"))
      // Upright as stored, and small: published as stored; else WebP at 240 and 400.
      #expect(image.srcset.count == (orientation == 1 ? 1 : 2), "orientation \(orientation)")
      for path in image.srcset {
        #expect(path.hasSuffix(orientation == 1 ? ".jpg" : ".webp"))
        let format = orientation == 1 ? TPV_JPEG : TPV_WEBP
        let pixels = try Vips.rgb(format, PhotoBytes(try built.bytes(path)))
        #expect(pixels.width > pixels.height, "orientation \(orientation): \(path)")
        // Red, green / blue, white.
        #expect(colour(pixels, 0.25, 0.25) == [3, 0, 0], "orientation \(orientation)")
        #expect(colour(pixels, 0.75, 0.25) == [0, 3, 0], "orientation \(orientation)")
        #expect(colour(pixels, 0.25, 0.75) == [0, 0, 3], "orientation \(orientation)")
        #expect(colour(pixels, 0.75, 0.75) == [3, 3, 3], "orientation \(orientation)")
      }
      let page = try built.site.page("possessions/\(orientation).html")
      #expect(page.contains(#"width="400" height="200""#), "orientation \(orientation)")
    }
  }

  @Test("the data copies give the published photo's width and height, upright (orientations 1-8)")
  func dataCopySizes() throws {
    let built = try PhotoSite()
    let json = try JSONSerialization.jsonObject(
      with: Data(try built.bytes("data/possessions.json")))
    let rows = try #require(json as? [[String: Any]])
    let csv = String(decoding: try built.bytes("data/possessions.csv"), as: UTF8.self)
    for orientation in 1...8 {
      let row = try #require(rows.first { ($0["id"] as? Int) == orientation })
      let path = try #require(row["photo"] as? String)
      let format = orientation == 1 ? TPV_JPEG : TPV_WEBP
      let pixels = try Vips.rgb(format, PhotoBytes(try built.bytes(path)))
      #expect(row["photo_width"] as? Int == pixels.width, "orientation \(orientation)")
      #expect(row["photo_height"] as? Int == pixels.height, "orientation \(orientation)")
      #expect(pixels.width == 400 && pixels.height == 200, "orientation \(orientation)")
      #expect(
        csv.contains(",\(path),\(pixels.width),\(pixels.height)\r\n")
          || csv.contains(",\(path),\(pixels.width),\(pixels.height)\n"),
        "orientation \(orientation)")
    }
  }

  @Test("renditions at the theme's widths below the photo's, and the photo's own; never larger")
  func widths() throws {
    var settings = PhotoSettings()
    settings.widths = [320, 640, 1024, 1600]
    #expect(settings.renditionWidths(forShownWidth: 4032) == [320, 640, 1024, 1600])
    #expect(settings.renditionWidths(forShownWidth: 800) == [320, 640, 800])
    #expect(settings.renditionWidths(forShownWidth: 640) == [320, 640])
    #expect(settings.renditionWidths(forShownWidth: 200) == [200])
    let built = try PhotoSite()
    // The 800 px phone photo is 10 KB: published as stored, one file for every size (the
    // renditions of a larger one: SmallPhotoTests).
    let phone = try #require(try built.image("possessions/10.html"))
    #expect(phone.srcset == [phone.src])
    #expect(phone.src.hasSuffix(".jpg") && !phone.src.contains("-"))
    #expect(try built.site.page("possessions/10.html").contains(#"width="800" height="400""#))
    let gallery = try built.site.page("possessions/index.html")
    #expect(gallery.contains(#"sizes="(max-width: 23.5rem) calc(100vw - 4rem), 13rem""#))
  }

  @Test("HEIC and TIFF photos are published as WebP that a browser shows")
  func browserFormats() throws {
    let built = try PhotoSite()
    for id in [12, 13] {
      let image = try #require(try built.image("possessions/\(id).html"))
      #expect(image.src.hasSuffix("-400w.webp"), "possession \(id): \(image.src)")
      let pixels = try Vips.rgb(TPV_WEBP, PhotoBytes(try built.bytes(image.src)))
      #expect(pixels.width == 400 && pixels.height == 200)
    }
    #expect(
      try built.photoFiles().allSatisfy {
        $0.hasSuffix(".webp") || $0.hasSuffix(".jpg") || $0.hasSuffix(".png")
      })
  }

  static let exiftool = "/usr/bin/exiftool"

  @Test(
    "exiftool finds no GPS or camera tag in any published photo, and finds them when kept",
    TestEnvironment.needs(
      "exiftool", candidates: [exiftool], install: "apt-get install libimage-exiftool-perl"))
  func exiftoolReadsNoLocation() throws {
    _ = try TestEnvironment.requireTool(
      "exiftool", candidates: [Self.exiftool], install: "apt-get install libimage-exiftool-perl")
    func tags(_ built: PhotoSite) throws -> String {
      let process = Process()
      process.executableURL = URL(filePath: Self.exiftool)
      process.arguments = ["-q", "-q", "-G", "-s", "-r", built.site.output + "/photos"]
      let pipe = Pipe()
      process.standardOutput = pipe
      try process.run()
      let output = pipe.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return String(decoding: output, as: UTF8.self)
    }
    let built = try PhotoSite()
    let published = try tags(built)
    #expect(published.contains("FileType"), "exiftool read the photos")
    for tag in ["GPSLatitude", "GPSPosition", "Make", "Model", "[EXIF]", "[XMP"] {
      #expect(!published.contains(tag), "\(tag)")
    }
    let kept = try tags(try PhotoSite { $0.keepPhotoMetadata = true })
    #expect(kept.contains("GPSLatitude") && kept.contains("Model"))
  }

  @Test("no published photo carries GPS, camera or text metadata unless --keep-photo-metadata")
  func metadata() throws {
    let built = try PhotoSite()
    let files = try built.photoFiles()
    #expect(files.count > 10)
    for file in files {
      let bytes = try built.bytes("photos/" + file)
      #expect(!contains(bytes, "FixtureCameraMaker"), "\(file)")
      #expect(!contains(bytes, "FixturePhoneModel"), "\(file)")
      #expect(!contains(bytes, "Exif\0\0"), "\(file)")
      #expect(!contains(bytes, "EXIF") && !contains(bytes, "XMP "), "\(file)")
    }
    // The small phone photo is published as stored, without its EXIF (the lossless path).
    let small = try #require(try built.image("possessions/11.html"))
    #expect(small.src.hasSuffix(".jpg"))
    let smallWebP = try #require(try built.image("possessions/15.html"))
    #expect(smallWebP.src.hasSuffix(".webp") && !smallWebP.src.contains("-"))

    let kept = try PhotoSite { $0.keepPhotoMetadata = true }
    for id in [10, 11, 15] {
      let image = try #require(try kept.image("possessions/\(id).html"))
      #expect(contains(try kept.bytes(image.src), "FixtureCameraMaker"), "possession \(id)")
    }
  }

  @Test("damaged, hostile and huge photos are warnings; their pages show the placeholder")
  func badPhotos() throws {
    let built = try PhotoSite()
    let file = built.site.folder + "/possessions.sqlite"
    let expected = [
      "\(file): possessions id=23: photo is not a recognized image (starts with 6a 75 73 74)",
      "\(file): possessions id=24: photo is not a recognized image (starts with 3c 73 76 67)",
      "\(file): possessions id=25: photo is not a recognized image (starts with 25 50 44 46)",
      "\(file): possessions id=20: photo not published: JPEG: premature end of file; the pages "
        + "show no photo",
      "\(file): possessions id=21: photo not published: JPEG: damaged marker at byte 609; the "
        + "pages show no photo",
      "\(file): possessions id=22: photo not published: PNG: premature end of file; the pages "
        + "show no photo",
      "\(file): possessions id=26: photo not published: it has 50000 × 50000 pixels, more than "
        + "--max-photo-pixels (200000000) allows; the pages show no photo",
      "\(file): possessions id=27: photo not published: JPEG: premature end of file; the pages "
        + "show no photo",
      "\(file): possessions id=28: photo not published: PNG: IDAT chunk has a bad checksum; the "
        + "pages show no photo",
    ]
    #expect(built.warnings == expected)
    #expect(built.summary.warnings == expected.count)
    for id in [20, 21, 22, 23, 24, 25, 26, 27, 28] {
      let page = try built.site.page("possessions/\(id).html")
      #expect(!page.contains("<img"), "possession \(id)")
      #expect(page.contains(#"<p class="no-photo-note">"#), "possession \(id)")
    }
    // Every other possession has its photo.
    #expect(built.summary.photos == 14)
    // The gallery's two pages (18 a page).
    let gallery =
      try built.site.page("possessions/index.html") + built.site.page("possessions/page/2.html")
    #expect(gallery.components(separatedBy: #"<span class="no-photo""#).count - 1 == 9)

    // A higher pixel limit lets the bomb's header through, and libvips then fails on its data
    // without using gigabytes.
    let lifted = try PhotoSite { $0.maxPhotoPixels = 10_000 }
    #expect(lifted.warnings.contains { $0.contains("id=1: photo not published: it has 400 × 200") })
  }

  @Test("--strict makes a photo warning fail the build, and the site stays as it was")
  func strict() throws {
    var built = try PhotoSite()
    let before = try built.photoFiles()
    let page = try built.site.page("possessions/1.html")
    var options = BuildOptions()
    options.possessions = built.site.folder + "/possessions.sqlite"
    // The sources' own warnings (text, SVG, PDF) come first; without them the photos' remain.
    let path = try #require(options.possessions)
    try Database.openWritableForTesting(at: path).execute(
      "DELETE FROM possessions WHERE id IN (23, 24, 25); "
        + "UPDATE possessions SET name = 'renamed' WHERE id = 1")
    options.strict = true
    #expect(throws: BuildError("6 warnings and --strict is set; the site was not changed")) {
      try built.build(options)
    }
    #expect(try built.photoFiles() == before)
    #expect(try built.site.page("possessions/1.html") == page)
  }

  @Test("a rebuild that reads nothing reports the photos' warnings again; --strict still fails")
  func unchangedRebuildKeepsPhotoWarnings() throws {
    var built = try PhotoSite()
    let first = built.warnings
    #expect(first.contains { $0.contains("id=26: photo not published: it has 50000 × 50000") })
    var options = BuildOptions()
    options.possessions = built.site.folder + "/possessions.sqlite"
    try built.build(options)
    #expect(!built.summary.sourcesRead)
    #expect(built.warnings == first)
    options.strict = true
    #expect(
      throws: BuildError("\(first.count) warnings and --strict is set; the site was not changed")
    ) {
      try built.build(options)
    }
  }

  @Test("a rebuild decodes no photo whose renditions are in the site")
  func rebuildDecodesNothing() throws {
    var built = try PhotoSite()
    #expect(built.summary.photosDecoded == 9)
    let files = try built.photoFiles()
    var options = BuildOptions()
    options.possessions = built.site.folder + "/possessions.sqlite"
    let path = try #require(options.possessions)
    try Database.openWritableForTesting(at: path).execute(
      "UPDATE possessions SET name = 'renamed' WHERE id = 1")
    try built.build(options)
    // The photos that fail (ids 20 and 21) fail on their structure, before any decode.
    #expect(built.summary.photosDecoded == 0)
    #expect(try built.photoFiles() == files)
    #expect(try built.site.page("possessions/1.html").contains("renamed"))
    // A rendition deleted from the site is made again, and only that one.
    let image = try #require(try built.image("possessions/2.html"))
    try FileManager.default.removeItem(atPath: built.site.output + "/" + image.src)
    try Database.openWritableForTesting(at: path).execute(
      "UPDATE possessions SET name = 'again' WHERE id = 1")
    try built.build(options)
    #expect(built.summary.photosDecoded == 1)
    #expect(try built.photoFiles() == files)
  }
}

/// Photos made in the test: a PNG of `width` × `height` (smooth, or noisy enough that no
/// encoder makes it small), and a JPEG of it from libvips.
private enum MadePhoto {
  static func png(width: Int, height: Int, noise: Bool) -> [UInt8] {
    var seed: UInt32 = 12_345
    var raw: [UInt8] = []
    raw.reserveCapacity((width * 3 + 1) * height)
    for y in 0..<height {
      raw.append(0)
      for x in 0..<width {
        if noise {
          for _ in 0..<3 {
            seed = seed &* 1_103_515_245 &+ 12_345
            raw.append(UInt8(truncatingIfNeeded: seed >> 16))
          }
        } else {
          raw += [UInt8(x * 255 / width), UInt8(y * 255 / height), 128]
        }
      }
    }
    // zlib with stored blocks.
    var zlib: [UInt8] = [0x78, 0x01]
    var offset = 0
    while offset < raw.count {
      let count = min(65_535, raw.count - offset)
      zlib.append(offset + count == raw.count ? 1 : 0)
      zlib += [
        UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF),
      ]
      zlib += raw[offset..<offset + count]
      offset += count
    }
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in raw {
      a = (a + UInt32(byte)) % 65_521
      b = (b + a) % 65_521
    }
    zlib += bigEndian(b << 16 | a)
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
      let body = Array(type.utf8) + data
      return bigEndian(UInt32(data.count)) + body + bigEndian(CRC32.checksum(body[...]))
    }
    let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0]
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
      + chunk("IDAT", zlib) + chunk("IEND", [])
  }

  static func jpeg(width: Int, height: Int, noise: Bool) throws -> [UInt8] {
    let png = png(width: width, height: height, noise: noise)
    let images = try Vips.renditions(
      TPV_PNG, PhotoBytes(png), widths: [width], quality: 90, jpeg: true, keepMetadata: false)
    return try #require(images.first).bytes
  }

  /// An uncompressed RGB TIFF (little-endian) of `width` × `height`, in strips of
  /// `rowsPerStrip` rows, its pixels a pattern that varies everywhere.
  static func tiff(width: Int, height: Int, rowsPerStrip: Int) -> [UInt8] {
    func le(_ value: Int, _ count: Int) -> [UInt8] {
      (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    let strips = (height + rowsPerStrip - 1) / rowsPerStrip
    let entries = 9
    let ifdSize = 2 + entries * 12 + 4
    let bitsOffset = 8 + ifdSize
    let offsetsOffset = bitsOffset + 6
    let countsOffset = offsetsOffset + 4 * strips
    let pixelsOffset = countsOffset + 4 * strips
    var bytes: [UInt8] = Array("II".utf8) + le(42, 2) + le(8, 4) + le(entries, 2)
    func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) {
      bytes += le(tag, 2) + le(type, 2) + le(count, 4) + le(value, 4)
    }
    let short = 3
    let long = 4
    entry(256, long, 1, width)
    entry(257, long, 1, height)
    entry(258, short, 3, bitsOffset)
    entry(259, short, 1, 1)
    entry(262, short, 1, 2)
    entry(273, long, strips, offsetsOffset)
    entry(277, short, 1, 3)
    entry(278, long, 1, rowsPerStrip)
    entry(279, long, strips, countsOffset)
    bytes += le(0, 4) + le(8, 2) + le(8, 2) + le(8, 2)
    var counts: [Int] = []
    for strip in 0..<strips {
      let rows = min(rowsPerStrip, height - strip * rowsPerStrip)
      counts.append(rows * width * 3)
    }
    var offset = pixelsOffset
    for count in counts {
      bytes += le(offset, 4)
      offset += count
    }
    for count in counts { bytes += le(count, 4) }
    bytes.reserveCapacity(offset)
    for y in 0..<height {
      for x in 0..<width {
        bytes += [UInt8(truncatingIfNeeded: x * 7 + y), UInt8(truncatingIfNeeded: y * 5 ^ x), 128]
      }
    }
    return bytes
  }

  static func bigEndian(_ value: UInt32) -> [UInt8] {
    [
      UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF),
      UInt8(value & 0xFF),
    ]
  }

  /// An APP1 EXIF segment with a GPS IFD whose processing method is `FixtureGPSPosition`.
  static let gpsExif: [UInt8] = {
    var tiff: [UInt8] = Array("MM".utf8) + [0x00, 0x2A, 0, 0, 0, 8]
    // IFD0 at 8: one entry, GPSInfo (0x8825, LONG) pointing at 26.
    tiff += [0, 1, 0x88, 0x25, 0, 4, 0, 0, 0, 1, 0, 0, 0, 26, 0, 0, 0, 0]
    // GPS IFD at 26: GPSLatitudeRef "N", GPSProcessingMethod at 56.
    tiff += [0, 2, 0, 1, 0, 2, 0, 0, 0, 2, 0x4E, 0, 0, 0]
    let method = Array("ASCII\0\0\0FixtureGPSPosition".utf8)
    tiff += [0, 0x1B, 0, 7] + bigEndian(UInt32(method.count)) + [0, 0, 0, 56, 0, 0, 0, 0]
    tiff += method
    let body = Array("Exif\0\0".utf8) + tiff
    let length = body.count + 2
    return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
  }()

  /// A 2 × 1 GIF of two frames that loops (NETSCAPE2.0), with `comment` as a comment
  /// extension and an XMP application extension when asked.
  static func gif(comment: Bool) -> [UInt8] {
    var bytes = Array("GIF89a".utf8) + [2, 0, 1, 0, 0x80, 0, 0] + [255, 0, 0, 0, 0, 255]
    bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
    if comment {
      bytes += [0x21, 0xFE, 21] + Array("FixtureGIFCommentText".utf8) + [0]
      bytes += [0x21, 0xFF, 11] + Array("XMP DataXMP".utf8) + [7] + Array("Fixture".utf8) + [0]
    }
    for _ in 0..<2 {
      bytes += [0x21, 0xF9, 4, 0, 10, 0, 0, 0]
      bytes += [0x2C, 0, 0, 0, 0, 2, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]
    }
    return bytes + [0x3B]
  }
}

private func hex(_ bytes: [UInt8]) -> String {
  bytes.map { String(format: "%02X", $0) }.joined()
}

@Suite struct SmallPhotoTests {
  private func site(_ photos: [(Int, [UInt8])], keepMetadata: Bool = false, jobs: Int? = nil)
    throws -> PhotoSite
  {
    let rows = photos.map { "(\($0.0), 'photo \($0.0)', '', X'\(hex($0.1))')" }
    return try PhotoSite(
      sql: "CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, "
        + "photo BLOB); INSERT INTO possessions VALUES \(rows.joined(separator: ", "));"
    ) {
      $0.keepPhotoMetadata = keepMetadata
      $0.jobs = jobs
    }
  }

  /// A BMP of `width` × `height`: green above the middle row; below it red on the left and
  /// blue on the right. `bits` 24 or 32; `topDown` stores the rows top first.
  private static func bmp(width: Int, height: Int, bits: Int, topDown: Bool) -> [UInt8] {
    func le(_ value: Int, _ count: Int) -> [UInt8] {
      (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    let stride = (width * bits / 8 + 3) / 4 * 4
    var pixels: [UInt8] = []
    for stored in 0..<height {
      let row = topDown ? stored : height - 1 - stored
      var line: [UInt8] = []
      for column in 0..<width {
        // BGR(A)
        let bgr: [UInt8] =
          row < height / 2 ? [0, 255, 0] : column < width / 2 ? [0, 0, 255] : [255, 0, 0]
        line += bgr + (bits == 32 ? [255] : [])
      }
      pixels += line + [UInt8](repeating: 0, count: stride - line.count)
    }
    let info =
      le(40, 4) + le(width, 4) + le(topDown ? -height : height, 4) + le(1, 2) + le(bits, 2)
      + le(0, 4) + le(pixels.count, 4) + le(2835, 4) + le(2835, 4) + le(0, 4) + le(0, 4)
    return [0x42, 0x4D] + le(54 + pixels.count, 4) + le(0, 4) + le(54, 4) + info + pixels
  }

  @Test("a BMP gets WebP renditions, upright, in its colours; a damaged one is a warning")
  func bmpRenditions() throws {
    let bottomUp = Self.bmp(width: 700, height: 400, bits: 24, topDown: false)
    let topDown = Self.bmp(width: 300, height: 200, bits: 32, topDown: true)
    var sixteen = Self.bmp(width: 8, height: 4, bits: 24, topDown: false)
    sixteen[28] = 16
    let built = try site([
      (1, bottomUp), (2, topDown), (3, Array(bottomUp.dropLast(700))), (4, sixteen),
    ])
    let file = "\(built.site.folder)/possessions.sqlite: possessions id="
    #expect(
      built.warnings == [
        file + "3: photo not published: BMP: premature end of file; the pages show no photo",
        file + "4: photo not published: BMP: only uncompressed 24- and 32-bit BMPs can be "
          + "published (this one has 16 bits per pixel, compression 0); store the photo as JPEG "
          + "or PNG; the pages show no photo",
      ])
    #expect(built.summary.photosDecoded == 2)
    for (id, width, height) in [(1, 700, 400), (2, 300, 200)] {
      let image = try #require(try built.image("possessions/\(id).html"))
      #expect(image.src.hasSuffix("-\(width)w.webp"), "\(image.src)")
      let pixels = try Vips.rgb(TPV_WEBP, PhotoBytes(try built.bytes(image.src)))
      #expect(pixels.width == width && pixels.height == height)
      func at(_ x: Int, _ y: Int) -> [UInt8] {
        let start = (y * pixels.width + x) * 3
        return Array(pixels.bytes[start..<start + 3])
      }
      // RGB: green at the top, red bottom left, blue bottom right (lossy: roughly).
      for (point, channel) in [
        ((width / 2, height / 8), 1), ((width / 8, height * 7 / 8), 0),
        ((width * 7 / 8, height * 7 / 8), 2),
      ] {
        let rgb = at(point.0, point.1)
        #expect(
          rgb[channel] > 200
            && rgb.enumerated().allSatisfy { $0.offset == channel || $0.element < 60 },
          "possession \(id) at \(point): \(rgb)")
      }
    }
    for id in [3, 4] {
      #expect(!(try built.site.page("possessions/\(id).html").contains("<img")))
    }
  }

  @Test("photos failing in libvips on several threads each give their own decoder's reason")
  func reasonsOnThreads() throws {
    // Wide and large, so libvips decodes them; their data damaged past the header.
    let jpeg = try MadePhoto.jpeg(width: 800, height: 600, noise: true)
    let png = MadePhoto.png(width: 800, height: 600, noise: true)
    var photos: [(Int, [UInt8])] = []
    for index in 0..<16 {
      var damaged = index.isMultiple(of: 2) ? jpeg : png
      let start = damaged.count / 2 + index * 16
      for at in start..<start + 2000 { damaged[at] = UInt8(truncatingIfNeeded: at &* 7) }
      photos.append((index + 1, damaged))
    }
    let built = try site(photos, jobs: 4)
    #expect(built.warnings.count == 16)
    for warning in built.warnings {
      let id = try #require(Int(warning.split(separator: "id=")[1].prefix { $0.isNumber }))
      let reason = warning.lowercased()
      if id.isMultiple(of: 2) {
        #expect(reason.contains("png") && !reason.contains("jpeg"), "\(warning)")
      } else {
        #expect(reason.contains("jpeg") && !reason.contains("png"), "\(warning)")
      }
    }
  }

  @Test("a JPEG of at most 64 KB wider than 640 px is published as stored without its EXIF")
  func smallWideJPEG() throws {
    let plain = try MadePhoto.jpeg(width: 500, height: 400, noise: false)
    #expect(!plain[2..<4].elementsEqual([0xFF, 0xE1]))
    let stored = Array(plain[0..<2]) + MadePhoto.gpsExif + Array(plain[2...])
    #expect(stored.count <= 64 * 1024)
    #expect(contains(stored, "FixtureGPSPosition"))
    let built = try site([(1, stored)])
    #expect(built.warnings == [])
    #expect(built.summary.photosDecoded == 0)
    let image = try #require(try built.image("possessions/1.html"))
    #expect(image.srcset == [image.src])
    #expect(image.src.hasSuffix(".jpg"))
    let published = try built.bytes(image.src)
    #expect(published == plain)
    #expect(!contains(published, "FixtureGPSPosition"))
    #expect(try built.site.page("possessions/1.html").contains(#"width="500" height="400""#))
    #expect(try built.photoFiles().count == 1)

    let kept = try site([(1, stored)], keepMetadata: true)
    let keptImage = try #require(try kept.image("possessions/1.html"))
    #expect(try kept.bytes(keptImage.src) == stored)
    #expect(kept.summary.photosDecoded == 0)
  }

  @Test("a GIF is published as stored without comments and XMP, its frames and looping kept")
  func gif() throws {
    let stored = MadePhoto.gif(comment: true)
    let built = try site([(1, stored)])
    #expect(built.warnings == [])
    #expect(built.summary.photosDecoded == 0)
    let image = try #require(try built.image("possessions/1.html"))
    #expect(image.src.hasSuffix(".gif") && image.srcset == [image.src])
    let published = try built.bytes(image.src)
    #expect(published == MadePhoto.gif(comment: false))
    #expect(!contains(published, "FixtureGIFCommentText") && !contains(published, "XMP"))
    #expect(contains(published, "NETSCAPE2.0"))
    #expect(try built.site.page("possessions/1.html").contains(#"width="2" height="1""#))
    let frames = try Vips.rgb(TPV_GIF, PhotoBytes(published))
    #expect(frames.width == 2 && frames.height == 1)

    let kept = try site([(1, stored)], keepMetadata: true)
    let keptImage = try #require(try kept.image("possessions/1.html"))
    #expect(try kept.bytes(keptImage.src) == stored)
  }

  @Test("a damaged GIF is a warning and its page shows the placeholder")
  func damagedGIF() throws {
    let gif = MadePhoto.gif(comment: true)
    let built = try site([(1, Array(gif.dropLast(8)))])
    #expect(
      built.warnings == [
        "\(built.site.folder)/possessions.sqlite: possessions id=1: photo not published: GIF: "
          + "premature end of file; the pages show no photo"
      ])
    #expect(!(try built.site.page("possessions/1.html").contains("<img")))
    #expect(built.summary.photosDecoded == 0)
  }

  @Test("a photo of more than 64 KB wider than 640 px is still decoded into renditions")
  func largeJPEG() throws {
    let large = try MadePhoto.jpeg(width: 800, height: 600, noise: true)
    #expect(large.count > 64 * 1024)
    let built = try site([(1, large)])
    #expect(built.warnings == [])
    #expect(built.summary.photosDecoded == 1)
    let image = try #require(try built.image("possessions/1.html"))
    #expect(
      image.srcset.map { $0.split(separator: "-").last ?? "" } == [
        "240w.webp", "640w.webp", "800w.webp",
      ])
  }
  @Test(
    "a photo over 1 MB, streamed a window at a time, gets the renditions of it read whole",
    arguments: ["jpeg", "tiff"])
  func streamedPhoto(format: String) throws {
    // A TIFF of strips is read strip by strip, seeking, and takes a short read for damage.
    let (large, loader) =
      format == "jpeg"
      ? (try MadePhoto.jpeg(width: 1800, height: 1350, noise: true), TPV_JPEG)
      : (MadePhoto.tiff(width: 800, height: 600, rowsPerStrip: 7), TPV_TIFF)
    #expect(large.count > PhotoPublisher.bufferLimit + 64 * 1024)
    let built = try site([(1, large)], jobs: 2)
    #expect(built.warnings == [])
    #expect(built.summary.photosDecoded == 1)
    let image = try #require(try built.image("possessions/1.html"))
    let header = try Vips.header(loader, PhotoBytes(large))
    let widths = PhotoSettings().renditionWidths(forShownWidth: header.shownWidth)
    let whole = try Vips.renditions(
      loader, PhotoBytes(large), widths: widths, quality: 80, jpeg: false, keepMetadata: false)
    let expected = whole.map { image -> [UInt8] in
      guard case .stripped(let stripped) = LosslessStrip.webp(image.bytes) else { return [] }
      return stripped
    }
    #expect(image.srcset.count == widths.count)
    #expect(try image.srcset.map { try built.bytes($0) } == expected)
  }
}

/// `--photo-formats webp,avif`: an AVIF beside each WebP rendition, in a `<picture>`.
@Suite struct PhotoAVIFTests {
  /// Runs `tool` with `arguments`; its exit status and standard output.
  private static func run(_ tool: String, _ arguments: [String]) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(filePath: tool)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
  }

  /// The `srcset` files of the `<source type="image/avif">` of a page, without `../`.
  private static func avifSources(_ html: String) -> [String] {
    guard
      let tag = html.range(
        of: #"<source type="image/avif" srcset="[^"]*""#, options: .regularExpression)
    else { return [] }
    let srcset = html[tag].split(separator: "\"")[3]
    return srcset.split(separator: ",").map {
      String($0.trimmingCharacters(in: .whitespaces).split(separator: " ")[0].dropFirst(3))
    }
  }

  @Test("the record of photos keeps each rendition's AVIF twin")
  func record() throws {
    let record = PhotoRecord(
      key: "k", vipsVersion: "8.14.1",
      photos: [
        3: PublishedPhoto(
          renditions: [
            .init(path: "photos/aaaaaaaaaaaaaaaa-240w.webp", width: 240, height: 180),
            .init(path: "photos/aaaaaaaaaaaaaaaa-640w.webp", width: 640, height: 480),
          ],
          avif: ["photos/aaaaaaaaaaaaaaaa-240w.avif", "photos/aaaaaaaaaaaaaaaa-640w.avif"]),
        4: PublishedPhoto(renditions: [.init(path: "photos/b.jpg", width: 20, height: 10)]),
      ], warnings: [])
    #expect(PhotoRecord(bytes: record.bytes) == record)
    #expect(record.paths.filter { $0.hasSuffix(".avif") }.count == 2)
  }

  @Test("libvips here encodes AVIF (heifsave with AV1)")
  func available() {
    #expect(Vips.avifUnavailable == nil)
  }

  @Test("AVIF asked for where it cannot be encoded: WebP alone and one warning naming the flag")
  func unavailable() throws {
    var options = BuildOptions()
    options.photoFormats = [.webp, .avif]
    var settings = try PhotoSettings(theme: Theme.load(overrides: nil), options: options)
    #expect(settings.avif == PhotoSettings.avifDefaults)
    var asked = 0
    let none = settings.withoutUnavailableAVIF {
      asked += 1
      return nil
    }
    #expect(none.isEmpty)
    #expect(settings.avif != nil)
    let warnings = settings.withoutUnavailableAVIF { "no AV1 encoder" }
    #expect(settings.avif == nil && asked == 1)
    #expect(warnings.count == 1)
    #expect(
      warnings.first?.description.hasPrefix(
        "--photo-formats: AVIF cannot be encoded here (no AV1 encoder); photos are published as "
          + "WebP alone") == true)
    // WebP alone asks nothing (libvips is not loaded for it).
    var webp = PhotoSettings()
    let asks = webp.withoutUnavailableAVIF {
      Issue.record("asked")
      return "x"
    }
    #expect(asks.isEmpty)
  }

  @Test("each WebP rendition gets an AVIF twin that decodes to its size, in a <picture>")
  func twins() throws {
    let plain = try PhotoSite()
    let built = try PhotoSite { $0.photoFormats = [.webp, .avif] }
    // The same warnings (the damaged photos), none about AVIF.
    #expect(built.warnings.count == plain.warnings.count)
    #expect(!built.warnings.contains { $0.contains("AVIF") })
    let files = try built.photoFiles()
    let webp = files.filter { $0.hasSuffix("w.webp") }
    let avif = files.filter { $0.hasSuffix(".avif") }
    #expect(!webp.isEmpty && avif.count == webp.count)
    #expect(try plain.photoFiles().allSatisfy { !$0.hasSuffix(".avif") })
    // The WebP files are those of a WebP-alone build (another key, the same bytes).
    #expect(
      Set(try webp.map { try built.bytes("photos/" + $0) })
        == Set(
          try plain.photoFiles().filter { $0.hasSuffix("w.webp") }.map {
            try plain.bytes("photos/" + $0)
          }))
    for file in avif {
      let twin = String(file.dropLast(5)) + ".webp"
      #expect(webp.contains(twin), "\(file)")
      let bytes = try built.bytes("photos/" + file)
      #expect(Array(bytes[4..<12]) == Array("ftypavif".utf8), "\(file)")
      // Decoded by libheif through the vips command, apart from taskpress.
      let png = built.site.folder + "/" + file + ".png"
      let vips = try TestEnvironment.requireTool(
        "vips", candidates: ["/usr/bin/vips"], install: "apt-get install libvips-tools")
      let (status, _) = try Self.run(
        vips, ["copy", built.site.output + "/photos/" + file, png])
      #expect(status == 0, "\(file)")
      let decoded = [UInt8](try #require(FileManager.default.contents(atPath: png)))
      guard
        case .image(.png, let width?, let height?) = ImageSniffer.sniff(decoded, isComplete: true),
        case .image(_, let webpWidth?, let webpHeight?) = ImageSniffer.sniff(
          try built.bytes("photos/" + twin), isComplete: true)
      else {
        Issue.record("\(file) did not decode")
        continue
      }
      #expect(width == webpWidth && height == webpHeight, "\(file)")
    }
    // The page offers the AVIF files first, the WebP ones after, the <img> as before.
    let html = try built.site.page("possessions/2.html")
    let image = try #require(try built.image("possessions/2.html"))
    let sources = Self.avifSources(html)
    #expect(sources == image.srcset.map { String($0.dropLast(5)) + ".avif" })
    #expect(html.contains("<picture><source type=\"image/avif\""))
    #expect(html.contains("</picture>"))
    let gallery = try built.site.page("possessions/index.html")
    #expect(gallery.contains("<source type=\"image/avif\""))
    // WebP alone: no <picture>, the pages as they were.
    #expect(!(try plain.site.page("possessions/2.html")).contains("<picture>"))
  }

  @Test("exiftool finds no GPS, camera, EXIF or XMP tag in the AVIF files")
  func avifMetadata() throws {
    let exiftool = try TestEnvironment.requireTool(
      "exiftool", candidates: [PhotoRenditionTests.exiftool],
      install: "apt-get install libimage-exiftool-perl")
    let built = try PhotoSite { $0.photoFormats = [.webp, .avif] }
    let avif = try built.photoFiles().filter { $0.hasSuffix(".avif") }
    #expect(!avif.isEmpty)
    let (_, tags) = try Self.run(
      exiftool,
      ["-q", "-q", "-G", "-s"] + avif.map { built.site.output + "/photos/" + $0 })
    #expect(tags.contains("FileType"), "exiftool read the photos")
    for tag in ["GPSLatitude", "GPSPosition", "Make", "Model", "[EXIF]", "[XMP"] {
      #expect(!tags.contains(tag), "\(tag)")
    }
  }

  @Test("a rebuild keeps the AVIF files; turning AVIF off decodes again and drops them")
  func rebuilds() throws {
    var built = try PhotoSite { $0.photoFormats = [.webp, .avif] }
    let decoded = built.summary.photosDecoded
    #expect(decoded > 0)
    let files = try built.photoFiles()
    var options = BuildOptions()
    options.possessions = built.site.folder + "/possessions.sqlite"
    options.photoFormats = [.webp, .avif]
    let path = try #require(options.possessions)
    try Database.openWritableForTesting(at: path).execute(
      "UPDATE possessions SET name = 'renamed' WHERE id = 1")
    try built.build(options)
    #expect(built.summary.photosDecoded == 0)
    #expect(try built.photoFiles() == files)
    // An AVIF file deleted from the site: its photo is made again.
    let avif = try #require(files.first { $0.hasSuffix(".avif") })
    try FileManager.default.removeItem(atPath: built.site.output + "/photos/" + avif)
    try Database.openWritableForTesting(at: path).execute(
      "UPDATE possessions SET name = 'again' WHERE id = 1")
    try built.build(options)
    #expect(built.summary.photosDecoded == 1)
    #expect(try built.photoFiles() == files)
    // WebP alone: every photo with renditions made again (another key), no AVIF left.
    options.photoFormats = [.webp]
    try built.build(options)
    #expect(built.summary.photosDecoded == decoded)
    #expect(try built.photoFiles().allSatisfy { !$0.hasSuffix(".avif") })
    #expect(!(try built.site.page("possessions/2.html")).contains("<picture>"))
  }

  @Test("a cold build with a warm --photo-cache decodes nothing and writes the same AVIF bytes")
  func cache() throws {
    let folder = try SiteFixture().folder
    let first = try PhotoSite {
      $0.photoFormats = [.webp, .avif]
      $0.photoCache = folder + "/cache"
    }
    let second = try PhotoSite {
      $0.photoFormats = [.webp, .avif]
      $0.photoCache = folder + "/cache"
    }
    #expect(first.summary.photosDecoded > 0)
    #expect(second.summary.photosDecoded == 0)
    let files = try first.photoFiles()
    #expect(try second.photoFiles() == files)
    for file in files where file.hasSuffix(".avif") {
      #expect(try first.bytes("photos/" + file) == second.bytes("photos/" + file), "\(file)")
    }
    #expect(
      Self.avifSources(try first.site.page("possessions/2.html"))
        == Self.avifSources(try second.site.page("possessions/2.html")))
  }
}
