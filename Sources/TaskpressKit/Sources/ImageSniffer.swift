/// Recognizes an image format and its dimensions from the first bytes of a file.
///
/// It reads only headers: a few dozen bytes for most formats; for JPEG the segments up to the
/// first frame header, for TIFF the first directory, for HEIC/AVIF the `ispe` property. Every
/// read is bounds-checked, so any bytes at all give an answer, never a crash.
enum ImageSniffer {
  enum Result: Equatable {
    case image(ImageFormat, width: Int?, height: Int?)
    /// The bytes so far are the start of a known format; more would give the dimensions.
    case needsMoreBytes
    case unrecognized
  }

  /// Sniffs `bytes`, the start of a value. `isComplete` says no more bytes will come (the
  /// value ended, or the caller's read limit was reached), so partial headers give an image
  /// without dimensions rather than ``Result/needsMoreBytes``.
  static func sniff(_ bytes: [UInt8], isComplete: Bool) -> Result {
    let reader = ByteReader(bytes: bytes)
    let result: Result
    if reader.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
      result = png(reader)
    } else if reader.starts(with: [0xFF, 0xD8, 0xFF]) {
      result = jpeg(reader)
    } else if reader.starts(with: Array("GIF87a".utf8)) || reader.starts(with: Array("GIF89a".utf8))
    {
      result = gif(reader)
    } else if reader.starts(with: Array("RIFF".utf8)) && reader.matches(Array("WEBP".utf8), at: 8) {
      result = webp(reader)
    } else if reader.starts(with: [0x49, 0x49, 0x2A, 0x00]) {
      result = tiff(reader, littleEndian: true)
    } else if reader.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
      result = tiff(reader, littleEndian: false)
    } else if reader.starts(with: Array("BM".utf8)) {
      result = bmp(reader)
    } else if reader.matches(Array("ftyp".utf8), at: 4) {
      result = isoMedia(reader)
    } else if bytes.count < 12 && !isComplete {
      result = .needsMoreBytes
    } else {
      result = .unrecognized
    }
    if result == .needsMoreBytes && isComplete {
      return partial(reader)
    }
    return result
  }

  /// The format alone, for a header cut short.
  private static func partial(_ reader: ByteReader) -> Result {
    if reader.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
      return .image(.png, width: nil, height: nil)
    }
    if reader.starts(with: [0xFF, 0xD8, 0xFF]) { return .image(.jpeg, width: nil, height: nil) }
    if reader.starts(with: Array("GIF8".utf8)) { return .image(.gif, width: nil, height: nil) }
    if reader.starts(with: Array("RIFF".utf8)) { return .image(.webp, width: nil, height: nil) }
    if reader.starts(with: [0x49, 0x49]) || reader.starts(with: [0x4D, 0x4D]) {
      return .image(.tiff, width: nil, height: nil)
    }
    if case .image(let format, _, _) = isoMedia(reader) {
      return .image(format, width: nil, height: nil)
    }
    return .unrecognized
  }

  private static func image(_ format: ImageFormat, _ width: Int?, _ height: Int?) -> Result {
    // A zero (or negative) dimension is "unknown" (JPEG allows a height given later), not a size.
    .image(
      format, width: width.flatMap { $0 > 0 ? $0 : nil },
      height: height.flatMap { $0 > 0 ? $0 : nil })
  }

  // MARK: - Formats

  private static func png(_ reader: ByteReader) -> Result {
    guard let width = reader.uint32(at: 16, bigEndian: true),
      let height = reader.uint32(at: 20, bigEndian: true)
    else { return .needsMoreBytes }
    guard reader.matches(Array("IHDR".utf8), at: 12) else { return image(.png, nil, nil) }
    return image(.png, Int(width), Int(height))
  }

  private static func gif(_ reader: ByteReader) -> Result {
    guard let width = reader.uint16(at: 6, bigEndian: false),
      let height = reader.uint16(at: 8, bigEndian: false)
    else { return .needsMoreBytes }
    return image(.gif, Int(width), Int(height))
  }

  private static func jpeg(_ reader: ByteReader) -> Result {
    var offset = 2
    while true {
      guard let first = reader.byte(at: offset) else { return .needsMoreBytes }
      guard first == 0xFF else { return image(.jpeg, nil, nil) }
      while reader.byte(at: offset) == 0xFF { offset += 1 }
      guard let marker = reader.byte(at: offset) else { return .needsMoreBytes }
      offset += 1
      switch marker {
      case 0xD8, 0x01, 0xD0...0xD7:
        continue  // markers without a length
      case 0xD9, 0xDA:
        return image(.jpeg, nil, nil)  // end of image or start of scan before any frame
      default:
        break
      }
      guard let length = reader.uint16(at: offset, bigEndian: true) else {
        return .needsMoreBytes
      }
      guard length >= 2 else { return image(.jpeg, nil, nil) }
      let isFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
      if isFrame {
        guard let height = reader.uint16(at: offset + 3, bigEndian: true),
          let width = reader.uint16(at: offset + 5, bigEndian: true)
        else { return .needsMoreBytes }
        return image(.jpeg, Int(width), Int(height))
      }
      offset += Int(length)
    }
  }

  private static func webp(_ reader: ByteReader) -> Result {
    guard let chunk = reader.fourCC(at: 12) else { return .needsMoreBytes }
    switch chunk {
    case "VP8 ":
      guard let width = reader.uint16(at: 26, bigEndian: false),
        let height = reader.uint16(at: 28, bigEndian: false)
      else { return .needsMoreBytes }
      guard reader.matches([0x9D, 0x01, 0x2A], at: 23) else { return image(.webp, nil, nil) }
      return image(.webp, Int(width & 0x3FFF), Int(height & 0x3FFF))
    case "VP8L":
      guard let bits = reader.uint32(at: 21, bigEndian: false) else { return .needsMoreBytes }
      guard reader.byte(at: 20) == 0x2F else { return image(.webp, nil, nil) }
      return image(.webp, Int(bits & 0x3FFF) + 1, Int((bits >> 14) & 0x3FFF) + 1)
    case "VP8X":
      guard let width = reader.uint24LittleEndian(at: 24),
        let height = reader.uint24LittleEndian(at: 27)
      else { return .needsMoreBytes }
      return image(.webp, Int(width) + 1, Int(height) + 1)
    default:
      return image(.webp, nil, nil)
    }
  }

  private static func bmp(_ reader: ByteReader) -> Result {
    guard let headerSize = reader.uint32(at: 14, bigEndian: false) else {
      return reader.count < 18 ? .needsMoreBytes : .unrecognized
    }
    // "BM" alone is too weak a signature (a text may start with it): check the header size.
    switch headerSize {
    case 12:
      guard let width = reader.uint16(at: 18, bigEndian: false),
        let height = reader.uint16(at: 20, bigEndian: false)
      else { return .needsMoreBytes }
      return image(.bmp, Int(width), Int(height))
    case 40, 52, 56, 64, 108, 124:
      guard let width = reader.uint32(at: 18, bigEndian: false),
        let height = reader.uint32(at: 22, bigEndian: false)
      else { return .needsMoreBytes }
      // Negative height means rows stored top-down.
      return image(.bmp, Int(Int32(bitPattern: width)), Int(Int32(bitPattern: height).magnitude))
    default:
      return .unrecognized
    }
  }

  private static func tiff(_ reader: ByteReader, littleEndian: Bool) -> Result {
    let bigEndian = !littleEndian
    guard let directory = reader.uint32(at: 4, bigEndian: bigEndian) else {
      return .needsMoreBytes
    }
    let start = Int(directory)
    guard let entryCount = reader.uint16(at: start, bigEndian: bigEndian) else {
      return .needsMoreBytes
    }
    var width: Int?
    var height: Int?
    for index in 0..<Int(entryCount) {
      let entry = start + 2 + index * 12
      guard let tag = reader.uint16(at: entry, bigEndian: bigEndian),
        let type = reader.uint16(at: entry + 2, bigEndian: bigEndian),
        let value32 = reader.uint32(at: entry + 8, bigEndian: bigEndian),
        let value16 = reader.uint16(at: entry + 8, bigEndian: bigEndian)
      else { return .needsMoreBytes }
      let value = type == 3 ? Int(value16) : type == 4 ? Int(value32) : nil
      if tag == 256 { width = value }
      if tag == 257 { height = value }
      if width != nil && height != nil { break }
    }
    return image(.tiff, width, height)
  }

  // MARK: - HEIC and AVIF (ISO base media boxes)

  private static let avifBrands: Set<String> = ["avif", "avis"]
  private static let heicBrands: Set<String> = [
    "heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "msf1",
  ]

  private static func isoMedia(_ reader: ByteReader) -> Result {
    guard let boxSize = reader.uint32(at: 0, bigEndian: true), let major = reader.fourCC(at: 8)
    else { return .needsMoreBytes }
    var brands = [major]
    var offset = 16
    while offset + 4 <= min(Int(boxSize), 256), let brand = reader.fourCC(at: offset) {
      brands.append(brand)
      offset += 4
    }
    let format: ImageFormat
    if brands.contains(where: avifBrands.contains) {
      format = .avif
    } else if brands.contains(where: heicBrands.contains) {
      format = .heic
    } else {
      return .unrecognized  // e.g. an MP4 video
    }
    switch spatialExtent(reader, from: Int(boxSize)) {
    case .found(let width, let height): return image(format, width, height)
    case .notFound: return image(format, nil, nil)
    case .needsMoreBytes: return .needsMoreBytes
    }
  }

  private enum SizeSearch {
    case found(Int, Int)
    case notFound
    case needsMoreBytes
  }

  /// The largest `ispe` (image spatial extent) in `meta/iprp/ipco`: the primary image rather
  /// than a thumbnail or a grid tile.
  private static func spatialExtent(_ reader: ByteReader, from start: Int) -> SizeSearch {
    var offset = start
    var metaBox: Range<Int>?
    while metaBox == nil {
      guard let box = reader.boxHeader(at: offset) else { return .needsMoreBytes }
      guard let end = box.end else { return .notFound }  // runs to the end of the file
      if box.type == "meta" {
        guard end <= reader.count else { return .needsMoreBytes }
        metaBox = (box.contents + 4)..<end  // a full box: version and flags first
      }
      offset = end
    }
    guard let meta = metaBox,
      let properties = reader.child("iprp", in: meta),
      let container = reader.child("ipco", in: properties)
    else { return .notFound }
    var best: (width: Int, height: Int)?
    offset = container.lowerBound
    while let box = reader.boxHeader(at: offset), let end = box.end, end <= container.upperBound {
      if box.type == "ispe", let width = reader.uint32(at: box.contents + 4, bigEndian: true),
        let height = reader.uint32(at: box.contents + 8, bigEndian: true),
        Int(width) * Int(height) > (best.map { $0.width * $0.height } ?? -1)
      {
        best = (Int(width), Int(height))
      }
      offset = end
    }
    guard let best else { return .notFound }
    return .found(best.width, best.height)
  }
}
