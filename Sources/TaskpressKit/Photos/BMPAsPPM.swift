/// An uncompressed BMP read as a binary PPM, so that libvips' PPM loader decodes it (libvips
/// reads BMP only through ImageMagick, which taskpress does not use). The PPM is made row by
/// row as libvips reads it, from the BMP's rows read with `readBMP`, so memory does not grow
/// with the photo's size.
final class BMPAsPPM {
  let width: Int
  let height: Int
  private let topDown: Bool
  /// 3 (BGR) or 4 (BGRA, the alpha dropped).
  private let bytesPerPixel: Int
  private let pixelOffset: Int
  private let rowStride: Int
  private let header: [UInt8]
  private let readBMP: (_ offset: Int, _ count: Int) throws -> [UInt8]
  /// The PPM row last made, and its number.
  private var row: (number: Int, bytes: [UInt8])?

  /// The PPM's size in bytes.
  var count: Int { header.count + width * height * 3 }

  /// How many bytes of a BMP `init` reads: its file header, its info header and its colour
  /// masks.
  static let headerBytes = 14 + 124

  /// A BMP of `byteCount` bytes whose first bytes are `head`, or why it cannot be published.
  init(
    head: [UInt8], byteCount: Int,
    readBMP: @escaping (_ offset: Int, _ count: Int) throws -> [UInt8]
  ) throws(Vips.Failure) {
    func u16(_ at: Int) -> Int {
      at + 2 <= head.count ? Int(head[at]) | Int(head[at + 1]) << 8 : 0
    }
    func u32(_ at: Int) -> UInt32 {
      at + 4 <= head.count ? UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 : 0
    }
    guard head.count >= 54, head[0] == 0x42, head[1] == 0x4D, u32(14) >= 40 else {
      throw Vips.Failure(reason: "BMP: damaged header")
    }
    let width = Int(Int32(bitPattern: u32(18)))
    let signedHeight = Int(Int32(bitPattern: u32(22)))
    let bits = u16(28)
    let compression = u32(30)
    // BI_BITFIELDS: the masks follow a 40-byte header, or are inside a longer one.
    let standardMasks = u32(54) == 0x00FF_0000 && u32(58) == 0x0000_FF00 && u32(62) == 0xFF
    guard u16(26) == 1,
      (bits == 24 && compression == 0)
        || (bits == 32 && (compression == 0 || (compression == 3 && standardMasks)))
    else {
      throw Vips.Failure(
        reason:
          "BMP: only uncompressed 24- and 32-bit BMPs can be published (this one has \(bits) bits "
          + "per pixel, compression \(compression)); store the photo as JPEG or PNG")
    }
    guard width > 0, signedHeight != 0, width <= 1 << 16, signedHeight.magnitude <= 1 << 16 else {
      throw Vips.Failure(reason: "BMP: damaged header (\(width) × \(signedHeight) pixels)")
    }
    self.width = width
    height = Int(signedHeight.magnitude)
    topDown = signedHeight < 0
    bytesPerPixel = bits / 8
    rowStride = (width * bytesPerPixel + 3) / 4 * 4
    pixelOffset = Int(u32(10))
    guard pixelOffset >= 54, pixelOffset + rowStride * height <= byteCount else {
      throw Vips.Failure(reason: "BMP: premature end of file")
    }
    header = Array("P6\n\(width) \(height)\n255\n".utf8)
    self.readBMP = readBMP
  }

  /// Fills `buffer` with the PPM's bytes from `offset`; returns how many (0 at its end).
  func read(_ offset: Int, _ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    var done = 0
    while done < buffer.count {
      let at = offset + done
      let bytes: ArraySlice<UInt8>
      if at < header.count {
        bytes = header[at...]
      } else {
        let pixel = at - header.count
        let number = pixel / (width * 3)
        guard number < height else { break }
        bytes = try ppmRow(number)[(pixel - number * width * 3)...]
      }
      let take = min(bytes.count, buffer.count - done)
      bytes.prefix(take).withUnsafeBytes {
        UnsafeMutableRawBufferPointer(rebasing: buffer[done..<done + take]).copyMemory(from: $0)
      }
      done += take
    }
    return done
  }

  /// Row `number` of the PPM (top first) as RGB.
  private func ppmRow(_ number: Int) throws -> [UInt8] {
    if let row, row.number == number { return row.bytes }
    let stored = topDown ? number : height - 1 - number
    let bgr = try readBMP(pixelOffset + stored * rowStride, width * bytesPerPixel)
    guard bgr.count == width * bytesPerPixel else {
      throw Vips.Failure(reason: "BMP: premature end of file")
    }
    var rgb = [UInt8](repeating: 0, count: width * 3)
    for column in 0..<width {
      let source = column * bytesPerPixel
      rgb[column * 3] = bgr[source + 2]
      rgb[column * 3 + 1] = bgr[source + 1]
      rgb[column * 3 + 2] = bgr[source]
    }
    row = (number, rgb)
    return rgb
  }
}
