import CCmark
import Mustache
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
/// `Escaping.markdown`); the render sets the values aside (`SetAsideValues`). Its *shape* is
/// the text with each value replaced by a token (`QzX00000` for the first). The first page of a
/// shape is rendered by cmark, and the shape is rendered too; the shape's HTML, cut at its
/// tokens, is kept. A later page with the same text and places is that HTML with each token
/// replaced by its value as cmark writes text (`&`, `<`, `>`, `"` as references) or a link
/// destination (as it is). The kept HTML is used only when, filled with a letter for each
/// value, it gives exactly what cmark gives for the text with those letters (so the shape kept
/// depends on the text alone, not on which page met it first), and a page takes it only when
/// each value is one cmark cannot read as anything but text in that place:
///
/// - the value is not empty and has no line break, tab, control character or backtick, no
///   space at either end, no byte order mark (cmark drops one at the start of a document), and
///   nothing Markdown escaping replaces: escaped, it is itself with a backslash before each
///   ASCII punctuation character (see `Shape.isPlain`);
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
/// This is the plain path's twin: `PageRenderer` without `RenderPaths.markdownSharing` runs
/// cmark on every page, and the differential tests compare the two.
///
/// The kept shapes are shared by the threads rendering pages. When most pages of a template
/// have shapes of their own (an index whose rows vary in number), keeping them stops paying
/// and the template goes straight to cmark.
final class MarkdownSharing: Sendable {
  /// What a render did, for tests.
  struct Counts: Equatable {
    /// Pages made from a kept shape.
    var reused = 0
    /// Pages whose shape was new (rendered by cmark, the shape worked out).
    var learned = 0
    /// Pages rendered by cmark alone.
    var direct = 0
  }

  /// A shape seen: its template text and the places of its values and, when pages can reuse
  /// it, its cut HTML.
  private final class Known: Sendable {
    let hash: UInt64
    let text: [UInt8]
    let places: [Int]
    let shape: Shape?

    init(hash: UInt64, text: [UInt8], places: [Int], shape: Shape?) {
      self.hash = hash
      self.text = text
      self.places = places
      self.shape = shape
    }

