#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// To-dos packed in a few arrays: each to-do's pk, priority and state as plain numbers, and
/// every text in one block of memory (``TodoTexts``). About 25 bytes and the text a to-do,
/// where a `[Todo]` took about 56 and a `String` of its own for each text (a million to-dos
/// are 175 MB that way, 60 MB this way).
///
/// A collection of ``Todo``s, each made when asked for; a render asks for the field it shows
/// (`pk(_:)`, `priority(_:)`, `texts`), which makes nothing.
public final class TodoRows: RandomAccessCollection, Sendable {
  private let pks: [Int64]
  /// The number of a priority that is another number (else 0), up to the last such to-do:
  /// empty when there is none (as in most sites), not 8 bytes a to-do.
  private let priorityNumbers: [Int64]
  private let flags: [Flags]
  /// The texts, in the same order.
  let texts: TodoTexts
  /// The due dates, in the same order (empty where there is none).
  let dues: TodoTexts
  /// The text keys (``TodoKey``), in the same order (empty where the key is a number).
  let keys: TodoTexts

  /// Whether a to-do is complete and has a due date, and its priority's kind (bits 2-4: the
  /// `Priority.rank`, so that `.other(2)` stays itself and does not read back as `.medium`).
  struct Flags: OptionSet, Sendable {
    let rawValue: UInt8
    static let complete = Flags(rawValue: 1)
    static let hasDue = Flags(rawValue: 2)
    /// The key is text (`keys` holds it).
    static let textKey = Flags(rawValue: 0x80)

    init(rawValue: UInt8) {
      self.rawValue = rawValue
    }

    init(complete: Bool, hasDue: Bool, priority: Priority, textKey: Bool) {
      rawValue =
        (complete ? Self.complete.rawValue : 0) | (hasDue ? Self.hasDue.rawValue : 0)
        | UInt8(priority.rank) << 2 | (textKey ? Self.textKey.rawValue : 0)
    }

    var priorityRank: Int { Int((rawValue >> 2) & 0x7) }
  }

  /// Packs `todos`, in their order.
  public convenience init(_ todos: [Todo]) {
    var builder = Builder()
    for todo in todos {
      var text = todo.text
      var due = todo.due
      var key = todo.key
      text.withUTF8 { text in
        withOptionalUTF8(&due) { due in
          withOptionalUTF8(&key) { key in
            builder.append(
              pk: todo.pk, text: text, priority: todo.priority, complete: todo.complete, due: due,
              key: key)
          }
        }
      }
    }
    self.init(builder)
  }

  init(_ builder: consuming Builder) {
    pks = builder.pks
    priorityNumbers = builder.priorityNumbers
    flags = builder.flags
    texts = TodoTexts(builder.texts)
    dues = TodoTexts(builder.dues)
    keys = TodoTexts(builder.keys)
  }

  /// The to-dos at `positions` of `rows`, in that order.
  init(_ rows: TodoRows, at positions: some Collection<Int>) {
    pks = positions.map { rows.pks[$0] }
    priorityNumbers =
      rows.priorityNumbers.isEmpty
      ? [] : positions.map { $0 < rows.priorityNumbers.count ? rows.priorityNumbers[$0] : 0 }
    flags = positions.map { rows.flags[$0] }
    texts = TodoTexts(rows.texts, at: positions)
    dues = TodoTexts(rows.dues, at: positions)
    keys = TodoTexts(rows.keys, at: positions)
  }

  /// To-dos as they are read, one after another.
  struct Builder {
    fileprivate(set) var pks: [Int64] = []
    fileprivate var priorityNumbers: [Int64] = []
    fileprivate var flags: [Flags] = []
    fileprivate var texts = TodoTexts.Builder()
    fileprivate var dues = TodoTexts.Builder()
    fileprivate var keys = TodoTexts.Builder()

    /// How many to-dos.
    var count: Int { pks.count }

    mutating func append(
      pk: Int64, text: UnsafeBufferPointer<UInt8>, priority: Priority, complete: Bool,
      due: UnsafeBufferPointer<UInt8>?, key: UnsafeBufferPointer<UInt8>? = nil
    ) {
      appendText(text)
      append(pk: pk, priority: priority, complete: complete, due: due, key: key)
    }

    /// Starts the next to-do with its text; `append(pk:priority:complete:due:)` ends it.
    mutating func appendText(_ text: UnsafeBufferPointer<UInt8>) {
      precondition(texts.count == pks.count, "a to-do's text given twice")
      texts.append(text)
    }

    /// Ends the to-do started by `appendText`; `key` is its text key, nil when the key is a
    /// number.
    mutating func append(
      pk: Int64, priority: Priority, complete: Bool, due: UnsafeBufferPointer<UInt8>?,
      key: UnsafeBufferPointer<UInt8>? = nil
    ) {
      precondition(texts.count == pks.count + 1, "a to-do without its text")
      if case .other(let number) = priority {
        priorityNumbers += repeatElement(0, count: pks.count - priorityNumbers.count)
        priorityNumbers.append(number)
      }
      pks.append(pk)
      flags.append(
        Flags(complete: complete, hasDue: due != nil, priority: priority, textKey: key != nil))
      dues.append(due ?? UnsafeBufferPointer(start: nil, count: 0))
      keys.append(key ?? UnsafeBufferPointer(start: nil, count: 0))
    }
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { pks.count }

