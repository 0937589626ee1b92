/// A to-do's key as the app stores it: a whole number (the tutorial's `pk`, Kanboard's `id`) or
/// text (a UUID, a hex id, a Taskwarrior `uuid`), and the number the build sorts and finds the
/// to-dos by.
///
/// A text key that is the canonical decimal form of a whole number (`"42"`, not `"042"` or
/// `"+42"`) is that number, so an app that keeps its numbers in a text column publishes the
/// same site as one that keeps them as integers. Any other text key is numbered by a hash of its
/// bytes (SipHash-2-4 with a fixed key: the same on every machine and in every build, so the
/// key's page never moves); two keys with the same number are two rows with one key, and the
/// later is skipped with a warning, as a key seen twice is.
public enum TodoKey {
  /// The key's number: the number itself for a whole number; the hash of the text otherwise.
  public static func number(ofText text: UnsafeBufferPointer<UInt8>) -> Int64 {
    if let number = canonicalNumber(text) { return number }
    var hasher = SipHasher(key: hashKey)
    hasher.update(UnsafeRawBufferPointer(text))
    return Int64(bitPattern: hasher.finalize().low)
  }

  /// The number of a key written as `text`, and the text when it is to be kept (a text key).
  public static func read(_ text: String) -> (number: Int64, key: String?) {
    var copy = text
    return copy.withUTF8 { (number(ofText: $0), isNumber($0) ? nil : text) }
  }

  /// ``number(ofText:)`` of a `String`.
  public static func number(ofText text: String) -> Int64 {
    var copy = text
    return copy.withUTF8 { number(ofText: $0) }
  }

  /// Whether `text` is a key that ``number(ofText:)`` reads as a whole number, with no text to
  /// keep beside it.
  public static func isNumber(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    canonicalNumber(text) != nil
  }

  /// The fixed key of the text keys' hash: not a secret, for the numbers must be the same for
  /// everyone; they decide no "unchanged", only which row a key is.
  private static let hashKey = HashKey(k0: 0x7461_736b_7072_6573, k1: 0x7465_7874_2d6b_6579)

  /// `text` as a whole number when it is written as `Int64`'s `description` writes it.
  private static func canonicalNumber(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
    guard !text.isEmpty, text.count <= 20 else { return nil }
    let digits = text.first == UInt8(ascii: "-") ? text.dropFirst() : text[...]
    guard let first = digits.first, digits.allSatisfy({ (0x30...0x39).contains($0) }),
      first != 0x30 || digits.count == 1,
      !(text.first == UInt8(ascii: "-") && digits.count == 1 && first == 0x30)
    else { return nil }
    return Int64(String(decoding: text, as: UTF8.self))
  }

  // MARK: - Page names

  /// The longest text key published under its own name.
  static let longestNamedKey = 64

  /// The name of a text key's page (`todos/NAME.html`): the key itself when it is made of
  /// lower-case ASCII letters, digits and dashes, starts with a letter or digit and is at most
  /// ``longestNamedKey`` bytes (a UUID, a hex id); else `_` and the 16 hexadecimal digits of its
  /// number. Names never collide: a number's name is its digits (a key written so is that
  /// number), a named key's is the key (keys differ), a hashed one starts with `_`, which no
  /// other name does (keys of one number are one key). Only lower-case letters are used, so
  /// names stay apart on a file system that ignores case or normalizes Unicode.
  public static func pageName(ofText text: UnsafeBufferPointer<UInt8>, number: Int64) -> String {
    if isPlainName(text) { return String(decoding: text, as: UTF8.self) }
    let digits: [UInt8] = Array("0123456789abcdef".utf8)
    var value = UInt64(bitPattern: number)
    var out = [UInt8](repeating: 0, count: 17)
    out[0] = UInt8(ascii: "_")
    for index in stride(from: 16, through: 1, by: -1) {
      out[index] = digits[Int(value & 0xF)]
      value >>= 4
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Whether a text key is its own page name.
  static func isPlainName(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let first = text.first, text.count <= longestNamedKey, first != UInt8(ascii: "-")
    else { return false }
    return text.allSatisfy { byte in
      (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "-")
    }
  }
}
