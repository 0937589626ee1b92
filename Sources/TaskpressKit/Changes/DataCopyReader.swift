import Foundation

/// Reads the previous build's data copies (`data/todos.json`, ...) in the one form
/// `DataExport` writes them: the keys in their order, two-space indentation, and only the
/// escapes `JSONWriter` makes. A copy of 100,000 to-dos is read in one pass over its bytes,
/// several times faster than `JSONDecoder` reads it.
///
/// Anything else (a copy edited by hand, written by another version, damaged) is not read
/// here: each reader returns nil, and `PreviousBuild` hands the bytes to `JSONDecoder`, so
/// that what is accepted beyond that form, and the errors, are the decoder's. Whatever it
/// accepts, it reads as the decoder does; `PreviousReaderTests` compares the two.
enum DataCopyReader {
  /// The to-dos of a copy `DataExport.todosJSON` wrote, with or without due dates.
  static func todos(_ bytes: UnsafeRawBufferPointer) -> PreviousTodos? {
    var todos = PreviousTodos.Builder()
    var cursor = Cursor(bytes)
    do {
      try cursor.forEachRow { row throws(NotWritten) in try todo(&row, into: &todos) }
    } catch {
      return nil
    }
    return PreviousTodos(todos)
  }

  /// The to-dos of such a copy read piece by piece: what `todos(_:)` gives for the whole of it.
  static func todos(_ pieces: inout Pieces) -> PreviousTodos? {
    var todos = PreviousTodos.Builder()
    guard pieces.forEachRow({ row throws(NotWritten) in try todo(&row, into: &todos) }) else {
      return nil
    }
    return PreviousTodos(todos)
  }

  /// The possessions of a copy `DataExport.possessionsJSON` wrote.
  static func possessions(_ bytes: UnsafeRawBufferPointer) -> [PreviousBuild.Possession]? {
    try? Cursor.rows(bytes, possession)
  }

  /// The possessions of such a copy read piece by piece.
  static func possessions(_ pieces: inout Pieces) -> [PreviousBuild.Possession]? {
    pieces.rows(possession)
  }

  /// The contacts of a copy `DataExport.contactsJSON` wrote.
  static func contacts(_ bytes: UnsafeRawBufferPointer) -> [PreviousBuild.Contact]? {
    try? Cursor.rows(bytes, contact)
  }

  /// The contacts of such a copy read piece by piece.
  static func contacts(_ pieces: inout Pieces) -> [PreviousBuild.Contact]? {
    pieces.rows(contact)
  }

  private static let todoKeys = Keys(DataExport.todoColumns + ["due"])
  private static let possessionKeys = Keys(DataExport.possessionColumns)
  private static let contactKeys = Keys(DataExport.contactColumns)

  /// Reads a to-do into `todos`. Its text goes there as it is read: a row that is not read
  /// whole leaves none of the rows read.
  private static func todo(_ row: inout Cursor, into todos: inout PreviousTodos.Builder)
    throws(NotWritten)
  {
    let keys = todoKeys
    try row.key(0, keys)
    // A text key is a string (`TodoKey`), copied now: the text's range is reused below.
    var key: String?
    let pk: Int64
    if row.startsString {
      (pk, key) = TodoKey.read(try row.string())
    } else {
      pk = try row.integer()
    }
    try row.key(1, keys)
    let text = try row.textRange()
    try row.key(2, keys)
    let priority = try row.optionalInteger()
    try row.key(3, keys)
    try row.skipString()
    try row.key(4, keys)
    let complete = try row.bool()
    try row.key(5, keys)
    try row.skipString()
    // The due date, when the to-dos have one (the field, null without a date).
    guard row.skip(keys.prefixes[6]) else {
      row.withText(text) { text in
        withOptionalUTF8(&key) {
          todos.append(pk: pk, text: text, priority: priority, complete: complete, key: $0)
        }
      }
      return
    }
    var due = try row.optionalString()
    row.withText(text) { text in
      withOptionalUTF8(&key) { key in
        guard due != nil else {
          return todos.append(
            pk: pk, text: text, priority: priority, complete: complete, due: .some(nil), key: key)
        }
        due?.withUTF8 {
          todos.append(
            pk: pk, text: text, priority: priority, complete: complete, due: .some($0), key: key)
        }
      }
    }
  }

  private static func possession(_ row: inout Cursor) throws(NotWritten)
    -> PreviousBuild.Possession
  {
    let keys = possessionKeys
    try row.key(0, keys)
    let id = try row.integer()
    try row.key(1, keys)
    let name = try row.string()
    try row.key(2, keys)
    let description = try row.optionalString()
    try row.key(3, keys)
    let photo = try row.optionalString()
    try row.key(4, keys)
    _ = try row.optionalInteger()
    try row.key(5, keys)
    _ = try row.optionalInteger()
    return PreviousBuild.Possession(id: id, name: name, description: description, photo: photo)
  }

