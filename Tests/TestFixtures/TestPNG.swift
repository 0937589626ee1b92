/// Real PNG files for tests that need photos: every chunk whole, every checksum right, so they
/// decode. `seed` makes each one's pixels different; `padding` adds a private chunk of that
/// many bytes to reach a given file size.
public enum TestPNG {
  public static func make(width: Int = 3, height: Int = 2, seed: Int = 0, padding: Int = 0)
    -> [UInt8]
  {
    var raw: [UInt8] = []
    for row in 0..<height {
      raw.append(0)  // no filter
      for column in 0..<width {
        let value = UInt8(truncatingIfNeeded: seed &* 31 &+ row &* 7 &+ column)
        raw += [value, UInt8(truncatingIfNeeded: seed >> 8), UInt8(truncatingIfNeeded: seed >> 16)]
      }
    }
    // zlib with one stored (uncompressed) deflate block.
    var zlib: [UInt8] = [0x78, 0x01, 0x01]
    zlib += [UInt8(raw.count & 0xFF), UInt8(raw.count >> 8)]
    zlib += [UInt8(~raw.count & 0xFF), UInt8((~raw.count >> 8) & 0xFF)]
    zlib += raw
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in raw {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    zlib += bigEndian(b << 16 | a)
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    png += chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0])
    if padding > 0 {
      var filler: [UInt8] = []
      filler.reserveCapacity(padding)
      var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
      for _ in 0..<padding {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        filler.append(UInt8(truncatingIfNeeded: state))
      }
      png += chunk("prVt", filler)
    }
    png += chunk("IDAT", zlib)
    png += chunk("IEND", [])
    return png
  }

  public static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      out += [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
    }
    return String(decoding: out, as: UTF8.self)
  }

  public static func bigEndian(_ value: UInt32) -> [UInt8] {
    [
      UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF),
      UInt8(value & 0xFF),
    ]
  }

  /// The CRC of a chunk of type `type` whose data is `count` zero bytes.
  public static func crcOfZeroChunk(_ type: String, count: Int) -> UInt32 {
    let table: [UInt32] = (0..<256).map { n in
      var c = UInt32(n)
      for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
      return c
    }
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in Array(type.utf8) {
      crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
    }
    for _ in 0..<count {
      crc = table[Int(crc & 0xFF)] ^ (crc >> 8)
    }
    return crc ^ 0xFFFF_FFFF
  }

  private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in body {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }
    return bigEndian(UInt32(data.count)) + body + bigEndian(crc ^ 0xFFFF_FFFF)
  }
}
