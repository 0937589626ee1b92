/// Bounds-checked reads of integers and tags from the start of a file; out of range is `nil`.
struct ByteReader {
  let bytes: [UInt8]

  var count: Int { bytes.count }

  func byte(at offset: Int) -> UInt8? {
    offset >= 0 && offset < bytes.count ? bytes[offset] : nil
  }

  func starts(with prefix: [UInt8]) -> Bool {
    matches(prefix, at: 0)
  }

  func matches(_ expected: [UInt8], at offset: Int) -> Bool {
    guard offset >= 0, offset + expected.count <= bytes.count else { return false }
    return bytes[offset..<(offset + expected.count)].elementsEqual(expected)
  }

  func uint16(at offset: Int, bigEndian: Bool) -> UInt16? {
    guard let value = unsigned(at: offset, size: 2, bigEndian: bigEndian) else { return nil }
    return UInt16(truncatingIfNeeded: value)
  }

  func uint32(at offset: Int, bigEndian: Bool) -> UInt32? {
    guard let value = unsigned(at: offset, size: 4, bigEndian: bigEndian) else { return nil }
    return UInt32(truncatingIfNeeded: value)
  }

  func uint24LittleEndian(at offset: Int) -> UInt32? {
    guard let value = unsigned(at: offset, size: 3, bigEndian: false) else { return nil }
    return UInt32(truncatingIfNeeded: value)
  }

  /// Four bytes as ASCII text (a RIFF chunk or ISO box type), or `nil` if not printable.
  func fourCC(at offset: Int) -> String? {
    guard offset >= 0, offset + 4 <= bytes.count else { return nil }
    let slice = bytes[offset..<(offset + 4)]
    guard slice.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
    return String(decoding: slice, as: UTF8.self)
  }

  /// An ISO base media box header: its type, where its contents start, and where it ends
  /// (`nil` for a box that runs to the end of the file). `nil` if the header is cut short or
  /// malformed.
  func boxHeader(at offset: Int) -> (type: String, contents: Int, end: Int?)? {
    guard let size = uint32(at: offset, bigEndian: true), let type = fourCC(at: offset + 4)
    else { return nil }
    switch size {
    case 0:
      return (type, offset + 8, nil)
    case 1:
      guard let large = unsigned(at: offset + 8, size: 8, bigEndian: true),
        large >= 16, large < UInt64(Int.max / 2)
      else { return nil }
      return (type, offset + 16, offset + Int(large))
    case 2..<8:
      return nil
    default:
      return (type, offset + 8, offset + Int(size))
    }
  }

  /// The contents of the first child box of type `type` within `range`.
  func child(_ type: String, in range: Range<Int>) -> Range<Int>? {
    var offset = range.lowerBound
    while let box = boxHeader(at: offset), let end = box.end, end <= range.upperBound {
      if box.type == type { return box.contents..<end }
      offset = end
    }
    return nil
  }

  private func unsigned(at offset: Int, size: Int, bigEndian: Bool) -> UInt64? {
    guard offset >= 0, offset + size <= bytes.count else { return nil }
    var value: UInt64 = 0
    for index in 0..<size {
      let byte = UInt64(bytes[bigEndian ? offset + index : offset + size - 1 - index])
      value = value << 8 | byte
    }
    return value
  }
}