  private static func contact(_ row: inout Cursor) throws(NotWritten) -> PreviousBuild.Contact {
    let keys = contactKeys
    try row.key(0, keys)
    let id = try row.integer()
    try row.key(1, keys)
    let name = try row.string()
    try row.key(2, keys)
    let address = try row.optionalString()
    try row.key(3, keys)
    let phone = try row.optionalString()
    return PreviousBuild.Contact(id: id, name: name, address: address, phone: phone)
  }

  /// The bytes that go before each value of an object, as `JSONWriter` writes them.
  struct Keys {
    var prefixes: [[UInt8]]

    init(_ names: [String]) {
      prefixes = names.enumerated().map { position, name in
        Array(((position == 0 ? "\n    \"" : ",\n    \"") + name + "\": ").utf8)
      }
    }
  }

  /// The copy is not in the form `DataExport` writes.
  struct NotWritten: Error {}

  /// A position in the bytes of a copy, read forward.
  struct Cursor {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    /// The bytes of a string with escapes, unescaped.
    private var unescaped: [UInt8] = []
    /// Those of the last text with escapes `textRange()` read.
    private var text: [UInt8] = []

    init(_ bytes: UnsafeRawBufferPointer) {
      self.bytes = bytes
    }

    /// The rows of the array of objects that is the whole of `bytes`, each read by `row`,
    /// which reads its values from just after the `{` to just before the line of the `}`.
    static func rows<Row>(
      _ bytes: UnsafeRawBufferPointer, _ row: (inout Cursor) throws(NotWritten) -> Row
    ) throws(NotWritten) -> [Row] {
      var cursor = Cursor(bytes)
      return try cursor.rows(row)
    }

    private mutating func rows<Row>(_ row: (inout Cursor) throws(NotWritten) -> Row)
      throws(NotWritten) -> [Row]
    {
      var rows: [Row] = []
      try forEachRow { cursor throws(NotWritten) in rows.append(try row(&cursor)) }
      return rows
    }

    /// Reads each row of the array of objects that is the whole of `bytes` by `row` (see
    /// `rows`).
    mutating func forEachRow(_ row: (inout Cursor) throws(NotWritten) -> Void)
      throws(NotWritten)
    {
      try expect("[")
      if skip("]\n") { return try end() }
      try expect("\n  {")
      while true {
        try row(&self)
        try expect("\n  }")
        if skip("\n]\n") { return try end() }
        try expect(",\n  {")
      }
    }

    private func end() throws(NotWritten) {
      guard isAtEnd else { throw NotWritten() }
    }

    /// Whether every byte was read.
    var isAtEnd: Bool { index == bytes.count }

