import JSONEscaping
import Mustache

/// The `data/*.json` and `data/*.csv` copies of every source.
///
/// Both are written byte by byte in a fixed order, so the same rows give the same bytes.
enum DataExport {
  // MARK: - To-dos

  static let todoColumns = ["pk", "text", "priority", "priority_label", "complete", "status"]

  /// What starts a CSV copy with `--csv-bom`: UTF-8's byte order mark, for Excel.
  static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

  /// How many bytes a streamed data copy hands on at once (see `Chunks`).
  static let chunkSize = 64 << 10

  /// Where the bytes of a streamed data copy go, `chunkSize` or so at a time, as they are
  /// written: the file never has to be in memory at once.
  typealias Chunks = (UnsafeBufferPointer<UInt8>) throws -> Void

  /// The JSON copy of `todos`; `strings` gives the priority and status labels. With
  /// `dueDates`, each row ends with its `due` date (null when it has none).
  static func todosJSON(_ todos: [Todo], strings: RowStrings, dueDates: Bool = false)
    -> ByteBuffer
  {
    let textBytes = todos.reduce(0) { $0 + $1.text.utf8.count }
    let keys = todoColumns + (dueDates ? ["due"] : [])
    return JSONWriter.array(todos, keys: keys, textBytes: textBytes) { todo, json in
      if let key = todo.key { json.text(key) } else { json.integer(todo.pk) }
      json.text(todo.text)
      json.integer(todo.priority.number)
      json.text(strings.priorityLabel(todo.priority))
      json.bool(todo.complete)
      json.text(todo.complete ? strings.complete : strings.inProgress)
      if dueDates { json.text(todo.due) }
    }
  }

  /// `todosJSON(_:strings:dueDates:)` of the packed `rows` at `positions`, handed to `chunks`
  /// as it is written; each text goes from the rows' bytes to the output, without a `String`.
  static func todosJSON(
    _ rows: TodoRows, at positions: some Collection<Int>, strings: RowStrings,
    dueDates: Bool = false, chunks: Chunks
  ) throws {
    let keys = todoColumns + (dueDates ? ["due"] : [])
    let handOver: (inout JSONWriter) throws -> Void = {
      try $0.handOver(atLeast: chunkSize, to: chunks)
    }
    var rest = try JSONWriter.array(
      positions, keys: keys, capacity: 2 * chunkSize, afterEach: handOver
    ) { position, json in
      if rows.hasTextKey(position) {
        rows.keys.withText(position) { json.text(utf8: $0) }
      } else {
        json.integer(rows.pk(position))
      }
      rows.withText(position) { json.text(utf8: $0) }
      let priority = rows.priority(position)
      json.integer(priority.number)
      json.text(strings.priorityLabel(priority))
      let complete = rows.isComplete(position)
      json.bool(complete)
      json.text(complete ? strings.complete : strings.inProgress)
      if dueDates { rows.withDue(position) { json.text(utf8: $0) } }
    }
    if rest.count > 0 { try chunks(rest.bytes) }
    rest.removeAll()
  }

  /// The CSV copy of `todos`; `strings` gives the priority and status labels. With `dueDates`,
  /// each row ends with its `due` date (empty when it has none).
  static func todosCSV(_ todos: [Todo], strings: RowStrings, dueDates: Bool = false)
    -> ByteBuffer
  {
    var csv = CSVWriter(
      header: todoColumns + (dueDates ? ["due"] : []), capacity: 64 + todos.count * 80)
    for todo in todos {
      if let key = todo.key { csv.text(key) } else { csv.integer(todo.pk) }
      csv.text(todo.text)
      csv.integer(todo.priority.number)
      csv.text(strings.priorityLabel(todo.priority))
      csv.integer(todo.complete ? 1 : 0)
      csv.text(todo.complete ? strings.complete : strings.inProgress)
      if dueDates { csv.text(todo.due ?? "") }
      csv.endRow()
    }
    return csv.finish()
  }

