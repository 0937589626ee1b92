/// The previous build's to-dos, as read back from its data copy, packed: their keys,
/// priorities and states in arrays, and their texts one after the other (`TodoTexts`).
///
/// A `[PreviousBuild.Todo]` made a `String` of each text: a million to-dos were about 100 MB
/// (a struct of 40 bytes and a text of its own each), held by a rebuild beside this build's
/// rows; packed, they are about 50 MB, and reading them makes no `String`. Read one at a time
/// (`subscript`), a to-do is a `PreviousBuild.Todo`.
struct PreviousTodos: RandomAccessCollection, Sendable, Equatable, ExpressibleByArrayLiteral {
  private let pks: [Int64]
  /// A priority's number; 0 where there is none (`Flags.hasPriority` tells them apart).
  private let priorities: [Int64]
  private let flags: [Flags]
  private let texts: TodoTexts
  /// The text keys (`TodoKey`); empty where a key is a number.
  private let keys: TodoTexts
  /// The due dates (empty where there is none: `Flags.hasDue`), when the copy had the field.
  private let dues: TodoTexts
  /// Whether the copy had due dates (`PreviousBuild.Todo.hasDueField`): only then are they
  /// compared.
  let hasDueDates: Bool

  fileprivate struct Flags: OptionSet, Sendable, Equatable {
    let rawValue: UInt8
    static let complete = Flags(rawValue: 1)
    static let hasPriority = Flags(rawValue: 2)
    static let hasDue = Flags(rawValue: 4)
  }

  /// To-dos as they are read, one after another.
  struct Builder {
    fileprivate var pks: [Int64] = []
    fileprivate var priorities: [Int64] = []
    fileprivate var flags: [Flags] = []
    fileprivate var texts = TodoTexts.Builder()
    fileprivate var keys = TodoTexts.Builder()
    fileprivate var dues = TodoTexts.Builder()
    fileprivate var hasDueDates = false

    /// Adds a to-do, whose text's UTF-8 is `text`; `due` is its due date's, when the copy
    /// has the field (nil there when it has no due date); `key` its text key's (nil for a
    /// number).
    mutating func append(
      pk: Int64, text: UnsafeBufferPointer<UInt8>, priority: Int64?, complete: Bool,
      due: UnsafeBufferPointer<UInt8>?? = .none, key: UnsafeBufferPointer<UInt8>? = nil
    ) {
      keys.append(key ?? UnsafeBufferPointer(start: nil, count: 0))
      pks.append(pk)
      priorities.append(priority ?? 0)
      var flags = Flags(
        rawValue: (complete ? 1 : 0) | (priority == nil ? 0 : Flags.hasPriority.rawValue))
      texts.append(text)
      if case .some(let due) = due {
        hasDueDates = true
        if due != nil { flags.insert(.hasDue) }
        dues.append(due ?? UnsafeBufferPointer(start: nil, count: 0))
      } else {
        dues.append(UnsafeBufferPointer(start: nil, count: 0))
      }
      self.flags.append(flags)
    }
  }

  init(_ builder: consuming Builder) {
    let builder = builder
    pks = builder.pks
    priorities = builder.priorities
    flags = builder.flags
    texts = TodoTexts(builder.texts)
    keys = TodoTexts(builder.keys)
    dues = TodoTexts(builder.dues)
    hasDueDates = builder.hasDueDates
  }

  init(_ todos: some Sequence<PreviousBuild.Todo>) {
    var builder = Builder()
    for todo in todos {
      var text = todo.text
      var key = todo.key
      var due = todo.due ?? ""
      text.withUTF8 { text in
        due.withUTF8 { utf8 in
          let field: UnsafeBufferPointer<UInt8>?? =
            todo.hasDueField ? .some(todo.due == nil ? nil : utf8) : .none
          withOptionalUTF8(&key) {
            builder.append(
              pk: todo.pk, text: text, priority: todo.priority, complete: todo.complete,
              due: field, key: $0)
          }
        }
      }
    }
    self.init(builder)
  }

  init(arrayLiteral todos: PreviousBuild.Todo...) {
    self.init(todos)
  }

  var startIndex: Int { 0 }
  var endIndex: Int { pks.count }

  /// The to-do at `position`, made now (its text as a `String`).
  subscript(position: Int) -> PreviousBuild.Todo {
    PreviousBuild.Todo(
      pk: pks[position], text: text(position), priority: priority(position),
      complete: isComplete(position), key: key(position), due: due(position),
      hasDueField: hasDueDates)
  }

  func pk(_ position: Int) -> Int64 { pks[position] }

  /// The text key at `position`; nil when the key is a number.
  func key(_ position: Int) -> String? {
    guard !keys.isEmptyOfText, !keys.isEmpty(position) else { return nil }
    return keys.withText(position) { String(decoding: $0, as: UTF8.self) }
  }

  func priority(_ position: Int) -> Int64? {
    flags[position].contains(.hasPriority) ? priorities[position] : nil
  }

  func isComplete(_ position: Int) -> Bool { flags[position].contains(.complete) }

  /// The due date at `position`; nil when it had none, or the copy no due dates.
  func due(_ position: Int) -> String? {
    guard flags[position].contains(.hasDue) else { return nil }
    return dues.withText(position) { String(decoding: $0, as: UTF8.self) }
  }

  /// The text at `position`, as a `String`.
  func text(_ position: Int) -> String {
    texts.withText(position) { String(decoding: $0, as: UTF8.self) }
  }

  /// Hands the UTF-8 text of the to-do at `position` to `body`.
  func withText<R>(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows
    -> R
  {
    try texts.withText(position, body)
  }

  static func == (a: PreviousTodos, b: PreviousTodos) -> Bool {
    a.pks == b.pks && a.priorities == b.priorities && a.flags == b.flags
      && a.indices.allSatisfy { a.key($0) == b.key($0) }
      && a.hasDueDates == b.hasDueDates
      && a.indices.allSatisfy { position in
        a.withText(position) { ours in b.withText(position) { ours.elementsEqual($0) } }
          && a.due(position) == b.due(position)
      }
  }
}

extension PreviousTodos: CustomStringConvertible {
  /// As the `[PreviousBuild.Todo]` of the same to-dos describes itself.
  var description: String { "\(Array(self))" }
}

extension PreviousTodos: Decodable {
  /// Decodes them as the `[PreviousBuild.Todo]` they are written as: the same errors, at the
  /// same places.
  init(from decoder: any Decoder) throws {
    self.init(try [PreviousBuild.Todo](from: decoder))
  }
}
