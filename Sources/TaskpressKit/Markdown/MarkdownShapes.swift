import CCmark
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Renders Markdown made from one template without parsing every page: pages that differ only
/// in the values the template inserted share one parse.
///
/// A page's Markdown is the template's text with values escaped for Markdown in between (see
/// `Escaping.markdown`). Its *shape* is the same text with each value replaced by a token
/// (`QzX00001` for the first). The first page of a shape is rendered by cmark as it is, and
/// the shape is rendered too; the shape's HTML, cut at its tokens, is kept. A later page of the
/// same shape is that HTML with each token replaced by its value, escaped as cmark escapes
/// text or link destinations. The kept HTML is used only when it gives exactly what cmark gave
/// for the first page, and a page takes it only when each value is one cmark cannot read as
/// anything but text in that place:
///
/// - the escaped value has only letters, digits, spaces, other UTF-8, and ASCII punctuation
///   escaped with a backslash (no backtick, no line break, no tab, no character reference), and
///   no space at either end;
/// - beside a `*`, `_` or `\` of the template, the value's character there is a letter or a
///   digit, like the token's, so emphasis and escapes come out the same; before a `.` or `)`
///   (or digits and one of them) it does not end with a digit, which could make an ordered
///   list;
/// - in a link destination, the value is made of ASCII letters, digits and `-._~/#?=%+` only.
///
/// A shape is not kept when its template text has `<` (raw HTML and autolinks), `&` (character
/// references) or `]:` (link reference definitions), or when a token lands anywhere but in text
/// or a link's destination (code, a link title).
///
/// The kept shapes are shared by the threads rendering pages. When most pages of a template
/// have shapes of their own (an index whose rows vary in number), keeping them stops paying
/// and the template goes straight to cmark.
final class MarkdownShapes: Sendable {
  /// What a render did, for tests.
  struct Counts: Equatable {
    /// Pages made from a kept shape.
    var reused = 0
    /// Pages whose shape was new (rendered by cmark, the shape worked out).
    var learned = 0
    /// Pages rendered by cmark alone.
    var direct = 0
  }

  /// A shape seen: its template text (the page's text between values) and, when pages can
  /// reuse it, its cut HTML.
  private struct Known {
    /// The text between values, one piece after another.
    let text: [UInt8]
    /// Where each piece of `text` ends: one more than there are values.
    let ends: [Int]
    let shape: Shape?

    /// Whether `source` has this text between its values.
    func matches(_ source: UnsafeBufferPointer<UInt8>, values: [Int]) -> Bool {
      guard ends.count == values.count / 2 + 1 else { return false }
      return text.withUnsafeBufferPointer { text in
        var start = 0
        var textStart = 0
        for piece in 0..<ends.count {
          let end = piece < values.count / 2 ? values[2 * piece] : source.count
          let length = end - start
          guard length == ends[piece] - textStart,
            MarkdownShapes.same(
              UnsafeBufferPointer(rebasing: source[start..<end]),
              UnsafeBufferPointer(rebasing: text[textStart..<ends[piece]]))
          else {
            return false
          }
          textStart = ends[piece]
          if piece < values.count / 2 { start = values[2 * piece + 1] }
        }
        return true
      }
    }
  }

  /// Whether two runs of bytes are the same.
  @inline(__always)
  static func same(_ one: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
    guard one.count == other.count else { return false }
    guard let first = one.baseAddress, let second = other.baseAddress else { return true }
    return memcmp(first, second, one.count) == 0
  }

  private let options: Markdown.Options
  /// The shapes seen, by a hash of their template text.
  private let shapes = Mutex<[UInt64: [Known]]>([:])
  private let reused = Atomic<Int>(0)
  private let learned = Atomic<Int>(0)
  private let direct = Atomic<Int>(0)
  /// Off once shapes stop being reused, or for options shapes do not support.
  private let enabled: Atomic<Bool>