    /// Skips `literal` when it comes next; whether it did.
    mutating func skip(_ literal: StaticString) -> Bool {
      skip(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    mutating func skip(_ literal: [UInt8]) -> Bool {
      literal.withUnsafeBytes { skip($0) }
    }

    private mutating func skip(_ literal: UnsafeRawBufferPointer) -> Bool {
      guard bytes.count - index >= literal.count, let base = bytes.baseAddress,
        let start = literal.baseAddress, memcmp(base + index, start, literal.count) == 0
      else { return false }
      index += literal.count
      return true
    }

    private mutating func expect(_ literal: StaticString) throws(NotWritten) {
      guard skip(literal) else { throw NotWritten() }
    }

    /// Skips the key of the value at `position`.
    mutating func key(_ position: Int, _ keys: Keys) throws(NotWritten) {
      guard skip(keys.prefixes[position]) else { throw NotWritten() }
    }

    private var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Whether a string comes next.
    var startsString: Bool { next == UInt8(ascii: "\"") }

    /// A whole number as `DecimalText` writes it: no sign but `-`, no leading zero, no
    /// fraction or exponent, within `Int64`.
    mutating func integer() throws(NotWritten) -> Int64 {
      let negative = skip("-")
      let start = index
      var magnitude: UInt64 = 0
      while let byte = next, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
        let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
        let (sum, carry) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
        guard !overflow, !carry else { throw NotWritten() }
        magnitude = sum
        index += 1
      }
      let digits = index - start
      guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0"),
        !(negative && magnitude == 0)
      else { throw NotWritten() }
      if negative {
        guard magnitude <= UInt64(Int64.max) + 1 else { throw NotWritten() }
        return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
      }
      guard magnitude <= UInt64(Int64.max) else { throw NotWritten() }
      return Int64(magnitude)
    }

    /// A whole number, or nil for `null`.
    mutating func optionalInteger() throws(NotWritten) -> Int64? {
      skip("null") ? nil : try integer()
    }

    mutating func bool() throws(NotWritten) -> Bool {
      if skip("true") { return true }
      if skip("false") { return false }
      throw NotWritten()
    }

    /// A string, or nil for `null`.
    mutating func optionalString() throws(NotWritten) -> String? {
      skip("null") ? nil : try string()
    }

    mutating func string() throws(NotWritten) -> String {
      try stringBytes { utf8 throws(NotWritten) in
        guard let text = String(validating: utf8, as: UTF8.self) else { throw NotWritten() }
        return text
      }
    }

    /// Where the UTF-8 of the string that comes next is, unescaped: in the bytes, when it has
    /// no escape; else copied aside, until the next text (see `withText`).
    mutating func textRange() throws(NotWritten) -> TextRange {
      let first = index + 1
      var count = 0
      try stringBytes { utf8 throws(NotWritten) in
        guard utf8.allSatisfy({ $0 < 0x80 }) || String(validating: utf8, as: UTF8.self) != nil
        else { throw NotWritten() }
        count = utf8.count
      }
      // An escape is longer than what it stands for: as long as the quoted bytes, none.
      if index - 1 - first == count { return .inBytes(first, count) }
      text.removeAll(keepingCapacity: true)
      text.append(contentsOf: unescaped)
      return .unescaped
    }

    enum TextRange {
      /// The start and count of the bytes.
      case inBytes(Int, Int)
      case unescaped
    }

    /// Hands `body` the UTF-8 of the text at `range`, which `textRange()` gave last.
    func withText<T>(_ range: TextRange, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
      switch range {
      case .inBytes(let start, let count):
        let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<start + count])
        return body(raw.assumingMemoryBound(to: UInt8.self))
      case .unescaped:
        return text.withUnsafeBufferPointer(body)
      }
    }

    /// A string that is read (it must be one) but not kept.
    mutating func skipString() throws(NotWritten) {
      try stringBytes { utf8 throws(NotWritten) in
        guard utf8.allSatisfy({ $0 < 0x80 }) || String(validating: utf8, as: UTF8.self) != nil
        else { throw NotWritten() }
      }
    }

    mutating func skipOptionalString() throws(NotWritten) {
      if !skip("null") { try skipString() }
    }

