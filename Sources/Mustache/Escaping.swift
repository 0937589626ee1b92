/// How `{{name}}` escapes the text it inserts. `{{{name}}}` and `{{& name}}` never escape.
public enum Escaping: Sendable, Equatable {
  /// HTML: `&`, `<`, `>`, `"` and `'` become character references, as the spec asks
  /// (`'` too, so values are safe in single-quoted attributes). Code points HTML forbids in a
  /// document (control characters, noncharacters) become visible symbols; see
  /// ``forbidden(_:at:)``.
  case html
  /// Markdown for cmark: every ASCII punctuation character is backslash-escaped, a line break
  /// (`\n`, `\r\n` or `\r`) becomes a hard line break, and spaces and tabs at the start or end
  /// of a line become character references, so a value never starts a block, never becomes
  /// markup and keeps its spaces. Line breaks at the very end of a value are dropped: CommonMark
  /// cannot end a paragraph with a hard break, and would show a stray backslash. Control
  /// characters and noncharacters become visible symbols, as with `html`.
  case markdown
  /// Inserts text as it is.
  case none

  /// The escaping for a template file: Markdown for `.md` and `.markdown`, HTML for anything
  /// else.
  public init(forPath path: String) {
    let name = path.utf8.split(separator: UInt8(ascii: "/")).last.map { Array($0) } ?? []
    guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0 else {
      self = .html
      return
    }
    let suffix = String(decoding: name[(dot + 1)...], as: UTF8.self).lowercased()
    self = suffix == "md" || suffix == "markdown" ? .markdown : .html
  }

  /// Returns `text` escaped.
  public func escape(_ text: String) -> String {
    var output: [UInt8] = []
    append(text, to: &output)
    return String(decoding: output, as: UTF8.self)
  }

  /// Appends `text`, escaped, to `output`.
  public func append(_ text: String, to output: inout [UInt8]) {
    appendEscaped(text, to: &output)
  }

