/// The `data/*.json` and `data/*.csv` copies of every source.
///
/// Both are written byte by byte in a fixed order, so the same rows give the same bytes.
enum DataExport {
  // MARK: - To-dos

  static let todoColumns = ["pk", "text", "priority", "priority_label", "complete", "status"]

  /// The JSON copy of `todos`; `strings` gives the priority and status labels.
  static func todosJSON(_ todos: [Todo], strings: RowStrings) -> [UInt8] {
    JSONWriter.array(todos, keys: todoColumns) { todo, json in
      json.integer(todo.pk)
      json.text(todo.text)
      json.integer(todo.priority.number)
      json.text(strings.priorityLabel(todo.priority))
      json.bool(todo.complete)
      json.text(todo.complete ? strings.complete : strings.inProgress)
    }
  }

  /// The CSV copy of `todos`; `strings` gives the priority and status labels.
  static func todosCSV(_ todos: [Todo], strings: RowStrings) -> [UInt8] {
    var csv = CSVWriter(header: todoColumns)
    for todo in todos {
      csv.integer(todo.pk)
      csv.text(todo.text)
      csv.integer(todo.priority.number)
      csv.text(strings.priorityLabel(todo.priority))
      csv.integer(todo.complete ? 1 : 0)
      csv.text(todo.complete ? strings.complete : strings.inProgress)
      csv.endRow()
    }
    return csv.bytes
  }

  // MARK: - Possessions

  static let possessionColumns = [
    "id", "name", "description", "photo", "photo_width", "photo_height",
  ]

  static func possessionsJSON(_ possessions: [Possession], photoURLs: [Int64: String]) -> [UInt8] {
    JSONWriter.array(possessions, keys: possessionColumns) { possession, json in
      json.integer(possession.id)
      json.text(possession.name)
      json.text(possession.description)
      json.text(photoURLs[possession.id])
      json.integer(possession.photo?.width.map(Int64.init))
      json.integer(possession.photo?.height.map(Int64.init))
    }
  }

  static func possessionsCSV(_ possessions: [Possession], photoURLs: [Int64: String]) -> [UInt8] {
    var csv = CSVWriter(header: possessionColumns)
    for possession in possessions {
      csv.integer(possession.id)
      csv.text(possession.name)
      csv.text(possession.description)
      csv.text(photoURLs[possession.id] ?? "")
      csv.integer(possession.photo?.width.map(Int64.init))
      csv.integer(possession.photo?.height.map(Int64.init))
      csv.endRow()
    }
    return csv.bytes
  }

  // MARK: - Contacts

  static let contactColumns = ["id", "name", "address", "phone"]

  static func contactsJSON(_ contacts: [Contact]) -> [UInt8] {
    JSONWriter.array(contacts, keys: contactColumns) { contact, json in
      json.integer(contact.id)
      json.text(contact.name)
      json.text(contact.address)
      json.text(contact.phone)
    }
  }

  static func contactsCSV(_ contacts: [Contact]) -> [UInt8] {
    var csv = CSVWriter(header: contactColumns)
    for contact in contacts {
      csv.integer(contact.id)
      csv.text(contact.name)
      csv.text(contact.address)
      csv.text(contact.phone)
      csv.endRow()
    }
    return csv.bytes
  }
}

// MARK: - Writers

/// Writes an array of flat JSON objects with a fixed key order and two-space indentation.
struct JSONWriter {
  private(set) var bytes: [UInt8] = []
  /// What goes before each value of an object, by the value's position: the separator, the
  /// indentation and the key, escaped once for the whole array.
  private var keyPrefixes: [[UInt8]] = []
  /// The position of the next value in the object being written.
  private var position = 0

  /// The JSON array of `items`, each an object with `keys` in order; `fields` writes an item's
  /// values, one call of `text`, `integer` or `bool` per key, in the same order.
  static func array<T>(_ items: [T], keys: [String], _ fields: (T, inout JSONWriter) -> Void)
    -> [UInt8]
  {
    var json = JSONWriter()
    json.keyPrefixes = keys.enumerated().map { position, key in
      var prefix = JSONWriter()
      prefix.append(position == 0 ? "\n    " : ",\n    ")
      prefix.string(key)
      prefix.append(": ")
      return prefix.bytes
    }
    json.bytes.reserveCapacity(items.count * 160)
    json.append("[")
    for (index, item) in items.enumerated() {
      json.append(index == 0 ? "\n  {" : ",\n  {")
      json.position = 0
      fields(item, &json)
      assert(json.position == keys.count, "an object of \(json.position) values for \(keys)")
      json.append("\n  }")
    }
    json.append(items.isEmpty ? "]\n" : "\n]\n")
    return json.bytes
  }