    /// Hands `make` the UTF-8 of the string that comes next, unescaped; the escapes read are
    /// those `JSONWriter` writes (`\"`, `\\`, `\n`, `\r`, `\t` and `\u00XX` below 0x80).
    private mutating func stringBytes<T>(
      _ make: (UnsafeBufferPointer<UInt8>) throws(NotWritten) -> T
    ) throws(NotWritten) -> T {
      try expect("\"")
      let start = index
      // Most strings have no escape: their bytes are read where they are.
      while let byte = next, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
        guard byte >= 0x20 else { throw NotWritten() }
        index += 1
      }
      guard let stop = next else { throw NotWritten() }
      if stop == UInt8(ascii: "\"") {
        index += 1
        let utf8 = UnsafeRawBufferPointer(rebasing: bytes[start..<index - 1])
        return try make(utf8.assumingMemoryBound(to: UInt8.self))
      }
      unescaped.removeAll(keepingCapacity: true)
      unescaped.append(contentsOf: bytes[start..<index])
      while let byte = next, byte != UInt8(ascii: "\"") {
        index += 1
        guard byte >= 0x20 else { throw NotWritten() }
        guard byte == UInt8(ascii: "\\") else {
          unescaped.append(byte)
          continue
        }
        guard let escape = next else { throw NotWritten() }
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): unescaped.append(escape)
        case UInt8(ascii: "n"): unescaped.append(0x0A)
        case UInt8(ascii: "r"): unescaped.append(0x0D)
        case UInt8(ascii: "t"): unescaped.append(0x09)
        case UInt8(ascii: "u"):
          guard skip("00"), let high = hexDigit(), let low = hexDigit(), high < 8 else {
            throw NotWritten()
          }
          unescaped.append(high << 4 | low)
        default: throw NotWritten()
        }
      }
      guard next != nil else { throw NotWritten() }
      index += 1
      return try unescaped.withUnsafeBufferPointer { utf8 throws(NotWritten) in try make(utf8) }
    }

    /// The value of the hex digit that comes next, lower-case as `JSONWriter` writes it.
    private mutating func hexDigit() -> UInt8? {
      guard let byte = next else { return nil }
      let value: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
      default: return nil
      }
      index += 1
      return value
    }
  }

  /// A copy read from a file a piece at a time, `pieceSize` bytes (1 MB unless told), and its
  /// rows read as `Cursor.rows` reads them from the whole: of a large copy, only the piece
  /// being read is in memory besides the rows (a million to-dos' copy is 178 MB).
  ///
  /// Each row is read by a `Cursor` over its bytes alone, up to the first `\n  }` after its
  /// `{`. That is where `Cursor.rows` ends it too: in the form `DataExport` writes, no value
  /// holds a raw line break, so what reads as a row from the whole reads the same here, and
  /// the same copies are refused (`PreviousReaderTests` reads each test copy both ways at many
  /// piece sizes).
  struct Pieces {
    private let read: (UnsafeMutableRawBufferPointer) -> Int
    private let pieceSize: Int
    /// The bytes read and not yet used start at `start`.
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false
    private var failed = false

    /// Pieces from `read`, which fills the buffer it is given from the file, as `read(2)` does:
    /// the count of bytes, 0 at the end, less than 0 for an error (the copy is then not read).
    init(pieceSize: Int = 1 << 20, read: @escaping (UnsafeMutableRawBufferPointer) -> Int) {
      self.pieceSize = max(1, pieceSize)
      self.read = read
    }

    /// Reads the next piece onto the end of the buffer; false at the end or on an error.
    private mutating func more() -> Bool {
      guard !ended else { return false }
      if start > 0, start >= buffer.count - start {
        buffer.removeFirst(start)
        start = 0
      }
      let old = buffer.count
      buffer.append(contentsOf: repeatElement(0, count: pieceSize))
      let count = buffer.withUnsafeMutableBytes { [read] in
        read(UnsafeMutableRawBufferPointer(rebasing: $0[old...]))
      }
      buffer.removeLast(pieceSize - min(max(count, 0), pieceSize))
      if count <= 0 {
        ended = true
        failed = count < 0
        return false
      }
      return true
    }

    /// Skips `literal` when it comes next; whether it did.
    private mutating func take(_ literal: StaticString) -> Bool {
      let count = literal.utf8CodeUnitCount
      while buffer.count - start < count {
        guard more() else { return false }
      }
      let first = start
      let same = buffer.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return count == 0 }
        return memcmp(base + first, literal.utf8Start, count) == 0
      }
      if same { start += count }
      return same
    }

    /// How many bytes from `start` to the next `\n  }`; nil when the copy ends first.
    private mutating func rowLength() -> Int? {
      var from = 0
      while true {
        let first = start
        let found: Int? = buffer.withUnsafeBytes { raw in
          guard let base = raw.baseAddress else { return nil }
          var index = first + from
          while index + 4 <= raw.count {
            guard let hit = memchr(base + index, 0x0A, raw.count - index) else { return nil }
            index = base.distance(to: UnsafeRawPointer(hit))
            if index + 4 <= raw.count, raw[index + 1] == 0x20, raw[index + 2] == 0x20,
              raw[index + 3] == UInt8(ascii: "}")
            {
              return index - first
            }
            index += 1
          }
          return nil
        }
        if let found { return found }
        // The last 3 bytes may start the line; looked at again with the next piece.
        from = max(0, buffer.count - start - 3)
        guard more() else { return nil }
      }
    }

    /// Whether the copy has no more bytes.
    private mutating func atEnd() -> Bool {
      start == buffer.count && !more() && !failed
    }

    /// The rows of the array of objects that is the whole copy, each read by `row` (see
    /// `Cursor.rows`); nil when the copy is not in the form `DataExport` writes, or a read
    /// failed.
    mutating func rows<Row>(_ row: (inout Cursor) throws(NotWritten) -> Row) -> [Row]? {
      var rows: [Row] = []
      let read = forEachRow { cursor throws(NotWritten) in rows.append(try row(&cursor)) }
      return read ? rows : nil
    }

    /// Reads each row of the whole copy by `row` (see `rows`); false when the copy is not in
    /// the form `DataExport` writes, or a read failed.
    mutating func forEachRow(_ row: (inout Cursor) throws(NotWritten) -> Void) -> Bool {
      guard take("[") else { return false }
      if take("]\n") { return atEnd() }
      guard take("\n  {") else { return false }
      while true {
        guard let length = rowLength() else { return false }
        let first = start
        let parsed: Bool = buffer.withUnsafeBytes { raw in
          var cursor = Cursor(UnsafeRawBufferPointer(rebasing: raw[first..<first + length]))
          guard (try? row(&cursor)) != nil else { return false }
          return cursor.isAtEnd
        }
        guard parsed else { return false }
        start += length
        guard take("\n  }") else { return false }
        if take("\n]\n") { return atEnd() }
        guard take(",\n  {") else { return false }
      }
    }
  }
}
