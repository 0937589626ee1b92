/// The `data/*.json` and `data/*.csv` copies of every source.
///
/// Both are written byte by byte in a fixed order, so the same rows give the same bytes.
enum DataExport {
  // MARK: - To-dos

  static let todoColumns = ["pk", "text", "priority", "priority_label", "complete", "status"]

  static func todosJSON(_ todos: [Todo], labels: Labels) -> [UInt8] {
    var json = JSONWriter()
    let texts = TodoTexts(labels)
    json.array(todos) { todo in
      [
        ("pk", .integer(todo.pk)),
        ("text", .string(todo.text)),
        ("priority", .integer(todo.priority.number)),
        ("priority_label", .string(texts.priority(todo.priority))),
        ("complete", .bool(todo.complete)),
        ("status", .string(todo.complete ? texts.complete : texts.inProgress)),
      ]
    }
    return json.bytes
  }

  static func todosCSV(_ todos: [Todo], labels: Labels) -> [UInt8] {
    var csv = CSVWriter(header: todoColumns)
    let texts = TodoTexts(labels)
    for todo in todos {
      csv.row([
        String(todo.pk), todo.text, todo.priority.number.map(String.init) ?? "",
        texts.priority(todo.priority), todo.complete ? "1" : "0",
        todo.complete ? texts.complete : texts.inProgress,
      ])
    }
    return csv.bytes
  }

  /// The labels a to-do row needs, looked up once per file rather than once per row.
  private struct TodoTexts {
    let labels: Labels
    let fixed: [Priority: String]
    let complete: String
    let inProgress: String

    init(_ labels: Labels) {
      self.labels = labels
      var fixed: [Priority: String] = [:]
      for priority in [Priority.high, .medium, .low, .none] {
        fixed[priority] = labels.priority(priority)
      }
      self.fixed = fixed
      complete = labels.status(complete: true)
      inProgress = labels.status(complete: false)
    }

    func priority(_ priority: Priority) -> String {
      fixed[priority] ?? labels.priority(priority)
    }
  }

  // MARK: - Possessions

  static let possessionColumns = [
    "id", "name", "description", "photo", "photo_width", "photo_height",
  ]

  static func possessionsJSON(_ possessions: [Possession], photoURLs: [Int64: String]) -> [UInt8] {
    var json = JSONWriter()
    json.array(possessions) { possession in
      [
        ("id", .integer(possession.id)),
        ("name", .string(possession.name)),
        ("description", .string(possession.description)),
        ("photo", .string(photoURLs[possession.id])),
        ("photo_width", .integer(possession.photo?.width.map(Int64.init))),
        ("photo_height", .integer(possession.photo?.height.map(Int64.init))),
      ]
    }
    return json.bytes
  }

  static func possessionsCSV(_ possessions: [Possession], photoURLs: [Int64: String]) -> [UInt8] {
    var csv = CSVWriter(header: possessionColumns)
    for possession in possessions {
      csv.row([
        String(possession.id), possession.name, possession.description,
        photoURLs[possession.id] ?? "",
        possession.photo?.width.map(String.init) ?? "",
        possession.photo?.height.map(String.init) ?? "",
      ])
    }
    return csv.bytes
  }

  // MARK: - Contacts

  static let contactColumns = ["id", "name", "address", "phone"]

  static func contactsJSON(_ contacts: [Contact]) -> [UInt8] {
    var json = JSONWriter()
    json.array(contacts) { contact in
      [
        ("id", .integer(contact.id)),
        ("name", .string(contact.name)),
        ("address", .string(contact.address)),
        ("phone", .string(contact.phone)),
      ]
    }
    return json.bytes
  }

  static func contactsCSV(_ contacts: [Contact]) -> [UInt8] {
    var csv = CSVWriter(header: contactColumns)
    for contact in contacts {
      csv.row([String(contact.id), contact.name, contact.address, contact.phone])
    }
    return csv.bytes
  }
}

// MARK: - Writers

/// Writes an array of flat JSON objects with a fixed key order and two-space indentation.
struct JSONWriter {
  /// A field's value.
  enum Value {
    case string(String?)
    case integer(Int64?)
    case bool(Bool)
  }

  private(set) var bytes: [UInt8] = []

  mutating func array<T>(_ items: [T], _ fields: (T) -> [(String, Value)]) {
    bytes.reserveCapacity(items.count * 160)
    bytes.append(UInt8(ascii: "["))
    // The objects have the same keys in the same order: each key is escaped once, with what
    // comes before it, and kept by its position (with the key, in case an object differs).
    var keyPrefixes: [(key: String, bytes: [UInt8])] = []
    for (index, item) in items.enumerated() {
      append(index == 0 ? "\n  {" : ",\n  {")
      for (position, (key, value)) in fields(item).enumerated() {
        if position < keyPrefixes.count, keyPrefixes[position].key == key {
          bytes.append(contentsOf: keyPrefixes[position].bytes)
        } else {
          let start = bytes.count
          append(position == 0 ? "\n    " : ",\n    ")
          string(key)
          append(": ")
          if position == keyPrefixes.count {
            keyPrefixes.append((key, Array(bytes[start...])))
          }
        }
        switch value {
        case .string(let text?): string(text)
        case .integer(let number?): integer(number)
        case .bool(let flag): append(flag ? "true" : "false")
        case .string(nil), .integer(nil): append("null")
        }
      }
      append("\n  }")
    }
    append(items.isEmpty ? "]\n" : "\n]\n")
  }

  private mutating func append(_ text: StaticString) {
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  private mutating func integer(_ number: Int64) {
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

  init(header: [String]) {
    row(header)
  }

  mutating func row(_ fields: [String]) {
    for (index, field) in fields.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      var field = field
      field.withUTF8 { utf8 in
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
    bytes.append(0x0D)
    bytes.append(0x0A)
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