  /// `todosCSV(_:strings:dueDates:)` of the packed `rows` at `positions`, handed to `chunks`
  /// as it is written; each text goes from the rows' bytes to the output, without a `String`.
  static func todosCSV(
    _ rows: TodoRows, at positions: some Collection<Int>, strings: RowStrings,
    dueDates: Bool = false, chunks: Chunks
  ) throws {
    var csv = CSVWriter(header: todoColumns + (dueDates ? ["due"] : []), capacity: 2 * chunkSize)
    for position in positions {
      if rows.hasTextKey(position) {
        rows.keys.withText(position) { csv.text(utf8: $0) }
      } else {
        csv.integer(rows.pk(position))
      }
      rows.withText(position) { csv.text(utf8: $0) }
      let priority = rows.priority(position)
      csv.integer(priority.number)
      csv.text(strings.priorityLabel(priority))
      let complete = rows.isComplete(position)
      csv.integer(complete ? 1 : 0)
      csv.text(complete ? strings.complete : strings.inProgress)
      if dueDates { rows.withDue(position) { csv.text(utf8: $0 ?? .init(start: nil, count: 0)) } }
      csv.endRow()
      try csv.handOver(atLeast: chunkSize, to: chunks)
    }
    var rest = csv.finish()
    if rest.count > 0 { try chunks(rest.bytes) }
    rest.removeAll()
  }

  // MARK: - Possessions

  static let possessionColumns = [
    "id", "name", "description", "photo", "photo_width", "photo_height",
  ]

  /// The width and height a copy gives for `possession`'s photo: those of the published file
  /// (upright, after its EXIF orientation), else those stored in the database.
  static func photoSize(_ possession: Possession, _ file: PageContext.PhotoFile?) -> (
    width: Int64?, height: Int64?
  ) {
    if let file, let width = file.width, let height = file.height {
      return (Int64(width), Int64(height))
    }
    return (possession.photo?.width.map(Int64.init), possession.photo?.height.map(Int64.init))
  }

  /// The possessions' JSON copy; `photoFiles` are the published photos, by possession id.
  static func possessionsJSON(
    _ possessions: [Possession], photoFiles: [Int64: PageContext.PhotoFile]
  ) -> ByteBuffer {
    JSONWriter.array(possessions, keys: possessionColumns) { possession, json in
      let file = photoFiles[possession.id]
      let size = photoSize(possession, file)
      json.integer(possession.id)
      json.text(possession.name)
      json.text(possession.description)
      json.text(file?.path)
      json.integer(size.width)
      json.integer(size.height)
    }
  }

  /// The possessions' CSV copy; `photoFiles` are the published photos, by possession id.
  static func possessionsCSV(
    _ possessions: [Possession], photoFiles: [Int64: PageContext.PhotoFile]
  ) -> ByteBuffer {
    var csv = CSVWriter(header: possessionColumns, rows: possessions.count)
    for possession in possessions {
      let file = photoFiles[possession.id]
      let size = photoSize(possession, file)
      csv.integer(possession.id)
      csv.text(possession.name)
      csv.text(possession.description)
      csv.text(file?.path ?? "")
      csv.integer(size.width)
      csv.integer(size.height)
      csv.endRow()
    }
    return csv.finish()
  }

  // MARK: - Contacts

  static let contactColumns = ["id", "name", "address", "phone"]

  static func contactsJSON(_ contacts: [Contact]) -> ByteBuffer {
    JSONWriter.array(contacts, keys: contactColumns) { contact, json in
      json.integer(contact.id)
      json.text(contact.name)
      json.text(contact.address)
      json.text(contact.phone)
    }
  }

  static func contactsCSV(_ contacts: [Contact]) -> ByteBuffer {
    var csv = CSVWriter(header: contactColumns, rows: contacts.count)
    for contact in contacts {
      csv.integer(contact.id)
      csv.text(contact.name)
      csv.text(contact.address)
      csv.text(contact.phone)
      csv.endRow()
    }
    return csv.finish()
  }
}

extension OutputWriter {
  /// Adds the file `path` with the bytes of a data export, written from its buffer.
  func add(_ path: String, _ export: consuming ByteBuffer) throws {
    try add(path, contentsOf: UnsafeRawBufferPointer(export.bytes))
  }

  /// Adds a CSV copy, after a UTF-8 byte order mark when `byteOrderMark` (for Excel).
  func add(_ path: String, _ export: consuming ByteBuffer, byteOrderMark: Bool) throws {
    guard byteOrderMark else { return try add(path, export) }
    try add(path, bytes: DataExport.byteOrderMark + Array(export.bytes))
  }
}

