import SQLite

/// Reads the fields of one source row, turning every problem into a warning, never a crash.
struct RowReader {
  let file: String
  var warnings: [BuildWarning] = []

  init(file: String) {
    self.file = file
  }

  mutating func warn(_ location: String, _ message: String) {
    warnings.append(BuildWarning(file: file, location: location, message: message))
  }

  /// The text in `column`: NULL is empty, invalid UTF-8 is repaired, NUL bytes are dropped;
  /// each repair is a warning. `location` is made only for a warning.
  mutating func text(
    _ row: Row, _ index: Int, field: String, location makeLocation: @autoclosure () -> String
  ) -> String {
    if let valid = row.validText(at: index) { return valid }
    let location = makeLocation()
    guard let value = row.text(at: index) else {
      warn(location, "\(field) is NULL")
      return ""
    }
    for repair in value.repairs {
      switch repair {
      case .invalidUTF8:
        warn(location, "\(field) is not valid UTF-8; replaced with U+FFFD")
      case .nulBytesDropped:
        warn(location, "\(field) contains NUL bytes; dropped them")
      }
    }
    return value.string
  }

  /// Hands the UTF-8 bytes of `text(_:_:field:location:)` to `body`: SQLite's own bytes when
  /// they need no repair (most text), without making a `String` of them.
  mutating func withText<T>(
    _ row: Row, _ index: Int, field: String, location makeLocation: @autoclosure () -> String,
    _ body: (UnsafeBufferPointer<UInt8>) -> T
  ) -> T {
    if let done = row.withValidText(at: index, body) { return done }
    var text = text(row, index, field: field, location: makeLocation())
    return text.withUTF8(body)
  }

  /// Hands the UTF-8 bytes of `optionalText(_:_:field:location:)` to `body` (nil for NULL), as
  /// `withText` does.
  mutating func withOptionalText<T>(
    _ row: Row, _ index: Int, field: String, location makeLocation: @autoclosure () -> String,
    _ body: (UnsafeBufferPointer<UInt8>?) -> T
  ) -> T {
    if let done = row.withValidText(at: index, body) { return done }
    guard var text = optionalText(row, index, field: field, location: makeLocation()) else {
      return body(nil)
    }
    return text.withUTF8(body)
  }

  /// The text in an optional `column`: NULL is `nil` without a warning; repairs are warnings.
  mutating func optionalText(
    _ row: Row, _ index: Int, field: String, location makeLocation: @autoclosure () -> String
  ) -> String? {
    if let valid = row.validText(at: index) { return valid }
    guard !row.isNull(at: index) else { return nil }
    return text(row, index, field: field, location: makeLocation())
  }

  /// The row's key (`pk` or `id`), or `nil` with a warning when it is not an integer.
  /// `location` is made only for a warning.
  mutating func key(
    _ row: Row, _ index: Int, field: String, location makeLocation: @autoclosure () -> String
  ) -> Int64? {
    if let key = row.int64(at: index) { return key }
    let location = makeLocation()
    switch row.columnType(at: index) {
    case .null:
      warn(location, "\(field) is NULL; row skipped")
    default:
      warn(location, "\(field) \(quotedValue(row, index)) is not an integer; row skipped")
    }
    return nil
  }

  /// A to-do's key (``TodoKey``): its number, and its UTF-8 when it is text that is not a
  /// whole number; `nil` with a warning for NULL, empty text, a fraction or a BLOB.
  /// `location` is made only for a warning.
  mutating func todoKey(
    _ row: Row, _ index: Int, field: String, location makeLocation: @autoclosure () -> String
  ) -> (number: Int64, text: [UInt8]?)? {
    switch row.columnType(at: index) {
    case .integer:
      return (row.int64(at: index) ?? 0, nil)
    case .text:
      let location = makeLocation()
      let read = withText(row, index, field: field, location: location) {
        text -> (Int64, [UInt8]?)? in
        guard !text.isEmpty else { return nil }
        return (TodoKey.number(ofText: text), TodoKey.isNumber(text) ? nil : Array(text))
      }
      if read == nil { warn(location, "\(field) is empty text; row skipped") }
      return read
    case .null:
      warn(makeLocation(), "\(field) is NULL; row skipped")
    case .real:
      if let value = row.double(at: index), let whole = Int64(exactly: value) {
        return (whole, nil)
      }
      warn(makeLocation(), "\(field) \(quotedValue(row, index)) is not a whole number; row skipped")
    case .blob:
      warn(makeLocation(), "\(field) is a blob, not a key; row skipped")
    }
    return nil
  }

  /// The value in column `index` quoted for a message: shortened, control characters escaped.
  func quotedValue(_ row: Row, _ index: Int) -> String {
    switch row.columnType(at: index) {
    case .integer, .real:
      return row.text(at: index)?.string ?? ""
    case .blob:
      return "(a \(row.blobByteCount(at: index))-byte blob)"
    case .text, .null:
      return quoted(row.text(at: index)?.string ?? "")
    }
  }
}

extension String {
  /// The string without spaces, tabs and line breaks at either end.
  func trimmingASCIISpaces() -> Substring {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    guard let first = firstIndex(where: { !isSpace($0) }),
      let last = lastIndex(where: { !isSpace($0) })
    else { return "" }
    return self[first...last]
  }
}

/// `'value'`, cut at 40 characters, with control characters and quotes escaped so a warning
/// stays one readable line.
func quoted(_ value: String) -> String {
  var result = "'"
  var count = 0
  for scalar in value.unicodeScalars {
    if count == 40 {
      result += "..."
      break
    }
    switch scalar {
    case "'": result += "\\'"
    case "\\": result += "\\\\"
    case "\n": result += "\\n"
    case "\t": result += "\\t"
    case "\r": result += "\\r"
    default:
      if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) {
        result += "\\u{" + String(scalar.value, radix: 16) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    count += 1
  }
  return result + "'"
}