    func matches(_ text: UnsafeBufferPointer<UInt8>, _ values: SetAsideValues) -> Bool {
      places == values.places
        && self.text.withUnsafeBufferPointer { MarkdownSharing.same($0, text) }
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
  /// The shapes seen (a few per template: searched in order, by a hash of their text first).
  private let shapes = Mutex<[Known]>([])
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

  /// The HTML of a Markdown template's render: `text` is its output with the values set aside
  /// in `values` (see `Template.render(_:into:settingAside:)`).
  func htmlBytes(from text: [UInt8], values: SetAsideValues) -> [UInt8] {
    text.withUnsafeBufferPointer { htmlBytes(from: $0, values: values) }
  }

  /// The HTML of a render whose text is in `text` (a render buffer's bytes); see
  /// `htmlBytes(from:values:)`.
  func htmlBytes(from text: UnsafeBufferPointer<UInt8>, values: SetAsideValues) -> [UInt8] {
    guard enabled.load(ordering: .relaxed), values.count <= Self.maximumValues else {
      direct.add(1, ordering: .relaxed)
      return Markdown.htmlBytes(from: values.escaped(into: Array(text)), options: options)
    }
    let hash = Self.hash(text, places: values.places)
    let found = shapes.withLock { shapes in
      shapes.first { $0.hash == hash && $0.matches(text, values) }
    }
    if let known = found {
      if let shape = known.shape, let html = shape.fill(values) {
        reused.add(1, ordering: .relaxed)
        return html
      }
      direct.add(1, ordering: .relaxed)
      return Markdown.htmlBytes(from: values.escaped(into: Array(text)), options: options)
    }
    let copy = Array(text)
    let known = learn(copy, values: values, hash: hash)
    let tried = learned.add(1, ordering: .relaxed).newValue
    if tried >= Self.trial, reused.load(ordering: .relaxed) < tried {
      enabled.store(false, ordering: .relaxed)
    }
    // The page that met the shape takes it like any other.
    if let shape = known.shape, let html = shape.fill(values) { return html }
    return Markdown.htmlBytes(from: values.escaped(into: copy), options: options)
  }

  /// Works out the shape of the template text `text` with values at `values.places`, and
  /// keeps it.
  ///
  /// What is kept depends on the text and the places alone, never on the values of the page
  /// that met the shape first: the shape is checked against cmark with stand-in values (a
  /// letter each), so whichever thread or page learns a shape, it is the same shape, and which
  /// pages take it depends only on their own values (`Shape.fill`).
  private func learn(_ text: [UInt8], values: SetAsideValues, hash: UInt64) -> Known {
    var shape: [UInt8] = []
    shape.reserveCapacity(text.count + values.count * (Self.tokenPrefix.count + Self.tokenDigits))
    var standIns = SetAsideValues(escaping: .markdown)
    var copied = 0
    for index in 0..<values.count {
      shape.append(contentsOf: text[copied..<values.places[index]])
      copied = values.places[index]
      Self.appendToken(index, to: &shape)
      Self.standIn.withUnsafeBufferPointer { standIns.append($0, at: values.places[index]) }
    }
    shape.append(contentsOf: text[copied...])
    var shaped = Shape(shape, holes: values.count, options: options)
    // The shape must give what cmark gives; if it does not, it is not tried again.
    if let candidate = shaped,
      candidate.fill(standIns)
        != Markdown.htmlBytes(from: standIns.escaped(into: text), options: options)
    {
      shaped = nil
    }
    let known = Known(hash: hash, text: text, places: values.places, shape: shaped)
    shapes.withLock { shapes in
      // Another thread may have learned the same shape meanwhile: it is the same.
      let isNew = !shapes.contains {
        $0.hash == hash && $0.text == text && $0.places == known.places
      }
      if isNew, shapes.count < Self.capacity { shapes.append(known) }
    }
    return known
  }

  /// What stands for each value when a shape is checked: a letter, which any place takes.
  static let standIn: [UInt8] = Array("a".utf8)

  // MARK: - Shapes

  /// A hash of a render's template text and the places of its values.
  static func hash(_ text: [UInt8], places: [Int]) -> UInt64 {
    text.withUnsafeBufferPointer { hash($0, places: places) }
  }

  /// A hash of a render's template text and the places of its values.
  static func hash(_ text: UnsafeBufferPointer<UInt8>, places: [Int]) -> UInt64 {
    var hash = 0x9E37_79B9_7F4A_7C15 ^ UInt64(text.count)
    for place in places { hash = mix(hash ^ UInt64(place)) }
    let raw = UnsafeRawBufferPointer(text)
    var index = 0
    while index + 8 <= raw.count {
      hash = mix(hash ^ raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      index += 8
    }
    var tail: UInt64 = 0
    while index < raw.count {
      tail = tail << 8 | UInt64(raw[index])
      index += 1
    }
    return mix(hash ^ tail)
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

  /// A set of ASCII bytes, one bit each.
  struct ASCIISet {
    let low: UInt64
    let high: UInt64

    /// `0`-`9`, `A`-`Z`, `a`-`z`.
    static let letterOrDigit = ASCIISet(low: 0x03FF_0000_0000_0000, high: 0x07FF_FFFE_07FF_FFFE)
    /// What text shows as it is: printable ASCII but `"`, `&`, `<`, `>` (which HTML writes as
    /// references) and the backtick (which a value may not have).
    static let textAsIs = ASCIISet(low: 0xAFFF_FFBB_0000_0000, high: 0x7FFF_FFFE_FFFF_FFFF)
    /// Letters, digits and `-._~/#?=%+`: what a link destination may have, which cmark writes
    /// as it is.
    static let destination = ASCIISet(low: 0xA3FF_E828_0000_0000, high: 0x47FF_FFFE_87FF_FFFE)

    @inline(__always)
    func contains(_ byte: UInt8) -> Bool {
      if byte < 64 { return low >> byte & 1 != 0 }
      if byte < 128 { return high >> (byte &- 64) & 1 != 0 }
      return false
    }
  }
}