// MARK: - Writers

/// The data copies of 100,000 to-dos are about two million small pieces: they are appended to
/// a `ByteBuffer`, whose appends are a bounds check and a copy (an array's checked appends
/// made them several times slower to write).
extension ByteBuffer {
  /// A copy of the bytes appended so far.
  var array: [UInt8] { Array(bytes) }

  @inline(__always)
  mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    append(contentsOf: bytes)
  }

  @inline(__always)
  mutating func append(_ text: StaticString) {
    append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// Appends `number` in decimal, as `String(number)` writes it.
  mutating func appendDecimal(_ number: Int64) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: DecimalText.maximumLength) { buffer in
      let end = DecimalText.write(number, into: buffer, at: 0)
      append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<end]))
    }
  }
}

/// Writes an array of flat JSON objects with a fixed key order and two-space indentation.
struct JSONWriter: ~Copyable {
  private var output: ByteBuffer
  /// What goes before each value of an object, one after the other: the separator, the
  /// indentation and the key, escaped once for the whole array. In a buffer of the writer's
  /// own, so that writing one retains nothing.
  private var keyPrefixes = ByteBuffer(capacity: 0)
  /// Where the prefix of the value at each position ends in `keyPrefixes`.
  private var keyPrefixEnds: [Int] = []
  /// The position of the next value in the object being written.
  private var position = 0

  private init(capacity: Int) {
    output = ByteBuffer(capacity: capacity)
  }

  /// The JSON array of `items`, each an object with `keys` in order; `fields` writes an item's
  /// values, one call of `text`, `integer` or `bool` per key, in the same order.
  /// `textBytes`, the length of the items' longer texts, makes room for them at once.
  static func array<T>(
    _ items: [T], keys: [String], textBytes: Int = 0, _ fields: (T, inout JSONWriter) -> Void
  ) -> ByteBuffer {
    array(
      items, keys: keys, capacity: items.count * bytesPerItem + textBytes, afterEach: { _ in },
      fields)
  }

  /// About how many bytes an item takes, besides its longer texts.
  static let bytesPerItem = 160

  /// `array(_:keys:textBytes:_:)` into a buffer of `capacity` bytes to start with, calling
  /// `afterEach` after each item (which may take the bytes written so far; see `handOver`).
  static func array<T>(
    _ items: some Collection<T>, keys: [String], capacity: Int,
    afterEach: (inout JSONWriter) throws -> Void, _ fields: (T, inout JSONWriter) -> Void
  ) rethrows -> ByteBuffer {
    var json = JSONWriter(capacity: capacity)
    var prefixes = JSONWriter(capacity: 64 * keys.count)
    for (position, key) in keys.enumerated() {
      prefixes.output.append(position == 0 ? "\n    " : ",\n    ")
      prefixes.string(key)
      prefixes.output.append(": ")
      json.keyPrefixEnds.append(prefixes.output.count)
    }
    json.keyPrefixes = prefixes.output
    json.output.append("[")
    for (index, item) in items.enumerated() {
      json.output.append(index == 0 ? "\n  {" : ",\n  {")
      json.position = 0
      fields(item, &json)
      assert(json.position == keys.count, "an object of \(json.position) values for \(keys)")
      json.output.append("\n  }")
      try afterEach(&json)
    }
    json.output.append(items.isEmpty ? "]\n" : "\n]\n")
    return json.finish()
  }

  /// The JSON written, without a copy.
  private consuming func finish() -> ByteBuffer { output }

  /// Hands the bytes written so far to `chunks` and forgets them, once there are `count`.
  mutating func handOver(atLeast count: Int, to chunks: DataExport.Chunks) throws {
    guard output.count >= count else { return }
    try chunks(output.bytes)
    output.removeAll()
  }

  /// The next value: a string, or `null`.
  mutating func text(_ value: String?) {
    key()
    if let value { string(value) } else { output.append("null") }
  }

