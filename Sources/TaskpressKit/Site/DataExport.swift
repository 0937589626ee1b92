/// The `data/*.json` and `data/*.csv` copies of every source.
///
/// Both are written byte by byte in a fixed order, so the same rows give the same bytes.
enum DataExport {
  // MARK: - To-dos

  static let todoColumns = ["pk", "text", "priority", "priority_label", "complete", "status"]

  static func todosJSON(_ todos: [Todo], labels: Labels) -> [UInt8] {
    var json = JSONWriter()
    json.array(todos) { todo in
      [
        ("pk", .integer(todo.pk)),
        ("text", .string(todo.text)),
        ("priority", .integer(todo.priority.number)),
        ("priority_label", .string(labels.priority(todo.priority))),
        ("complete", .bool(todo.complete)),
        ("status", .string(labels.status(complete: todo.complete))),
      ]
    }
    return json.bytes
  }

  static func todosCSV(_ todos: [Todo], labels: Labels) -> [UInt8] {
    var csv = CSVWriter(header: todoColumns)
    for todo in todos {
      csv.row([
        String(todo.pk), todo.text, todo.priority.number.map(String.init) ?? "",
        labels.priority(todo.priority), todo.complete ? "1" : "0",
        labels.status(complete: todo.complete),
      ])
    }
    return csv.bytes
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
    bytes.append(UInt8(ascii: "["))
    for (index, item) in items.enumerated() {
      bytes.append(contentsOf: Array((index == 0 ? "\n  {" : ",\n  {").utf8))
      for (position, (key, value)) in fields(item).enumerated() {
        bytes.append(contentsOf: Array((position == 0 ? "\n    " : ",\n    ").utf8))
        string(key)
        bytes.append(contentsOf: Array(": ".utf8))
        switch value {
        case .string(let text?): string(text)
        case .integer(let number?): bytes.append(contentsOf: Array(String(number).utf8))
        case .bool(let flag): bytes.append(contentsOf: Array((flag ? "true" : "false").utf8))
        case .string(nil), .integer(nil): bytes.append(contentsOf: Array("null".utf8))
        }
      }
      bytes.append(contentsOf: Array("\n  }".utf8))
    }
    bytes.append(contentsOf: Array((items.isEmpty ? "]\n" : "\n]\n").utf8))
  }

  private static let hex = Array("0123456789abcdef".utf8)

  private mutating func string(_ value: String) {
    bytes.append(UInt8(ascii: "\""))
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
      case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
      case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
      case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
      case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
      case 0x00..<0x20, 0x7F:
        bytes.append(contentsOf: Array("\\u00".utf8))
        bytes.append(Self.hex[Int(byte >> 4)])
        bytes.append(Self.hex[Int(byte & 0x0F)])
      default: bytes.append(byte)
      }
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
      let needsQuotes = field.utf8.contains { byte in
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == 0x0A || byte == 0x0D
      }
      guard needsQuotes else {
        bytes.append(contentsOf: field.utf8)
        continue
      }
      bytes.append(UInt8(ascii: "\""))
      for byte in field.utf8 {
        bytes.append(byte)
        if byte == UInt8(ascii: "\"") { bytes.append(byte) }
      }
      bytes.append(UInt8(ascii: "\""))
    }
    bytes.append(contentsOf: [0x0D, 0x0A])
  }
}