  /// How many shapes are kept at most.
  static let capacity = 256
  /// After this many new shapes, shapes are looked for only if pages reuse them as often.
  static let trial = 64
  static let tokenPrefix: [UInt8] = Array("QzX".utf8)
  static let tokenDigits = 5
  static let maximumValues = 99_999

  init(options: Markdown.Options = .default) {
    self.options = options
    // Smart punctuation and source positions depend on more than the text around a value.
    enabled = Atomic(options.isSubset(of: [.validateUTF8, .hardBreaks, .noBreaks]))
  }

  var counts: Counts {
    Counts(
      reused: reused.load(ordering: .relaxed), learned: learned.load(ordering: .relaxed),
      direct: direct.load(ordering: .relaxed))
  }

  /// The HTML of `source`, the output of a Markdown template render whose escaped values lie
  /// at `values` (start and end offsets, in pairs; see `Template.render(_:into:markdownValues:)`).
  func htmlBytes(from source: [UInt8], values: [Int]) -> [UInt8] {
    guard enabled.load(ordering: .relaxed), values.count / 2 <= Self.maximumValues,
      let hash = source.withUnsafeBufferPointer({ Self.textHash($0, values: values) })
    else {
      direct.add(1, ordering: .relaxed)
      return Markdown.htmlBytes(from: source, options: options)
    }
    let candidates = shapes.withLock { $0[hash] }
    if let candidates,
      let known = source.withUnsafeBufferPointer({ source in
        candidates.first { $0.matches(source, values: values) }
      })
    {
      if let shape = known.shape, let html = shape.fill(source, values: values) {
        reused.add(1, ordering: .relaxed)
        return html
      }
      direct.add(1, ordering: .relaxed)
      return Markdown.htmlBytes(from: source, options: options)
    }
    let html = Markdown.htmlBytes(from: source, options: options)
    learn(source, values: values, html: html, hash: hash)
    let tried = learned.add(1, ordering: .relaxed).newValue
    if tried >= Self.trial, reused.load(ordering: .relaxed) < tried {
      enabled.store(false, ordering: .relaxed)
    }
    return html
  }

  /// Works out the shape of a page cmark has just rendered as `html`, and keeps it.
  private func learn(_ source: [UInt8], values: [Int], html: [UInt8], hash: UInt64) {
    let holes = values.count / 2
    let plain = source.withUnsafeBufferPointer { source in
      (0..<holes).allSatisfy { hole in
        Self.isPlainValue(
          UnsafeBufferPointer(rebasing: source[values[2 * hole]..<values[2 * hole + 1]]))
      }
    }
    guard plain else { return }
    var shape: [UInt8] = []
    var text: [UInt8] = []
    var ends: [Int] = []
    shape.reserveCapacity(source.count + holes * (Self.tokenPrefix.count + Self.tokenDigits))
    var copied = 0
    for hole in 0...holes {
      let end = hole < holes ? values[2 * hole] : source.count
      shape.append(contentsOf: source[copied..<end])
      text.append(contentsOf: source[copied..<end])
      ends.append(text.count)
      if hole < holes {
        Self.appendToken(hole, to: &shape)
        copied = values[2 * hole + 1]
      }
    }
    var shaped = Shape(shape, holes: holes, options: options)
    // The shape must give what cmark gave; if it does not, the page's values are not what
    // this shape can stand for, and it is not tried again.
    if let candidate = shaped, candidate.fill(source, values: values) != html { shaped = nil }
    let known = Known(text: text, ends: ends, shape: shaped)
    shapes.withLock { shapes in
      guard shapes.values.reduce(0, { $0 + $1.count }) < Self.capacity else { return }
      shapes[hash, default: []].append(known)
    }
  }

  // MARK: - Shapes

