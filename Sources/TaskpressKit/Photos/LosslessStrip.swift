#if canImport(Glibc)
  import Glibc
#endif

/// Metadata removed from a JPEG, PNG, WebP or GIF without decoding it: the file published as it is stored,
/// minus its EXIF, XMP, IPTC, comments and text, for photos small enough to need no rendition.
///
/// The walk also checks the file's structure (every segment or chunk whole, PNG checksums
/// right, the end marker present), so a truncated photo is caught here as a decoder would.
enum LosslessStrip {
  /// The outcome: the bytes to publish, or why the photo cannot be published losslessly.
  enum Outcome: Equatable {
    case stripped([UInt8])
    /// Damaged: the reason, for the warning.
    case damaged(String)
    /// Sound, but it must be decoded (it is turned by its EXIF orientation, or PNG EXIF).
    case needsDecoding
  }

  static func jpeg(_ bytes: [UInt8], keepMetadata: Bool) -> Outcome {
    guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
      return .damaged("JPEG: no start-of-image marker")
    }
    var out = Cut(bytes)
    var index = 2
    while true {
      guard index + 1 < bytes.count, bytes[index] == 0xFF else {
        return .damaged("JPEG: damaged marker at byte \(index)")
      }
      var marker = bytes[index + 1]
      var next = index + 1
      while marker == 0xFF, next + 1 < bytes.count {  // fill bytes
        next += 1
        marker = bytes[next]
      }
      // The fill bytes go: the marker is kept as FF and its code.
      out.drop(index..<next - 1)
      let start = next - 1
      index = next + 1
      if marker == 0xD9 { return .damaged("JPEG: no image data") }
      if (0xD0...0xD7).contains(marker) || marker == 0x01 { continue }
      guard index + 1 < bytes.count else { return .damaged("JPEG: premature end of file") }
      let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
      guard length >= 2, index + length <= bytes.count else {
        return .damaged("JPEG: premature end of file")
      }
      let segment = bytes[index + 2..<index + length]
      if marker == 0xE1, segment.starts(with: Array("Exif\0\0".utf8)),
        let orientation = exifOrientation(Array(segment.dropFirst(6))), orientation != 1
      {
        return .needsDecoding
      }
      if marker == 0xDA {
        // The scans: everything up to the end-of-image marker, copied as it is.
        guard let end = endOfImage(bytes, from: index + length) else {
          return .damaged("JPEG: premature end of file")
        }
        return .stripped(out.finish(at: end))
      }
      if !keepMetadata && !keeps(marker, segment) {
        out.drop(start..<index + length)
      }
      index += length
    }
  }

  /// JFIF (APP0), ICC profiles (APP2) and Adobe colour (APP14) stay, and every non-APP
  /// segment; EXIF and XMP (APP1), IPTC (APP13), comments and other APP segments go.
  private static func keeps(_ marker: UInt8, _ segment: ArraySlice<UInt8>) -> Bool {
    switch marker {
    case 0xE0, 0xEE: return true
    case 0xE2: return segment.starts(with: Array("ICC_PROFILE\0".utf8))
    case 0xE1...0xEF, 0xFE: return false
    default: return true
    }
  }

  /// Just past the first end-of-image marker at or after `start`: in scan data 0xFF is
  /// followed by 0x00 or a marker, so the first FF D9 is the end. `memchr` finds each 0xFF.
  static func endOfImage(_ bytes: [UInt8], from start: Int) -> Int? {
    bytes.withUnsafeBytes { buffer -> Int? in
      guard let base = buffer.baseAddress else { return nil }
      var index = start
      while index + 1 < buffer.count {
        guard let found = memchr(base + index, 0xFF, buffer.count - 1 - index) else {
          return nil
        }
        index = base.distance(to: UnsafeRawPointer(found))
        if buffer[index + 1] == 0xD9 { return index + 2 }
        index += 1
      }
      return nil
    }
  }

  /// The plain twin of `endOfImage`, byte by byte (for the test that compares them).
  static func endOfImageByteByByte(_ bytes: [UInt8], from start: Int) -> Int? {
    var index = start
    while index + 1 < bytes.count {
      if bytes[index] == 0xFF, bytes[index + 1] == 0xD9 { return index + 2 }
      index += 1
    }
    return nil
  }

  /// The orientation in a TIFF-structured EXIF block (tag 0x0112 of IFD0), when there is one.
  static func exifOrientation(_ tiff: [UInt8]) -> Int? {
    guard tiff.count >= 8 else { return nil }
    let little: Bool
    switch (tiff[0], tiff[1]) {
    case (0x49, 0x49): little = true
    case (0x4D, 0x4D): little = false
    default: return nil
    }
    func u16(_ at: Int) -> Int? {
      guard at >= 0, at + 2 <= tiff.count else { return nil }
      return little
        ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
    }
    func u32(_ at: Int) -> Int? {
      guard let high = u16(little ? at + 2 : at), let low = u16(little ? at : at + 2) else {
        return nil
      }
      return high << 16 | low
    }
    guard let ifd = u32(4), let entries = u16(ifd) else { return nil }
    for entry in 0..<entries {
      let at = ifd + 2 + entry * 12
      guard let tag = u16(at) else { return nil }
      if tag == 0x0112 { return u16(at + 8) }
    }
    return nil
  }

  /// A WebP without its `EXIF` and `XMP ` chunks (and their flags in `VP8X`). libvips 8.14
  /// writes EXIF into WebP even when told to strip it, so every rendition passes through here.
  static func webp(_ bytes: [UInt8]) -> Outcome {
    guard bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)),
      Array(bytes[8..<12]) == Array("WEBP".utf8)
    else { return .damaged("WebP: no RIFF header") }
    var out = Array(bytes[0..<12])
    var index = 12
    var sawImage = false
    var changed = false
    while index + 8 <= bytes.count {
      let type = String(decoding: bytes[index..<index + 4], as: UTF8.self)
      let size =
        Int(bytes[index + 4]) | Int(bytes[index + 5]) << 8 | Int(bytes[index + 6]) << 16
        | Int(bytes[index + 7]) << 24
      guard index + 8 + size <= bytes.count else { return .damaged("WebP: premature end of file") }
      // The pad byte of an odd-sized last chunk is sometimes left out.
      let end = min(index + 8 + size + (size & 1), bytes.count)
      if type == "VP8 " || type == "VP8L" || type == "ANMF" { sawImage = true }
      if type == "EXIF" {
        var tiff = Array(bytes[index + 8..<index + 8 + size])
        if tiff.starts(with: Array("Exif\0\0".utf8)) { tiff.removeFirst(6) }
        if let orientation = exifOrientation(tiff), orientation != 1 { return .needsDecoding }
      }
      if type != "EXIF" && type != "XMP " {
        var chunk = Array(bytes[index..<end])
        if type == "VP8X", chunk.count > 8, chunk[8] & 0x0C != 0 {
          chunk[8] &= ~0x0C
          changed = true
        }
        out += chunk
      } else {
        changed = true
      }
      index = end
    }
    guard sawImage else { return .damaged("WebP: no image data") }
    let riff = UInt32(out.count - 8)
    let stored =
      UInt32(bytes[4]) | UInt32(bytes[5]) << 8 | UInt32(bytes[6]) << 16 | UInt32(bytes[7]) << 24
    // Nothing cut or changed: the photo's own array.
    if !changed, index == bytes.count, stored == riff { return .stripped(bytes) }
    out[4] = UInt8(riff & 0xFF)
    out[5] = UInt8((riff >> 8) & 0xFF)
    out[6] = UInt8((riff >> 16) & 0xFF)
    out[7] = UInt8(riff >> 24)
    return .stripped(out)
  }

  /// The WebP as it is, once its chunks are checked whole (for `--keep-photo-metadata`).
  static func webpChecked(_ bytes: [UInt8]) -> Outcome {
    guard case .stripped = webp(bytes) else { return webp(bytes) }
    return .stripped(bytes)
  }

  private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
  /// Text, EXIF and time chunks: where PNG keeps metadata.
  private static let pngMetadata: Set<String> = ["eXIf", "tEXt", "zTXt", "iTXt", "tIME"]

  static func png(_ bytes: [UInt8], keepMetadata: Bool) -> Outcome {
    guard bytes.starts(with: pngSignature) else { return .damaged("PNG: no signature") }
    var out = Cut(bytes)
    var index = pngSignature.count
    var sawData = false
    while true {
      guard index + 12 <= bytes.count else { return .damaged("PNG: premature end of file") }
      let length =
        Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8
        | Int(bytes[index + 3])
      let end = index + 12 + length
      guard length <= 0x7FFF_FFFF, end <= bytes.count else {
        return .damaged("PNG: premature end of file")
      }
      let type = String(decoding: bytes[index + 4..<index + 8], as: UTF8.self)
      let stored =
        UInt32(bytes[end - 4]) << 24 | UInt32(bytes[end - 3]) << 16 | UInt32(bytes[end - 2]) << 8
        | UInt32(bytes[end - 1])
      guard CRC32.checksum(bytes[index + 4..<end - 4]) == stored else {
        return .damaged("PNG: \(type) chunk has a bad checksum")
      }
      if type == "eXIf" { return .needsDecoding }
      if type == "IDAT" { sawData = true }
      if !keepMetadata && pngMetadata.contains(type) {
        out.drop(index..<end)
      }
      index = end
      if type == "IEND" {
        return sawData ? .stripped(out.finish(at: end)) : .damaged("PNG: no image data")
      }
    }
  }
}