  /// The next value: a string of these UTF-8 bytes, or `null`.
  mutating func text(utf8 value: UnsafeBufferPointer<UInt8>?) {
    key()
    guard let value else {
      output.append("null")
      return
    }
    output.append(UInt8(ascii: "\""))
    appendEscaped(value)
    output.append(UInt8(ascii: "\""))
  }

  /// The next value: a number, or `null`.
  mutating func integer(_ value: Int64?) {
    key()
    if let value { output.appendDecimal(value) } else { output.append("null") }
  }

  /// The next value: `true` or `false`.
  mutating func bool(_ value: Bool) {
    key()
    output.append(value ? "true" : "false")
  }

  private mutating func key() {
    let start = position == 0 ? 0 : keyPrefixEnds[position - 1]
    output.append(UnsafeBufferPointer(rebasing: keyPrefixes.bytes[start..<keyPrefixEnds[position]]))
    position += 1
  }

  private mutating func string(_ value: String) {
    output.append(UInt8(ascii: "\""))
    let written: Void? = value.utf8.withContiguousStorageIfAvailable { appendEscaped($0) }
    if written == nil {
      var copy = value
      copy.withUTF8 { appendEscaped($0) }
    }
    output.append(UInt8(ascii: "\""))
  }

  /// Appends `text` with what JSON strings may not hold escaped, and DEL (`JSONText`).
  private mutating func appendEscaped(_ text: UnsafeBufferPointer<UInt8>) {
    JSONText.escape(text, .delete) { output.append($0) }
  }
}

/// Writes CSV as RFC 4180 says: CRLF line ends, fields quoted when they hold a comma, a quote or
/// a line break, quotes doubled.
struct CSVWriter: ~Copyable {
  private var output: ByteBuffer
  /// Whether the row being written has a field yet.
  private var rowStarted = false

  /// A CSV of about `rows` rows whose first row is `header`.
  init(header: [String], rows: Int = 0) {
    self.init(header: header, capacity: 64 + rows * 80)
  }

  /// A CSV whose first row is `header`, in a buffer of `capacity` bytes to start with.
  init(header: [String], capacity: Int) {
    output = ByteBuffer(capacity: capacity)
    for name in header { text(name) }
    endRow()
  }

  /// Hands the bytes written so far to `chunks` and forgets them, once there are `count`.
  mutating func handOver(atLeast count: Int, to chunks: DataExport.Chunks) throws {
    guard output.count >= count else { return }
    try chunks(output.bytes)
    output.removeAll()
  }

  /// The CSV written so far.
  var bytes: [UInt8] { output.array }

  /// The CSV written, without a copy.
  consuming func finish() -> ByteBuffer { output }

  /// The next field: `value`, quoted when it holds a comma, a quote or a line break.
  mutating func text(_ value: String) {
    separate()
    let written: Void? = value.utf8.withContiguousStorageIfAvailable { appendField($0) }
    if written == nil {
      var copy = value
      copy.withUTF8 { appendField($0) }
    }
  }

  /// The next field: these UTF-8 bytes, quoted as `text(_:)` quotes.
  mutating func text(utf8: UnsafeBufferPointer<UInt8>) {
    separate()
    appendField(utf8)
  }

  private mutating func appendField(_ utf8: UnsafeBufferPointer<UInt8>) {
    let needsQuotes = utf8.contains { byte in
      byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == 0x0A || byte == 0x0D
    }
    guard needsQuotes else {
      output.append(utf8)
      return
    }
    output.append(UInt8(ascii: "\""))
    var start = 0
    for (index, byte) in utf8.enumerated() where byte == UInt8(ascii: "\"") {
      // Up to and including the quote, then the quote again.
      output.append(UnsafeBufferPointer(rebasing: utf8[start...index]))
      output.append(byte)
      start = index + 1
    }
    output.append(UnsafeBufferPointer(rebasing: utf8[start...]))
    output.append(UInt8(ascii: "\""))
  }

  /// The next field: a number in decimal, or empty.
  mutating func integer(_ value: Int64?) {
    separate()
    guard let value else { return }
    output.appendDecimal(value)
  }

  /// Ends the row.
  mutating func endRow() {
    output.append("\r\n")
    rowStarted = false
  }

  private mutating func separate() {
    if rowStarted { output.append(UInt8(ascii: ",")) }
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
