import CCmark
import Mustache

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The HTML of a Markdown shape (see `MarkdownSharing`), cut where its values go.
struct Shape {
  /// How a value's text is written where its token was.
  enum Place: UInt8 {
    /// Text: backslash escapes dropped, `&`, `<`, `>`, `"` as character references.
    case text
    /// A link destination (`href` or `src`): backslash escapes dropped, nothing else changed.
    case destination
  }

  /// What the template around a value asks of its first and last character.
  struct Rules: OptionSet {
    let rawValue: UInt8
    /// Starts with a letter or digit (the template has `*`, `_` or `\` before it).
    static let wordStart = Rules(rawValue: 1)
    /// Ends with a letter or digit (the template has `*` or `_` after it).
    static let wordEnd = Rules(rawValue: 2)
    /// Does not end with an ASCII digit (the template has `.` or `)` after it, or digits and
    /// then one of them).
    static let noDigitEnd = Rules(rawValue: 4)
  }

  struct Piece {
    /// Where the HTML before the value ends in `html`.
    var end: Int
    var hole: Int
    var place: Place
  }

  /// The HTML without the tokens.
  let html: [UInt8]
  /// Where each value goes, in order.
  let pieces: [Piece]
  /// The values with rules, and their rules.
  let edgeRules: [(hole: Int, rules: Rules)]
  let holes: Int

  /// The shape `shape` (with `holes` tokens) rendered and cut; nil when the template text
  /// could turn a value into markup, or a token is anywhere but in text or a link destination.
  init?(_ shape: [UInt8], holes: Int, options: Markdown.Options) {
    guard let rules = Self.rules(of: shape, holes: holes) else { return nil }
    var places: [(hole: Int, place: Place)] = []
    let rendered = Markdown.withDocument(shape, options: options) { document -> [UInt8]? in
      guard Self.places(in: document, into: &places),
        let html = cmark_render_html(document, options.rawValue)
      else {
        return nil
      }
      return Array(UnsafeRawBufferPointer(start: html, count: strlen(html)))
    }
    guard let rendered = rendered ?? nil else { return nil }
    // Every value must show (so that every value is checked as it is written).
    var shown = [Bool](repeating: false, count: holes)
    for (hole, _) in places where hole < holes { shown[hole] = true }
    guard !shown.contains(false) else { return nil }

    // Cut the HTML at its tokens, which must come in the order the tree gave them.
    var html: [UInt8] = []
    var pieces: [Piece] = []
    html.reserveCapacity(rendered.count)
    let tokenLength = MarkdownSharing.tokenPrefix.count + MarkdownSharing.tokenDigits
    let cut = rendered.withUnsafeBytes { rendered -> Bool in
      var index = 0
      var copied = 0
      while index < rendered.count {
        guard let hole = MarkdownSharing.token(in: rendered, at: index) else {
          index += 1
          continue
        }
        guard pieces.count < places.count, places[pieces.count].hole == hole else { return false }
        html.append(contentsOf: rendered[copied..<index])
        pieces.append(Piece(end: html.count, hole: hole, place: places[pieces.count].place))
        index += tokenLength
        copied = index
      }
      html.append(contentsOf: rendered[copied...])
      return pieces.count == places.count
    }
    guard cut else { return nil }
    self.html = html
    self.pieces = pieces
    self.holes = holes
    edgeRules = rules.enumerated().filter { !$0.element.isEmpty }.map { ($0.offset, $0.element) }
  }

  // MARK: - Filling