extension LosslessStrip {
  /// A GIF without its comment extensions and its application extensions other than
  /// `NETSCAPE2.0` (the loop count, which animation needs); every frame and every other block
  /// is copied as it is, nothing decoded.
  static func gif(_ bytes: [UInt8], keepMetadata: Bool) -> Outcome {
    guard bytes.count >= 13,
      bytes.starts(with: Array("GIF87a".utf8))
        || bytes.starts(with: Array("GIF89a".utf8))
    else { return .damaged("GIF: no header") }
    var index = 13
    if bytes[10] & 0x80 != 0 { index += 3 << (Int(bytes[10] & 0x07) + 1) }
    guard index <= bytes.count else { return .damaged("GIF: premature end of file") }
    var out = Cut(bytes)
    var sawImage = false
    /// Just past the sub-blocks starting at `start` (the zero-length one included).
    func subBlocksEnd(_ start: Int) -> Int? {
      var at = start
      while at < bytes.count {
        let size = Int(bytes[at])
        at += 1 + size
        if size == 0 { return at }
      }
      return nil
    }
    while index < bytes.count {
      switch bytes[index] {
      case 0x3B:  // trailer
        return sawImage ? .stripped(out.finish(at: index + 1)) : .damaged("GIF: no image data")
      case 0x21:  // extension: label, then sub-blocks
        guard index + 2 < bytes.count, let end = subBlocksEnd(index + 2) else {
          return .damaged("GIF: premature end of file")
        }
        let label = bytes[index + 1]
        let looping =
          bytes[index + 2] == 11 && index + 14 <= bytes.count
          && Array(bytes[index + 3..<index + 14]) == Array("NETSCAPE2.0".utf8)
        let metadata = label == 0xFE || (label == 0xFF && !looping)
        if !keepMetadata && metadata { out.drop(index..<end) }
        index = end
      case 0x2C:  // image: descriptor, local colour table, LZW code size, sub-blocks
        guard index + 10 <= bytes.count else { return .damaged("GIF: premature end of file") }
        var data = index + 10
        if bytes[index + 9] & 0x80 != 0 { data += 3 << (Int(bytes[index + 9] & 0x07) + 1) }
        guard data < bytes.count, let end = subBlocksEnd(data + 1) else {
          return .damaged("GIF: premature end of file")
        }
        sawImage = true
        index = end
      default:
        return .damaged("GIF: damaged block at byte \(index)")
      }
    }
    return .damaged("GIF: premature end of file")
  }
}

