/// A small HTML tokenizer for checking built pages: start and end tags with their attributes,
/// comments, doctypes and text, with character references decoded.
///
/// It follows the HTML tokenizer closely enough for pages a template engine writes, and it is
/// strict where a browser is lenient: anything it does not understand (a `<` that starts no
/// tag, an unknown named reference, an unclosed comment) is reported as a problem instead of
/// being guessed at, so a page that slips past it cannot be hiding markup.
struct HTMLTokenizer {
  enum Token: Equatable {
    case doctype(String)
    /// A start tag: lower-cased name, attributes in source order (lower-cased names, decoded
    /// values), and whether it ended with `/>`.
    case start(name: String, attributes: [Attribute], selfClosing: Bool)
    case end(name: String)
    case comment(String)
    /// Text with character references decoded.
    case text(String)
  }

  struct Attribute: Equatable {
    var name: String
    var value: String
  }

  /// Elements whose content is raw text up to their end tag.
  static let rawTextElements: Set<String> = ["script", "style", "textarea", "title"]

  /// The named character references taskpress and cmark write, and a few common ones.
  static let namedReferences: [String: String] = [
    "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
  ]

  private(set) var tokens: [Token] = []
  /// Problems found while reading; empty for a page taskpress wrote.
  private(set) var problems: [String] = []

  /// The text of every text token, joined.
  var text: String {
    tokens.reduce(into: "") { result, token in
      if case .text(let part) = token { result += part }
    }
  }

  private let scalars: [Unicode.Scalar]
  private var index = 0

  init(_ html: String) {
    scalars = Array(html.unicodeScalars)
    for (offset, scalar) in scalars.enumerated() where Self.isForbidden(scalar) {
      problems.append(
        "the code point U+\(String(scalar.value, radix: 16, uppercase: true)) at offset \(offset)")
    }
    run()
  }

