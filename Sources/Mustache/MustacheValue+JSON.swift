/// JSON text that ``MustacheValue/init(json:)`` could not read.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong, e.g. `expected ':' after an object key`.
  public var message: String
  /// The 1-based line of the offending character.
  public var line: Int
  /// The 1-based column (in Unicode scalars) of the offending character.
  public var column: Int

  public var description: String { "line \(line), column \(column): \(message)" }
}

extension MustacheValue {
  /// Parses JSON text (RFC 8259). Integers that fit in 64 bits become ``int(_:)``; numbers with
  /// a fraction or exponent become ``double(_:)``; `true`/`false` are always ``bool(_:)``.
  ///
  /// - Throws: ``JSONError`` naming the line and column of the first mistake.
  public init(json: String) throws(JSONError) {
    self = try JSONElement(jsonBytes: Array(json.utf8)).mustacheValue
  }

  /// Parses JSON from UTF-8 bytes; see ``init(json:)``.
  public init(jsonBytes: [UInt8]) throws(JSONError) {
    self = try JSONElement(jsonBytes: jsonBytes).mustacheValue
  }
}

/// A JSON value with the line and column it starts at, and its objects' keys in order with
/// theirs: for a tool that reports a mistake in a JSON file where it is (a config file, a
/// table of labels). ``MustacheValue/init(json:)`` reads JSON through it.
public struct JSONElement: Sendable, Equatable {
  /// A JSON value.
  public indirect enum Value: Sendable, Equatable {
    case null
    case bool(Bool)
    /// An integer that fits in 64 bits.
    case int(Int64)
    /// A number with a fraction or an exponent, or too large for 64 bits.
    case double(Double)
    case string(String)
    case array([JSONElement])
    /// The members in the order the text has them, a repeated key included.
    case object([Member])
  }

  /// One `"key": value` of an object.
  public struct Member: Sendable, Equatable {
    public var key: String
    /// Where the key's opening quote is.
    public var line: Int
    public var column: Int
    public var value: JSONElement
  }

  public var value: Value
  /// The 1-based line where the value starts.
  public var line: Int
  /// The 1-based column (in Unicode scalars) where the value starts.
  public var column: Int

  /// Parses JSON from UTF-8 bytes (RFC 8259; a leading byte-order mark is skipped).
  ///
  /// - Throws: ``JSONError`` naming the line and column of the first mistake.
  public init(jsonBytes: [UInt8]) throws(JSONError) {
    var parser = JSONParser(bytes: jsonBytes)
    self = try parser.parseDocument()
  }

  init(value: Value, line: Int, column: Int) {
    self.value = value
    self.line = line
    self.column = column
  }

  /// The value as template data: an object's later member wins over an earlier one of the
  /// same key.
  public var mustacheValue: MustacheValue {
    switch value {
    case .null: .null
    case .bool(let flag): .bool(flag)
    case .int(let number): .int(number)
    case .double(let number): .double(number)
    case .string(let text): .string(text)
    case .array(let elements): .array(elements.map(\.mustacheValue))
    case .object(let members):
      .object(
        Dictionary(members.map { ($0.key, $0.value.mustacheValue) }, uniquingKeysWith: { $1 }))
    }
  }
}

/// A recursive-descent JSON reader over UTF-8 bytes.
private struct JSONParser {
  let bytes: [UInt8]
  var position = 0
  var depth = 0
  /// The line of `position` and where that line starts: line breaks are only ever skipped as
  /// whitespace (a string cannot hold one), so they are counted there.
  var line = 1
  var lineStart = 0
  /// Deeper documents are rejected rather than risking the stack.
  static let maximumDepth = 512

