/// A text value read from a database: the raw bytes, the repaired string, and what was repaired.
public struct TextValue: Sendable, Equatable {
  /// One repair made to turn stored bytes into a valid string.
  public enum Repair: Sendable, Equatable {
    /// Invalid UTF-8 was replaced with U+FFFD (`count` replacements).
    case invalidUTF8(count: Int)
    /// NUL bytes were dropped (`count` of them).
    case nulBytesDropped(count: Int)
  }

  /// The bytes as stored.
  public var bytes: [UInt8]
  /// The text, with invalid UTF-8 replaced by U+FFFD and NUL bytes dropped.
  public var string: String
  /// The repairs made, empty when the bytes were valid UTF-8 without NUL bytes.
  public var repairs: [Repair]

  /// Decodes `bytes`, repairing invalid UTF-8 and dropping NUL bytes.
  public init(bytes: [UInt8]) {
    self.bytes = bytes
    let nulCount = bytes.reduce(into: 0) { count, byte in count += byte == 0 ? 1 : 0 }
    if nulCount == 0, let valid = String(validating: bytes, as: UTF8.self) {
      string = valid
      repairs = []
      return
    }
    var repairs: [Repair] = []
    let kept = nulCount == 0 ? bytes : bytes.filter { $0 != 0 }
    var scalars = String.UnicodeScalarView()
    var invalidCount = 0
    var iterator = kept.makeIterator()
    var decoder = UTF8()
    decoding: while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar):
        scalars.append(scalar)
      case .error:
        invalidCount += 1
        scalars.append("\u{FFFD}")
      case .emptyInput:
        break decoding
      }
    }
    if invalidCount > 0 { repairs.append(.invalidUTF8(count: invalidCount)) }
    if nulCount > 0 { repairs.append(.nulBytesDropped(count: nulCount)) }
    self.string = String(scalars)
    self.repairs = repairs
  }
}