  /// The HTML of a page of this shape with `values`; nil when a value is not one this shape
  /// can stand for.
  func fill(_ values: SetAsideValues) -> [UInt8]? {
    guard values.count == holes else { return nil }
    return values.text.withUnsafeBufferPointer { text -> [UInt8]? in
      func value(_ hole: Int) -> UnsafeBufferPointer<UInt8> {
        let start = hole == 0 ? 0 : values.ends[hole - 1]
        return UnsafeBufferPointer(rebasing: text[start..<values.ends[hole]])
      }
      for (hole, rules) in edgeRules {
        guard Self.obeys(value(hole), rules) else { return nil }
      }
      var capacity = html.count
      for piece in pieces {
        // `"` becomes `&quot;`: at most six bytes for each byte of a value.
        capacity += 6 * value(piece.hole).count
      }
      var failed = false
      let filled = html.withUnsafeBufferPointer { html in
        [UInt8](unsafeUninitializedCapacity: capacity) { output, count in
          guard let start = output.baseAddress else {
            failed = !html.isEmpty || !pieces.isEmpty
            return
          }
          var out = start
          var copied = 0
          for piece in pieces {
            Self.copy(UnsafeBufferPointer(rebasing: html[copied..<piece.end]), to: &out)
            copied = piece.end
            guard let end = Self.write(value(piece.hole), place: piece.place, to: out) else {
              failed = true
              break
            }
            out = end
          }
          if !failed { Self.copy(UnsafeBufferPointer(rebasing: html[copied...]), to: &out) }
          count = out - start
        }
      }
      return failed ? nil : filled
    }
  }