  /// Appends `text`, escaped, to `output`.
  func appendEscaped<Sink: ByteSink & ~Copyable>(_ text: String, to output: inout Sink) {
    // A native string lends its UTF-8 without a copy of the string.
    let appended: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
      append(bytes, to: &output)
    }
    if appended != nil { return }
    var text = text
    text.withUTF8 { bytes in append(bytes, to: &output) }
  }

  /// Appends UTF-8 `bytes`, escaped, to `output`.
  func append<Sink: ByteSink & ~Copyable>(
    _ bytes: UnsafeBufferPointer<UInt8>, to output: inout Sink
  ) {
    switch self {
    case .none: output.append(contentsOf: bytes)
    case .html: Self.appendHTML(bytes, to: &output)
    case .markdown: Self.appendMarkdown(bytes, to: &output)
    }
  }

  // MARK: - HTML

  static func appendHTML<Sink: ByteSink & ~Copyable>(
    _ bytes: UnsafeBufferPointer<UInt8>, to output: inout Sink
  ) {
    var runStart = 0
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if !mayNeedHTMLEscape(byte) {
        index += 1
        continue
      }
      let replacement: StaticString
      switch byte {
      case UInt8(ascii: "&"): replacement = "&amp;"
      case UInt8(ascii: "<"): replacement = "&lt;"
      case UInt8(ascii: ">"): replacement = "&gt;"
      case UInt8(ascii: "\""): replacement = "&quot;"
      case UInt8(ascii: "'"): replacement = "&#39;"
      default:
        guard let (length, visible) = forbidden(bytes, at: index) else {
          index += 1
          continue
        }
        if runStart < index {
          output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
        }
        visible.withUnsafeBufferPointer { output.append(contentsOf: $0) }
        // What follows the first byte of a forbidden sequence is continuation bytes, which
        // need no escape.
        index += length
        runStart = index
        continue
      }
      if runStart < index {
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
      }
      output.append(
        contentsOf: UnsafeBufferPointer(
          start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
      index += 1
      runStart = index
    }
    if runStart < bytes.count {
      output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
    }
  }

  /// Whether HTML escaping may replace `byte`: a markup character, or the first byte of a code
  /// point HTML may forbid (see ``forbidden(_:at:)``). Every other byte is copied as it is.
  @inline(__always)
  static func mayNeedHTMLEscape(_ byte: UInt8) -> Bool {
    // One bit per ASCII byte: controls but tab, line feed, form feed and carriage return;
    // `"`, `&`, `'`, `<`, `>`; DEL.
    let low: UInt64 = 0x5000_00C4_FFFF_C9FF
    let high: UInt64 = 0x8000_0000_0000_0000
    if byte < 0x40 { return low >> byte & 1 != 0 }
    if byte < 0x80 { return high >> (byte - 0x40) & 1 != 0 }
    return byte == 0xC2 || (0xEF...0xF4).contains(byte)
  }

  // MARK: - Markdown

  static func appendMarkdown<Sink: ByteSink & ~Copyable>(
    _ bytes: UnsafeBufferPointer<UInt8>, to output: inout Sink
  ) {
    var end = bytes.count
    while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
    var index = 0
    var atLineStart = true
    while index < end {
      // Letters, digits and most of UTF-8 need no escape: copy a run of them at once, with the
      // single spaces and tabs between them (not at the start of a line, not at its end).
      var runEnd = index
      while runEnd < end {
        let byte = bytes[runEnd]
        if isPlainMarkdown(byte) {
          runEnd += 1
        } else if byte == 0x20 || byte == 0x09, runEnd > index || !atLineStart,
          runEnd + 1 < end, isPlainMarkdown(bytes[runEnd + 1])
        {
          runEnd += 2
        } else {
          break
        }
      }
      if runEnd > index {
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<runEnd]))
        index = runEnd
        atLineStart = false
        continue
      }
      let byte = bytes[index]
      switch byte {
      case 0x0A, 0x0D:
        // `\` then a line ending is a hard line break; the next line continues the paragraph.
        output.append(UInt8(ascii: "\\"))
        output.append(0x0A)
        index += byte == 0x0D && index + 1 < end && bytes[index + 1] == 0x0A ? 2 : 1
        atLineStart = true
      case 0x20, 0x09:
        var runEnd = index
        while runEnd < end, bytes[runEnd] == 0x20 || bytes[runEnd] == 0x09 { runEnd += 1 }
        // cmark strips spaces at the start and end of a line (and four start a code block).
        let atLineEnd = runEnd == end || bytes[runEnd] == 0x0A || bytes[runEnd] == 0x0D
        for position in index..<runEnd {
          if atLineStart || atLineEnd {
            appendReference(bytes[position], to: &output)
          } else {
            output.append(bytes[position])
          }
        }
        index = runEnd
        atLineStart = false
      case 0x00:
        // cmark would replace NUL with U+FFFD anyway; say so explicitly.
        appendDecimal("&#65533;", to: &output)
        index += 1
        atLineStart = false
      case 0x0C:
        appendReference(byte, to: &output)
        index += 1
        atLineStart = false
      case 0x01..<0x20, 0x7F, 0xC2, 0xEF...0xF4:
        if let (length, visible) = forbidden(bytes, at: index) {
          visible.withUnsafeBufferPointer { output.append(contentsOf: $0) }
          index += length
        } else {
          output.append(byte)
          index += 1
        }
        atLineStart = false
      case 0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E:
        output.append(UInt8(ascii: "\\"))
        output.append(byte)
        index += 1
        atLineStart = false
      default:
        output.append(byte)
        index += 1
        atLineStart = false
      }
    }
  }

  /// Whether Markdown escaping copies `byte` as it is, whatever surrounds it: ASCII letters
  /// and digits, and UTF-8 bytes that cannot start a forbidden code point.
  @inline(__always)
  static func isPlainMarkdown(_ byte: UInt8) -> Bool {
    // One bit per ASCII byte: `0`-`9`, `A`-`Z`, `a`-`z`.
    let low: UInt64 = 0x03FF_0000_0000_0000
    let high: UInt64 = 0x07FF_FFFE_07FF_FFFE
    if byte < 0x40 { return low >> byte & 1 != 0 }
    if byte < 0x80 { return high >> (byte - 0x40) & 1 != 0 }
    return byte != 0xC2 && !(0xEF...0xF4).contains(byte)
  }

  // MARK: - Code points HTML forbids

  /// The UTF-8 sequence at `index` when it is a code point HTML forbids in a document (a C0
  /// control but tab, line feed, form feed and carriage return; DEL; a C1 control; a
  /// noncharacter): its length and what to show instead. Even as a character reference such a
  /// code point makes the page invalid, so it becomes its Control Pictures symbol (`␇` for
  /// BEL, `␡` for DEL), which keeps it visible, or U+FFFD where Unicode has no symbol for it.
  static func forbidden(
    _ bytes: UnsafeBufferPointer<UInt8>, at index: Int
  ) -> (length: Int, replacement: [UInt8])? {
    let byte = bytes[index]
    func next(_ offset: Int) -> UInt8? {
      index + offset < bytes.count ? bytes[index + offset] : nil
    }
    let replacementCharacter: [UInt8] = [0xEF, 0xBF, 0xBD]
    switch byte {
    case 0x00: return (1, replacementCharacter)
    case 0x01...0x08, 0x0B, 0x0E...0x1F: return (1, [0xE2, 0x90, 0x80 + byte])
    case 0x7F: return (1, [0xE2, 0x90, 0xA1])
    case 0xC2:
      // U+0080...U+009F
      guard let second = next(1), (0x80...0x9F).contains(second) else { return nil }
      return (2, replacementCharacter)
    case 0xEF:
      // U+FDD0...U+FDEF, U+FFFE, U+FFFF
      guard let second = next(1), let third = next(2) else { return nil }
      let isNoncharacter =
        (second == 0xB7 && (0x90...0xAF).contains(third))
        || (second == 0xBF && (third == 0xBE || third == 0xBF))
      return isNoncharacter ? (3, replacementCharacter) : nil
    case 0xF0...0xF4:
      // U+1FFFE, U+1FFFF, ... U+10FFFF: the last two code points of every plane.
      guard let second = next(1), let third = next(2), let fourth = next(3) else { return nil }
      let isNoncharacter =
        second & 0x0F == 0x0F && third == 0xBF && (fourth == 0xBE || fourth == 0xBF)
      return isNoncharacter ? (4, replacementCharacter) : nil
    default: return nil
    }
  }

  static func appendReference<Sink: ByteSink & ~Copyable>(_ byte: UInt8, to output: inout Sink) {
    output.append(UInt8(ascii: "&"))
    output.append(UInt8(ascii: "#"))
    if byte >= 100 { output.append(UInt8(ascii: "0") + byte / 100) }
    if byte >= 10 { output.append(UInt8(ascii: "0") + byte / 10 % 10) }
    output.append(UInt8(ascii: "0") + byte % 10)
    output.append(UInt8(ascii: ";"))
  }

  static func appendDecimal<Sink: ByteSink & ~Copyable>(
    _ text: StaticString, to output: inout Sink
  ) {
    output.append(
      contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }
}