  /// A hash of the text between the values of `source`; nil when the values are out of order.
  static func textHash(_ source: UnsafeBufferPointer<UInt8>, values: [Int]) -> UInt64? {
    let holes = values.count / 2
    let raw = UnsafeRawBufferPointer(source)
    var hash = 0x9E37_79B9_7F4A_7C15 ^ UInt64(holes)
    var copied = 0
    for hole in 0...holes {
      let end = hole < holes ? values[2 * hole] : source.count
      guard copied <= end, end <= source.count else { return nil }
      hash = mix(hash ^ UInt64(end - copied))
      var index = copied
      while index + 8 <= end {
        hash = mix(hash ^ raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        index += 8
      }
      var tail: UInt64 = 0
      while index < end {
        tail = tail << 8 | UInt64(source[index])
        index += 1
      }
      hash = mix(hash ^ tail)
      guard hole < holes else { break }
      let valueEnd = values[2 * hole + 1]
      guard end < valueEnd, valueEnd <= source.count else { return nil }
      copied = valueEnd
    }
    return hash
  }

  @inline(__always)
  private static func mix(_ value: UInt64) -> UInt64 {
    let product = value.multipliedFullWidth(by: 0x9FB2_1C65_1E98_DF25)
    return product.high ^ product.low
  }

  /// The number of the token at `index` of `bytes`, if one starts there.
  @inline(__always)
  static func token(in bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
    let length = tokenPrefix.count + tokenDigits
    guard index + length <= bytes.count, bytes[index] == tokenPrefix[0],
      bytes[index + 1] == tokenPrefix[1], bytes[index + 2] == tokenPrefix[2]
    else {
      return nil
    }
    var number = 0
    for digit in bytes[(index + tokenPrefix.count)..<(index + length)] {
      guard (0x30...0x39).contains(digit) else { return nil }
      number = number * 10 + Int(digit - 0x30)
    }
    return number
  }

  static func appendToken(_ hole: Int, to output: inout [UInt8]) {
    output.append(contentsOf: tokenPrefix)
    var divisor = 10_000
    for _ in 0..<tokenDigits {
      output.append(UInt8(ascii: "0") + UInt8(hole / divisor % 10))
      divisor /= 10
    }
  }

  /// Whether an escaped value is plain text to cmark wherever text can be: letters, digits,
  /// spaces inside, UTF-8, and backslash-escaped ASCII punctuation but the backtick.
  static func isPlainValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let first = bytes.first, let last = bytes.last, first != 0x20, last != 0x20 else {
      return false
    }
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte >= 0x80 || ASCIISet.textPlain.contains(byte) {
        index += 1
      } else if byte == UInt8(ascii: "\\"), index + 1 < bytes.count,
        ASCIISet.escapable.contains(bytes[index + 1])
      {
        index += 2
      } else {
        return false
      }
    }
    return true
  }

  /// A set of ASCII bytes, one bit each.
  struct ASCIISet {
    let low: UInt64
    let high: UInt64

    /// `0`-`9`, `A`-`Z`, `a`-`z`.
    static let letterOrDigit = ASCIISet(low: 0x03FF_0000_0000_0000, high: 0x07FF_FFFE_07FF_FFFE)
    /// Letters, digits and the space: what a value has as it is in text.
    static let textPlain = ASCIISet(low: 0x03FF_0001_0000_0000, high: 0x07FF_FFFE_07FF_FFFE)
    /// ASCII punctuation but the backtick: what a value has after a backslash.
    static let escapable = ASCIISet(low: 0xFC00_FFFE_0000_0000, high: 0x7800_0000_F800_0001)
    /// `-._~/#?=%+`: the punctuation a link destination may have, which cmark writes as it is.
    static let destination = ASCIISet(low: 0xA000_E828_0000_0000, high: 0x4000_0000_8000_0000)

    @inline(__always)
    func contains(_ byte: UInt8) -> Bool {
      if byte < 64 { return low >> byte & 1 != 0 }
      if byte < 128 { return high >> (byte &- 64) & 1 != 0 }
      return false
    }
  }

  @inline(__always)
  static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
  }

  @inline(__always)
  static func isASCIIPunctuation(_ byte: UInt8) -> Bool {
    (0x21...0x2F).contains(byte) || (0x3A...0x40).contains(byte)
      || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
  }
}