  init(bytes: [UInt8]) {
    self.bytes = bytes
    // A byte-order mark is not JSON, but editors write it.
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
      position = 3
      lineStart = 3
    }
  }

  mutating func parseDocument() throws(JSONError) -> JSONElement {
    skipWhitespace()
    let value = try parseValue()
    skipWhitespace()
    if position < bytes.count {
      throw error("unexpected \(describeCurrent()) after the end of the document")
    }
    return value
  }

  /// The line and column of `position`.
  func place() -> (line: Int, column: Int) {
    var column = 1
    var index = lineStart
    while index < position && index < bytes.count {
      if bytes[index] & 0xC0 != 0x80 { column += 1 }
      index += 1
    }
    return (line, column)
  }

  mutating func parseValue() throws(JSONError) -> JSONElement {
    guard position < bytes.count else { throw error("unexpected end of input") }
    let (line, column) = place()
    let value: JSONElement.Value
    switch bytes[position] {
    case UInt8(ascii: "{"): value = try parseObject()
    case UInt8(ascii: "["): value = try parseArray()
    case UInt8(ascii: "\""): value = .string(try parseString())
    case UInt8(ascii: "t"):
      try expectWord("true")
      value = .bool(true)
    case UInt8(ascii: "f"):
      try expectWord("false")
      value = .bool(false)
    case UInt8(ascii: "n"):
      try expectWord("null")
      value = .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = try parseNumber()
    default: throw error("unexpected \(describeCurrent())")
    }
    return JSONElement(value: value, line: line, column: column)
  }

  mutating func parseObject() throws(JSONError) -> JSONElement.Value {
    try enter()
    position += 1
    var members: [JSONElement.Member] = []
    skipWhitespace()
    if peek() == UInt8(ascii: "}") {
      position += 1
      depth -= 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard peek() == UInt8(ascii: "\"") else { throw error("expected a string key") }
      let (line, column) = place()
      let key = try parseString()
      skipWhitespace()
      guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after an object key") }
      position += 1
      skipWhitespace()
      members.append(.init(key: key, line: line, column: column, value: try parseValue()))
      skipWhitespace()
      switch peek() {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "}"):
        position += 1
        depth -= 1
        return .object(members)
      default: throw error("expected ',' or '}' in an object")
      }
    }
  }

  mutating func parseArray() throws(JSONError) -> JSONElement.Value {
    try enter()
    position += 1
    var array: [JSONElement] = []
    skipWhitespace()
    if peek() == UInt8(ascii: "]") {
      position += 1
      depth -= 1
      return .array(array)
    }
    while true {
      skipWhitespace()
      array.append(try parseValue())
      skipWhitespace()
      switch peek() {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "]"):
        position += 1
        depth -= 1
        return .array(array)
      default: throw error("expected ',' or ']' in an array")
      }
    }
  }

  mutating func parseString() throws(JSONError) -> String {
    position += 1  // the opening quote
    var text: [UInt8] = []
    while true {
      guard position < bytes.count else { throw error("a string is never closed") }
      let byte = bytes[position]
      switch byte {
      case UInt8(ascii: "\""):
        position += 1
        return String(decoding: text, as: UTF8.self)
      case UInt8(ascii: "\\"):
        position += 1
        try parseEscape(into: &text)
      case 0..<0x20:
        throw error("a control character must be escaped in a string")
      default:
        text.append(byte)
        position += 1
      }
    }
  }

  mutating func parseEscape(into text: inout [UInt8]) throws(JSONError) {
    guard position < bytes.count else { throw error("a string is never closed") }
    let byte = bytes[position]
    position += 1
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(byte)
    case UInt8(ascii: "b"): text.append(0x08)
    case UInt8(ascii: "f"): text.append(0x0C)
    case UInt8(ascii: "n"): text.append(0x0A)
    case UInt8(ascii: "r"): text.append(0x0D)
    case UInt8(ascii: "t"): text.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = try parseHex4()
      if (0xD800..<0xDC00).contains(scalar) {
        // A high surrogate must be followed by `\u` and a low surrogate.
        if position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
          bytes[position + 1] == UInt8(ascii: "u")
        {
          let saved = position
          position += 2
          let low = try parseHex4()
          if (0xDC00..<0xE000).contains(low) {
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          } else {
            position = saved
            scalar = 0xFFFD
          }
        } else {
          scalar = 0xFFFD
        }
      } else if (0xDC00..<0xE000).contains(scalar) {
        scalar = 0xFFFD
      }
      let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
      text.append(contentsOf: Array(String(character).utf8))
    default:
      position -= 2
      throw error("invalid escape '\\\(describeByte(byte))' in a string")
    }
  }

  mutating func parseHex4() throws(JSONError) -> UInt32 {
    guard position + 4 <= bytes.count else { throw error("expected four hex digits after '\\u'") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[position]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw error("expected four hex digits after '\\u'")
      }
      value = value << 4 | UInt32(digit)
      position += 1
    }
    return value
  }

  mutating func parseNumber() throws(JSONError) -> JSONElement.Value {
    let start = position
    var isInteger = true
    if peek() == UInt8(ascii: "-") { position += 1 }
    guard let first = peek(), isDigit(first) else { throw error("expected a digit") }
    if first == UInt8(ascii: "0") {
      position += 1
    } else {
      skipDigits()
    }
    if peek() == UInt8(ascii: ".") {
      isInteger = false
      position += 1
      guard let digit = peek(), isDigit(digit) else {
        throw error("expected a digit after '.'")
      }
      skipDigits()
    }
    if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
      isInteger = false
      position += 1
      if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
      guard let digit = peek(), isDigit(digit) else {
        throw error("expected a digit in the exponent")
      }
      skipDigits()
    }
    let text = String(decoding: bytes[start..<position], as: UTF8.self)
    if isInteger, let integer = Int64(text) { return .int(integer) }
    guard let double = Double(text) else { throw error("invalid number '\(text)'") }
    return .double(double)
  }

  mutating func expectWord(_ word: StaticString) throws(JSONError) {
    let count = word.utf8CodeUnitCount
    let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
    guard position + count <= bytes.count,
      bytes[position..<position + count].elementsEqual(expected)
    else { throw error("unexpected \(describeCurrent())") }
    position += count
  }

  mutating func enter() throws(JSONError) {
    depth += 1
    if depth > Self.maximumDepth {
      throw error("nested more than \(Self.maximumDepth) levels deep")
    }
  }

  mutating func skipWhitespace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x0A:
        position += 1
        line += 1
        lineStart = position
      case 0x20, 0x09, 0x0D: position += 1
      default: return
      }
    }
  }

  mutating func skipDigits() {
    while let byte = peek(), isDigit(byte) { position += 1 }
  }

  func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }

  func peek() -> UInt8? {
    position < bytes.count ? bytes[position] : nil
  }

  func describeCurrent() -> String {
    guard position < bytes.count else { return "end of input" }
    return "character '\(describeByte(bytes[position]))'"
  }

  func describeByte(_ byte: UInt8) -> String {
    if byte >= 0x20 && byte < 0x7F { return String(UnicodeScalar(byte)) }
    return "\\u{\(String(byte, radix: 16, uppercase: true))}"
  }

  func error(_ message: String) -> JSONError {
    let (line, column) = place()
    return JSONError(message: message, line: line, column: column)
  }
}
