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
    var parser = JSONParser(bytes: Array(json.utf8))
    self = try parser.parseDocument()
  }

  /// Parses JSON from UTF-8 bytes; see ``init(json:)``.
  public init(jsonBytes: [UInt8]) throws(JSONError) {
    var parser = JSONParser(bytes: jsonBytes)
    self = try parser.parseDocument()
  }
}

/// A recursive-descent JSON reader over UTF-8 bytes.
private struct JSONParser {
  let bytes: [UInt8]
  var position = 0
  var depth = 0
  /// Deeper documents are rejected rather than risking the stack.
  static let maximumDepth = 512

  init(bytes: [UInt8]) {
    self.bytes = bytes
    // A byte-order mark is not JSON, but editors write it.
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
  }

  mutating func parseDocument() throws(JSONError) -> MustacheValue {
    skipWhitespace()
    let value = try parseValue()
    skipWhitespace()
    if position < bytes.count {
      throw error("unexpected \(describeCurrent()) after the end of the document")
    }
    return value
  }

  mutating func parseValue() throws(JSONError) -> MustacheValue {
    guard position < bytes.count else { throw error("unexpected end of input") }
    switch bytes[position] {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try expectWord("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectWord("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectWord("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    default: throw error("unexpected \(describeCurrent())")
    }
  }

  mutating func parseObject() throws(JSONError) -> MustacheValue {
    try enter()
    position += 1
    var object: [String: MustacheValue] = [:]
    skipWhitespace()
    if peek() == UInt8(ascii: "}") {
      position += 1
      depth -= 1
      return .object(object)
    }
    while true {
      skipWhitespace()
      guard peek() == UInt8(ascii: "\"") else { throw error("expected a string key") }
      let key = try parseString()
      skipWhitespace()
      guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after an object key") }
      position += 1
      skipWhitespace()
      object[key] = try parseValue()
      skipWhitespace()
      switch peek() {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "}"):
        position += 1
        depth -= 1
        return .object(object)
      default: throw error("expected ',' or '}' in an object")
      }
    }
  }

  mutating func parseArray() throws(JSONError) -> MustacheValue {
    try enter()
    position += 1
    var array: [MustacheValue] = []
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

  mutating func parseNumber() throws(JSONError) -> MustacheValue {
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
      case 0x20, 0x09, 0x0A, 0x0D: position += 1
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
    var line = 1
    var column = 1
    for byte in bytes[0..<min(position, bytes.count)] {
      if byte == 0x0A {
        line += 1
        column = 1
      } else if byte & 0xC0 != 0x80 {
        column += 1
      }
    }
    return JSONError(message: message, line: line, column: column)
  }
}