  /// The to-do at `position`, made now (its text and due date as `String`s).
  public subscript(position: Int) -> Todo {
    Todo(
      pk: pks[position], text: text(position), priority: priority(position),
      complete: isComplete(position), due: due(position), key: key(position))
  }

  public func pk(_ position: Int) -> Int64 { pks[position] }

  /// Every pk, in the rows' order: the array itself, which outlives the rows when kept.
  var pkColumn: [Int64] { pks }

  /// Whether each pk is greater than the one before (the order of a table's rowid).
  var isInPKOrder: Bool { pks.indices.dropFirst().allSatisfy { pks[$0 - 1] < pks[$0] } }

  public func priority(_ position: Int) -> Priority {
    switch flags[position].priorityRank {
    case 0: .high
    case 1: .medium
    case 2: .low
    case 3: .other(priorityNumbers[position])
    default: .none
    }
  }

  public func isComplete(_ position: Int) -> Bool { flags[position].contains(.complete) }

  public func text(_ position: Int) -> String {
    texts.withText(position) { String(decoding: $0, as: UTF8.self) }
  }

  /// Runs `body` with the UTF-8 bytes of the text at `position`.
  public func withText<T>(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T)
    rethrows -> T
  {
    try texts.withText(position, body)
  }

  /// Whether the text at `position` is `text`, as `String`'s `==` compares (canonical
  /// equivalence): a `String` is made only when their bytes differ and one is not ASCII.
  public func text(at position: Int, is text: String) -> Bool {
    let compare = { (utf8: UnsafeBufferPointer<UInt8>) in self.text(at: position, isUTF8: utf8) }
    if let done = text.utf8.withContiguousStorageIfAvailable(compare) { return done }
    var copy = text
    return copy.withUTF8(compare)
  }

  /// Whether the text at `position` is the text whose UTF-8 is `theirs` (valid UTF-8), as
  /// `text(at:is:)` compares.
  func text(at position: Int, isUTF8 theirs: UnsafeBufferPointer<UInt8>) -> Bool {
    texts.withText(position) { ours in
      if ours.count == theirs.count {
        guard let start = ours.baseAddress, let other = theirs.baseAddress else { return true }
        if memcmp(start, other, ours.count) == 0 { return true }
      }
      if ours.allSatisfy({ $0 < 0x80 }), theirs.allSatisfy({ $0 < 0x80 }) { return false }
      return String(decoding: ours, as: UTF8.self) == String(decoding: theirs, as: UTF8.self)
    }
  }

  public func hasDue(_ position: Int) -> Bool { flags[position].contains(.hasDue) }

  /// Whether the key at `position` is text (``TodoKey``).
  public func hasTextKey(_ position: Int) -> Bool { flags[position].contains(.textKey) }

  /// Whether any key is text.
  public var hasTextKeys: Bool { !keys.isEmptyOfText }

  /// The text key at `position`, nil when the key is a number.
  public func key(_ position: Int) -> String? {
    guard hasTextKey(position) else { return nil }
    return keys.withText(position) { String(decoding: $0, as: UTF8.self) }
  }

  /// The key at `position` as the app stores it, as text: the text key or the number's digits.
  public func keyText(_ position: Int) -> String {
    key(position) ?? String(pks[position])
  }

  /// The name of the page of the to-do at `position` (`todos/NAME.html`): the number's digits,
  /// or ``TodoKey/pageName(ofText:number:)`` of a text key.
  public func pageName(_ position: Int) -> String {
    guard hasTextKey(position) else { return String(pks[position]) }
    return keys.withText(position) { TodoKey.pageName(ofText: $0, number: pks[position]) }
  }

  /// Runs `body` with the UTF-8 bytes of the due date at `position`, nil when it has none.
  public func withDue<T>(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>?) throws -> T)
    rethrows -> T
  {
    guard hasDue(position) else { return try body(nil) }
    return try dues.withText(position, body)
  }

  public func due(_ position: Int) -> String? {
    guard hasDue(position) else { return nil }
    return dues.withText(position) { String(decoding: $0, as: UTF8.self) }
  }
}

/// Runs `body` with the UTF-8 of `text`, or nil.
func withOptionalUTF8<T>(_ text: inout String?, _ body: (UnsafeBufferPointer<UInt8>?) -> T) -> T {
  guard var value = text else { return body(nil) }
  defer { text = value }
  return value.withUTF8 { body($0) }
}

extension [UInt8]? {
  /// Runs `body` with the bytes, or nil.
  func withOptionalBuffer<T>(_ body: (UnsafeBufferPointer<UInt8>?) -> T) -> T {
    guard let self else { return body(nil) }
    return self.withUnsafeBufferPointer { body($0) }
  }
}