  /// Whether a value (as the data gave it) is one a shape can stand for in text: not empty,
  /// no line break, tab, control character or backtick, no space at either end, and no code
  /// point that Markdown escaping replaces or cmark reads apart from the text around it (see
  /// `hasOnlyPlainCodePoints`). Escaped for Markdown it is the same with a backslash before
  /// each ASCII punctuation character, which cmark reads as the characters themselves.
  static func isPlain(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let first = value.first, let last = value.last, first != 0x20, last != 0x20 else {
      return false
    }
    for byte in value where byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "`") {
      return false
    }
    return hasOnlyPlainCodePoints(value)
  }

  /// Whether `value` has none of the code points that Markdown escaping replaces (a C1 control,
  /// a noncharacter) nor the byte order mark U+FEFF, which cmark drops at the start of a
  /// document: at the start of a page a value with one would not come out as its shape says.
  static func hasOnlyPlainCodePoints(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
    func byte(_ index: Int) -> UInt8? { index < value.count ? value[index] : nil }
    for index in value.indices {
      switch value[index] {
      case 0xC2:
        // U+0080...U+009F
        if let second = byte(index + 1), (0x80...0x9F).contains(second) { return false }
      case 0xEF:
        guard let second = byte(index + 1), let third = byte(index + 2) else { continue }
        // U+FEFF; U+FDD0...U+FDEF, U+FFFE, U+FFFF
        if second == 0xBB && third == 0xBF { return false }
        if second == 0xB7 && (0x90...0xAF).contains(third) { return false }
        if second == 0xBF && (third == 0xBE || third == 0xBF) { return false }
      case 0xF0...0xF4:
        // The last two code points of every plane.
        guard let second = byte(index + 1), let third = byte(index + 2),
          let fourth = byte(index + 3)
        else { continue }
        if second & 0x0F == 0x0F && third == 0xBF && (fourth == 0xBE || fourth == 0xBF) {
          return false
        }
      default:
        continue
      }
    }
    return true
  }

  /// Writes a value as cmark writes it where its token was (in text, `&`, `<`, `>`, `"` as
  /// references; in a link destination as it is) at `output`; returns where it ended, or nil
  /// when the value is not plain (see `isPlain`) or, in a link destination, has more than
  /// ASCII letters, digits and `-._~/#?=%+`.
  static func write(
    _ value: UnsafeBufferPointer<UInt8>, place: Place, to output: UnsafeMutablePointer<UInt8>
  ) -> UnsafeMutablePointer<UInt8>? {
    guard let start = value.baseAddress, let first = value.first, let last = value.last,
      first != 0x20, last != 0x20
    else {
      return nil
    }
    var out = output
    if place == .destination {
      for byte in value where !MarkdownSharing.ASCIISet.destination.contains(byte) { return nil }
      copy(value, to: &out)
      return out
    }
    var index = 0
    var run = 0
    var checked = false
    let raw = UnsafeRawBufferPointer(value)
    while index < value.count {
      // Eight bytes at a time while they are printable ASCII that text shows as it is.
      if index + 8 <= value.count,
        Self.isTextAsIs(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      {
        index += 8
        continue
      }
      let byte = value[index]
      if MarkdownSharing.ASCIISet.textAsIs.contains(byte) {
        index += 1
        continue
      }
      if byte >= 0x80 {
        // A code point Markdown escaping would replace, or a byte order mark, is not plain.
        if !checked, byte == 0xC2 || byte >= 0xEF {
          guard Self.hasOnlyPlainCodePoints(value) else { return nil }
          checked = true
        }
        index += 1
        continue
      }
      guard let reference = reference(for: byte) else { return nil }
      copy(UnsafeBufferPointer(start: start + run, count: index - run), to: &out)
      reference.withUTF8Buffer { copy($0, to: &out) }
      index += 1
      run = index
    }
    copy(UnsafeBufferPointer(start: start + run, count: index - run), to: &out)
    return out
  }

  /// Whether all eight bytes of `word` are printable ASCII but `"`, `&`, `<`, `>` and the
  /// backtick: those of `MarkdownSharing.ASCIISet.textAsIs`.
  @inline(__always)
  static func isTextAsIs(_ word: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    @inline(__always) func hasZero(_ value: UInt64) -> Bool {
      (value &- ones) & ~value & highs != 0
    }
    // No byte of 0x80 or more, none below 0x20 (space), none 0x7F.
    guard word & highs == 0, (word &- ones &* 0x20) & ~word & highs == 0,
      !hasZero(word ^ (ones &* 0x7F))
    else {
      return false
    }
    return !hasZero(word ^ (ones &* 0x22)) && !hasZero(word ^ (ones &* 0x26))
      && !hasZero(word ^ (ones &* 0x3C)) && !hasZero(word ^ (ones &* 0x3E))
      && !hasZero(word ^ (ones &* 0x60))
  }

  @inline(__always)
  private static func copy(
    _ bytes: UnsafeBufferPointer<UInt8>, to output: inout UnsafeMutablePointer<UInt8>
  ) {
    guard let start = bytes.baseAddress else { return }
    output.initialize(from: start, count: bytes.count)
    output += bytes.count
  }

  @inline(__always)
  private static func reference(for byte: UInt8) -> StaticString? {
    switch byte {
    case UInt8(ascii: "&"): "&amp;"
    case UInt8(ascii: "<"): "&lt;"
    case UInt8(ascii: ">"): "&gt;"
    case UInt8(ascii: "\""): "&quot;"
    default: nil
    }
  }

  static func obeys(_ value: UnsafeBufferPointer<UInt8>, _ rules: Rules) -> Bool {
    if rules.contains(.wordStart), !startsWithWord(value) { return false }
    if rules.contains(.wordEnd), !endsWithWord(value) { return false }
    if rules.contains(.noDigitEnd), let last = value.last, (0x30...0x39).contains(last) {
      return false
    }
    return true
  }

  /// Whether the first character is a letter or a digit (of any script): neither space nor
  /// punctuation to cmark's emphasis rules, as the token's `Q` is.
  static func startsWithWord(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let first = value.first else { return false }
    if first < 0x80 { return MarkdownSharing.ASCIISet.letterOrDigit.contains(first) }
    var end = 1
    while end < value.count, value[end] & 0xC0 == 0x80 { end += 1 }
    return isWord(UnsafeBufferPointer(rebasing: value[0..<end]))
  }

  /// Whether the last character is a letter or a digit, as the token's last digit is.
  static func endsWithWord(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let last = value.last else { return false }
    if last < 0x80 { return MarkdownSharing.ASCIISet.letterOrDigit.contains(last) }
    var start = value.count - 1
    while start > 0, value[start] & 0xC0 == 0x80 { start -= 1 }
    return isWord(UnsafeBufferPointer(rebasing: value[start...]))
  }

  private static func isWord(_ scalarBytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var decoder = UTF8()
    var iterator = scalarBytes.makeIterator()
    guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return false }
    switch scalar.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
      .decimalNumber, .letterNumber, .otherNumber:
      return true
    default:
      return false
    }
  }

  // MARK: - Reading the shape

  /// What the template text around each token asks of its value; nil when the text could turn
  /// a value into markup (raw HTML, a character reference, a link reference definition) or the
  /// tokens are not the values', in order.
  static func rules(of shape: [UInt8], holes: Int) -> [Rules]? {
    var rules = [Rules](repeating: [], count: holes)
    let tokenLength = MarkdownSharing.tokenPrefix.count + MarkdownSharing.tokenDigits
    return shape.withUnsafeBytes { shape -> [Rules]? in
      var found = 0
      var index = 0
      while index < shape.count {
        let byte = shape[index]
        if byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&") { return nil }
        if byte == UInt8(ascii: "]"), index + 1 < shape.count,
          shape[index + 1] == UInt8(ascii: ":")
        {
          return nil
        }
        guard let hole = MarkdownSharing.token(in: shape, at: index) else {
          index += 1
          continue
        }
        guard hole == found else { return nil }
        if index > 0, "*_\\".utf8.contains(shape[index - 1]) { rules[hole].insert(.wordStart) }
        let after = index + tokenLength
        if after < shape.count, "*_".utf8.contains(shape[after]) {
          rules[hole].insert(.wordEnd)
        }
        // Digits of the value and of the template after it could end in an ordered list's
        // `1.` or `1)`.
        var digitsEnd = after
        while digitsEnd < shape.count, (0x30...0x39).contains(shape[digitsEnd]) { digitsEnd += 1 }
        if digitsEnd < shape.count, ".)".utf8.contains(shape[digitsEnd]) {
          rules[hole].insert(.noDigitEnd)
        }
        found += 1
        index = after
      }
      return found == holes ? rules : nil
    }
  }

  /// Walks the tree in the order the HTML renderer writes it, noting each token in text or a
  /// link destination; false when a token is anywhere else.
  private static func places(
    in document: OpaquePointer, into places: inout [(hole: Int, place: Place)]
  ) -> Bool {
    guard let iterator = cmark_iter_new(document) else { return false }
    defer { cmark_iter_free(iterator) }
    while true {
      let event = cmark_iter_next(iterator)
      if event == CMARK_EVENT_DONE { return true }
      guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
      switch cmark_node_get_type(node) {
      case CMARK_NODE_TEXT:
        for hole in tokens(in: cmark_node_get_literal(node)) { places.append((hole, .text)) }
      case CMARK_NODE_LINK, CMARK_NODE_IMAGE:
        let destination = tokens(in: cmark_node_get_url(node))
        // cmark drops a destination with a dangerous scheme: with no `:` there is none.
        if !destination.isEmpty,
          let url = cmark_node_get_url(node), strchr(url, Int32(UInt8(ascii: ":"))) != nil
        {
          return false
        }
        for hole in destination { places.append((hole, .destination)) }
        guard tokens(in: cmark_node_get_title(node)).isEmpty else { return false }
      default:
        for text in [
          cmark_node_get_literal(node), cmark_node_get_fence_info(node),
          cmark_node_get_on_enter(node), cmark_node_get_on_exit(node),
        ] where !tokens(in: text).isEmpty {
          return false
        }
      }
    }
  }

  /// The tokens in a C string, in order.
  private static func tokens(in text: UnsafePointer<CChar>?) -> [Int] {
    guard let text else { return [] }
    let bytes = UnsafeRawBufferPointer(start: text, count: strlen(text))
    var found: [Int] = []
    var index = 0
    while index < bytes.count {
      if let hole = MarkdownSharing.token(in: bytes, at: index) {
        found.append(hole)
        index += MarkdownSharing.tokenPrefix.count + MarkdownSharing.tokenDigits
      } else {
        index += 1
      }
    }
    return found
  }
}