  /// Code points a document may not contain, even as references: controls but ASCII
  /// whitespace, and noncharacters.
  static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x09, 0x0A, 0x0C, 0x0D: false
    case 0x00...0x1F, 0x7F...0x9F, 0xFDD0...0xFDEF: true
    default: scalar.value & 0xFFFE == 0xFFFE
    }
  }

  // MARK: - States

  private mutating func run() {
    var text = ""
    func flush(_ text: inout String, _ tokens: inout [Token]) {
      if !text.isEmpty { tokens.append(.text(text)) }
      text = ""
    }
    while index < scalars.count {
      let scalar = scalars[index]
      if scalar == "<" {
        let next = peek(1)
        if next.map(isASCIILetter) == true {
          flush(&text, &tokens)
          startTag()
          continue
        }
        if next == "/" {
          flush(&text, &tokens)
          endTag()
          continue
        }
        if next == "!" {
          flush(&text, &tokens)
          markupDeclaration()
          continue
        }
        problem("a '<' that starts no tag")
        text.unicodeScalars.append(scalar)
        index += 1
      } else if scalar == "&" {
        text += characterReference(inAttribute: false)
      } else {
        text.unicodeScalars.append(scalar)
        index += 1
      }
    }
    flush(&text, &tokens)
  }

  private mutating func startTag() {
    index += 1  // <
    let name = readName()
    var attributes: [Attribute] = []
    var selfClosing = false
    while true {
      skipWhitespace()
      guard let scalar = current else {
        problem("the tag <\(name)> is not closed")
        return
      }
      if scalar == ">" {
        index += 1
        break
      }
      if scalar == "/" && peek(1) == ">" {
        index += 2
        selfClosing = true
        break
      }
      if scalar == "/" || scalar == "\"" || scalar == "'" || scalar == "<" || scalar == "=" {
        problem("unexpected '\(scalar)' in the tag <\(name)>")
        index += 1
        continue
      }
      let attributeName = readAttributeName()
      skipWhitespace()
      var value = ""
      if current == "=" {
        index += 1
        skipWhitespace()
        value = readAttributeValue(in: name)
      }
      if attributes.contains(where: { $0.name == attributeName }) {
        problem("the attribute '\(attributeName)' appears twice in <\(name)>")
      }
      attributes.append(Attribute(name: attributeName, value: value))
    }
    tokens.append(.start(name: name, attributes: attributes, selfClosing: selfClosing))
    if Self.rawTextElements.contains(name) && !selfClosing {
      rawText(until: name)
    }
  }

  private mutating func endTag() {
    index += 2  // </
    guard current.map(isASCIILetter) == true else {
      problem("'</' not followed by a tag name")
      skip(past: ">")
      return
    }
    let name = readName()
    skipWhitespace()
    if current != ">" {
      problem("the end tag </\(name)> has more than its name")
    }
    skip(past: ">")
    tokens.append(.end(name: name))
  }

  private mutating func markupDeclaration() {
    if starts(with: "<!--") {
      index += 4
      guard let end = find("-->") else {
        problem("a comment is not closed")
        tokens.append(.comment(String(String.UnicodeScalarView(scalars[index...]))))
        index = scalars.count
        return
      }
      tokens.append(.comment(String(String.UnicodeScalarView(scalars[index..<end]))))
      index = end + 3
      return
    }
    if starts(with: "<!doctype", caseInsensitive: true) {
      index += 2
      let start = index
      skip(past: ">")
      tokens.append(.doctype(String(String.UnicodeScalarView(scalars[start..<(index - 1)]))))
      return
    }
    // `<![CDATA[` and other `<!` are bogus comments in HTML.
    problem("a bogus comment ('<!' that is neither a comment nor a doctype)")
    index += 2
    let start = index
    skip(past: ">")
    tokens.append(
      .comment(String(String.UnicodeScalarView(scalars[start..<max(start, index - 1)]))))
  }

  private mutating func rawText(until name: String) {
    let start = index
    while index < scalars.count {
      if scalars[index] == "<", peek(1) == "/",
        starts(with: "</" + name, caseInsensitive: true, at: index)
      {
        let after = index + 2 + name.unicodeScalars.count
        if after >= scalars.count
          || [">", "/", " ", "\t", "\n", "\u{C}", "\r"].contains(scalars[after])
        {
          break
        }
      }
      index += 1
    }
    let raw = String(String.UnicodeScalarView(scalars[start..<index]))
    guard !raw.isEmpty else { return }
    if name == "title" || name == "textarea" {
      // Escapable raw text: references are decoded, and no tags can start in it.
      let inner = HTMLTokenizer(raw)
      problems += inner.problems.map { "in <\(name)>: \($0)" }
      tokens.append(.text(inner.text))
    } else {
      tokens.append(.text(raw))
    }
  }

  // MARK: - Pieces

  private mutating func readName() -> String {
    var name = ""
    while let scalar = current, !isWhitespace(scalar), scalar != "/", scalar != ">" {
      name.unicodeScalars.append(lowercased(scalar))
      index += 1
    }
    return name
  }

  private mutating func readAttributeName() -> String {
    var name = ""
    while let scalar = current, !isWhitespace(scalar), scalar != "/", scalar != ">",
      scalar != "="
    {
      if scalar == "\"" || scalar == "'" || scalar == "<" {
        problem("'\(scalar)' in an attribute name")
      }
      name.unicodeScalars.append(lowercased(scalar))
      index += 1
    }
    return name
  }

  private mutating func readAttributeValue(in tag: String) -> String {
    var value = ""
    if let quote = current, quote == "\"" || quote == "'" {
      index += 1
      while let scalar = current, scalar != quote {
        if scalar == "&" {
          value += characterReference(inAttribute: true)
        } else {
          value.unicodeScalars.append(scalar)
          index += 1
        }
      }
      if current == nil {
        problem("an attribute value in <\(tag)> is not closed")
      }
      index += 1
      if let scalar = current, !isWhitespace(scalar), scalar != ">", scalar != "/" {
        problem("no space after an attribute value in <\(tag)>")
      }
      return value
    }
    while let scalar = current, !isWhitespace(scalar), scalar != ">" {
      if ["\"", "'", "<", "=", "`"].contains(scalar) {
        problem("'\(scalar)' in an unquoted attribute value in <\(tag)>")
      }
      if scalar == "&" {
        value += characterReference(inAttribute: true)
      } else {
        value.unicodeScalars.append(scalar)
        index += 1
      }
    }
    return value
  }

  /// Reads the reference at `index` (which is at `&`) and returns what it stands for.
  private mutating func characterReference(inAttribute: Bool) -> String {
    let start = index
    index += 1
    if current == "#" {
      index += 1
      var radix = 10
      if current == "x" || current == "X" {
        radix = 16
        index += 1
      }
      var digits = ""
      while let scalar = current, scalar.properties.isASCIIHexDigit,
        radix == 16 || ("0"..."9").contains(scalar)
      {
        digits.unicodeScalars.append(scalar)
        index += 1
      }
      guard !digits.isEmpty, current == ";", let value = UInt32(digits, radix: radix) else {
        problem("a malformed numeric character reference")
        index = start + 1
        return "&"
      }
      index += 1
      guard value != 0, let decoded = Unicode.Scalar(value), !Self.isForbidden(decoded) else {
        problem("the numeric reference &#\(digits); is not a character")
        return "\u{FFFD}"
      }
      return String(Character(decoded))
    }
    var name = ""
    while let scalar = current, scalar.isASCII,
      scalar.properties.isAlphabetic
        || ("0"..."9").contains(scalar)
    {
      name.unicodeScalars.append(scalar)
      index += 1
    }
    if name.isEmpty {
      // A lone `&` is text in HTML; taskpress and cmark never write one.
      problem("an unescaped '&'")
      return "&"
    }
    guard current == ";", let decoded = Self.namedReferences[name] else {
      problem("an unknown or unterminated character reference '&\(name)'")
      index = start + 1
      return "&"
    }
    index += 1
    return decoded
  }

  // MARK: - Scanning

  private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

  private func peek(_ offset: Int) -> Unicode.Scalar? {
    index + offset < scalars.count ? scalars[index + offset] : nil
  }

  private func starts(
    with prefix: String, caseInsensitive: Bool = false, at position: Int? = nil
  ) -> Bool {
    var position = position ?? index
    for expected in prefix.unicodeScalars {
      guard position < scalars.count else { return false }
      let actual = caseInsensitive ? lowercased(scalars[position]) : scalars[position]
      if actual != expected { return false }
      position += 1
    }
    return true
  }

  private func find(_ needle: String) -> Int? {
    var position = index
    while position < scalars.count {
      if starts(with: needle, at: position) { return position }
      position += 1
    }
    return nil
  }

  private mutating func skip(past terminator: Unicode.Scalar) {
    while let scalar = current {
      index += 1
      if scalar == terminator { return }
    }
  }

  private mutating func skipWhitespace() {
    while let scalar = current, isWhitespace(scalar) { index += 1 }
  }

  private mutating func problem(_ message: String) {
    problems.append("\(message) at offset \(index)")
  }

  private func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
    scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{C}"
  }

  private func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
  }

  private func lowercased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
    ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32) ?? scalar : scalar
  }
}