  /// The next value: a string, or `null`.
  mutating func text(_ value: String?) {
    key()
    if let value { string(value) } else { append("null") }
  }

  /// The next value: a number, or `null`.
  mutating func integer(_ value: Int64?) {
    key()
    if let value { digits(value) } else { append("null") }
  }

  /// The next value: `true` or `false`.
  mutating func bool(_ value: Bool) {
    key()
    append(value ? "true" : "false")
  }

  private mutating func key() {
    bytes.append(contentsOf: keyPrefixes[position])
    position += 1
  }

  private mutating func append(_ text: StaticString) {
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  private mutating func digits(_ number: Int64) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: DecimalText.maximumLength) { buffer in
      let end = DecimalText.write(number, into: buffer, at: 0)
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<end]))
    }
  }

  private static let hex = Array("0123456789abcdef".utf8)

  /// Whether `byte` must be escaped in a JSON string.
  @inline(__always)
  private static func needsEscape(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F
  }

  private mutating func string(_ value: String) {
    bytes.append(UInt8(ascii: "\""))
    var value = value
    value.withUTF8 { text in
      var start = 0
      for (index, byte) in text.enumerated() where Self.needsEscape(byte) {
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<index]))
        start = index + 1
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
          bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
          bytes.append(Self.hex[Int(byte >> 4)])
          bytes.append(Self.hex[Int(byte & 0x0F)])
        }
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start...]))
    }
    bytes.append(UInt8(ascii: "\""))
  }
}

/// Writes CSV as RFC 4180 says: CRLF line ends, fields quoted when they hold a comma, a quote or
/// a line break, quotes doubled.
struct CSVWriter {
  private(set) var bytes: [UInt8] = []
  /// Whether the row being written has a field yet.
  private var rowStarted = false

  init(header: [String]) {
    for name in header { text(name) }
    endRow()
  }

  /// The next field: `value`, quoted when it holds a comma, a quote or a line break.
  mutating func text(_ value: String) {
    separate()
    var value = value
    value.withUTF8 { utf8 in
      let needsQuotes = utf8.contains { byte in
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == 0x0A || byte == 0x0D
      }
      guard needsQuotes else {
        bytes.append(contentsOf: utf8)
        return
      }
      bytes.append(UInt8(ascii: "\""))
      for byte in utf8 {
        bytes.append(byte)
        if byte == UInt8(ascii: "\"") { bytes.append(byte) }
      }
      bytes.append(UInt8(ascii: "\""))
    }
  }

  /// The next field: a number in decimal, or empty.
  mutating func integer(_ value: Int64?) {
    separate()
    guard let value else { return }
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: DecimalText.maximumLength) { buffer in
      let end = DecimalText.write(value, into: buffer, at: 0)
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<end]))
    }
  }

  /// Ends the row.
  mutating func endRow() {
    bytes.append(0x0D)
    bytes.append(0x0A)
    rowStarted = false
  }

  private mutating func separate() {
    if rowStarted { bytes.append(UInt8(ascii: ",")) }
    rowStarted = true
  }
}

/// Integers written as decimal text straight into a buffer, as `String(number)` writes them.
enum DecimalText {
  /// The longest an `Int64` is written: a sign and 19 digits.
  static let maximumLength = 20

  /// How many bytes `number` takes.
  static func length(_ number: Int64) -> Int {
    var digits = 1
    var rest = number.magnitude / 10
    while rest > 0 {
      digits += 1
      rest /= 10
    }
    return number < 0 ? digits + 1 : digits
  }

  /// Writes `number` into `buffer` from `index`; returns the index after it.
  static func write(_ number: Int64, into buffer: UnsafeMutableBufferPointer<UInt8>, at index: Int)
    -> Int
  {
    let end = index + length(number)
    var magnitude = number.magnitude
    var position = end
    repeat {
      position -= 1
      buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
      magnitude /= 10
    } while magnitude > 0
    if number < 0 { buffer[index] = UInt8(ascii: "-") }
    return end
  }
}