/// A file with some ranges of its bytes cut out, copied only once a range is cut: a photo
/// without metadata is published as the array it was read into.
private struct Cut {
  let bytes: [UInt8]
  /// The bytes kept so far, before `kept`; nil while nothing is cut.
  private var out: [UInt8]?
  /// Where the bytes not yet copied to `out` start.
  private var kept = 0

  init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// Cuts `range` out (ranges come in order and do not overlap).
  mutating func drop(_ range: Range<Int>) {
    guard !range.isEmpty else { return }
    var copy = out ?? []
    out = nil
    if copy.isEmpty { copy.reserveCapacity(bytes.count) }
    copy += bytes[kept..<range.lowerBound]
    out = copy
    kept = range.upperBound
  }

  /// The bytes kept before `end`; what follows `end` is cut.
  func finish(at end: Int) -> [UInt8] {
    guard var copy = out else { return end == bytes.count ? bytes : Array(bytes[..<end]) }
    copy += bytes[kept..<end]
    return copy
  }
}

/// The CRC-32 of PNG chunks (ISO 3309, as in zlib), eight bytes at a time ("slicing by 8"),
/// with the byte-by-byte twin it is tested against.
enum CRC32 {
  /// `tables[0]` is the byte-by-byte table; `tables[k][n]` is `n` followed by `k` zero bytes.
  private static let tables: [[UInt32]] = {
    var first = [UInt32](repeating: 0, count: 256)
    for n in 0..<256 {
      var c = UInt32(n)
      for _ in 0..<8 {
        c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1
      }
      first[n] = c
    }
    var tables = [first]
    for k in 1..<8 {
      tables.append(
        (0..<256).map { n in
          let previous = tables[k - 1][n]
          return first[Int(previous & 0xFF)] ^ (previous >> 8)
        })
    }
    return tables
  }()
  /// `tables`, one after another.
  private static let flat: [UInt32] = tables.flatMap { $0 }

  static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    flat.withUnsafeBufferPointer { table in
      bytes.withUnsafeBytes { buffer in
        var index = 0
        while index + 8 <= buffer.count {
          let low =
            crc ^ UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: index, as: UInt32.self))
          let high = UInt32(
            littleEndian: buffer.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self))
          crc =
            table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
            ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
            ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
            ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
          index += 8
        }
        while index < buffer.count {
          crc = table[Int((crc ^ UInt32(buffer[index])) & 0xFF)] ^ (crc >> 8)
          index += 1
        }
      }
    }
    return crc ^ 0xFFFF_FFFF
  }

  /// The plain twin of `checksum`, one byte at a time.
  static func checksumByteByByte(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc = tables[0][Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
    }
    return crc ^ 0xFFFF_FFFF
  }
}
