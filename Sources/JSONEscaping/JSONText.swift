/// JSON strings as taskpress writes them (RFC 8259): the one writer of their escapes, for the
/// data files, the feeds, the records, the build report and the scripts `serve` injects.
///
/// `"` and `\` are escaped, and every control character (below U+0020): `\n`, `\r` and `\t` by
/// name, the others as `\u00XX` (lower-case hex). `Escapes` adds the rest a use needs. Runs of
/// bytes that need no escape are copied whole, so a long text costs one scan and a few copies.
public enum JSONText {
  /// What is escaped besides what JSON requires.
  public struct Escapes: OptionSet, Sendable {
    public let rawValue: UInt8

    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// DEL (U+007F) as `\u007f`, as the data files and the build report write it.
    public static let delete = Escapes(rawValue: 1)
    /// `<`, `>`, `&`, U+2028 and U+2029 as `\u` escapes, so that the string can stand in a
    /// `<script>` element or be read as JavaScript.
    public static let script = Escapes(rawValue: 2)
  }

  /// Writes the UTF-8 text `text` escaped (without quotes), calling `write` with each piece in
  /// order: runs of `text` itself and the escapes between them.
  @inlinable
  public static func escape(
    _ text: UnsafeBufferPointer<UInt8>, _ escapes: Escapes,
    _ write: (UnsafeBufferPointer<UInt8>) -> Void
  ) {
    let delete = escapes.contains(.delete)
    let script = escapes.contains(.script)
    var start = 0
    var index = 0
    while index < text.count {
      let byte = text[index]
      var length = 1
      let escaped: Bool
      switch byte {
      case 0..<0x20, UInt8(ascii: "\""), UInt8(ascii: "\\"): escaped = true
      case 0x7F: escaped = delete
      case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"): escaped = script
      case 0xE2:
        // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
        escaped =
          script && index + 2 < text.count && text[index + 1] == 0x80
          && (text[index + 2] == 0xA8 || text[index + 2] == 0xA9)
        if escaped { length = 3 }
      default: escaped = false
      }
      guard escaped else {
        index += 1
        continue
      }
      if start < index { write(UnsafeBufferPointer(rebasing: text[start..<index])) }
      escapeSequence(byte, length == 3 ? text[index + 2] : 0, write)
      index += length
      start = index
    }
    if start < text.count { write(UnsafeBufferPointer(rebasing: text[start...])) }
  }

  /// The escape of `byte` (of U+2028 or U+2029 when `byte` is 0xE2, `last` its last byte).
  @inlinable
  static func escapeSequence(
    _ byte: UInt8, _ last: UInt8, _ write: (UnsafeBufferPointer<UInt8>) -> Void
  ) {
    let hex: StaticString = "0123456789abcdef"
    var sequence: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0x5C, 0, 0, 0, 0, 0)
    var count = 2
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"): sequence.1 = byte
    case 0x0A: sequence.1 = UInt8(ascii: "n")
    case 0x0D: sequence.1 = UInt8(ascii: "r")
    case 0x09: sequence.1 = UInt8(ascii: "t")
    case 0xE2:
      sequence = (
        0x5C, UInt8(ascii: "u"), UInt8(ascii: "2"), UInt8(ascii: "0"), UInt8(ascii: "2"),
        last == 0xA8 ? UInt8(ascii: "8") : UInt8(ascii: "9")
      )
      count = 6
    default:
      sequence = (
        0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
        hex.utf8Start[Int(byte >> 4)], hex.utf8Start[Int(byte & 0x0F)]
      )
      count = 6
    }
    withUnsafeBytes(of: &sequence) { raw in
      write(UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[..<count]))
    }
  }

  /// Appends `text` escaped and quoted to `bytes`.
  @inlinable
  public static func appendQuoted(
    _ text: String, _ escapes: Escapes, to bytes: inout [UInt8]
  ) {
    bytes.append(UInt8(ascii: "\""))
    appendEscaped(text, escapes, to: &bytes)
    bytes.append(UInt8(ascii: "\""))
  }

  /// Appends `text` escaped (without quotes) to `bytes`.
  @inlinable
  public static func appendEscaped(
    _ text: String, _ escapes: Escapes, to bytes: inout [UInt8]
  ) {
    var text = text
    text.withUTF8 { utf8 in escape(utf8, escapes) { bytes.append(contentsOf: $0) } }
  }

  /// `text` escaped and quoted.
  @inlinable
  public static func quoted(_ text: String, _ escapes: Escapes) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count + 2)
    appendQuoted(text, escapes, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}
