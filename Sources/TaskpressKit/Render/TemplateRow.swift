import Mustache

/// A row as templates see it (a to-do, a possession, a photo, a contact, a page's own info),
/// its keys written once: the fields are the cases of `Field`, and `answer(_:to:)` says what
/// each is. `keys`, `value(forKey:)` and `text(forKey:_:)` are all derived from those two, so
/// the value a section sees and the text an interpolation writes cannot drift apart.
protocol TemplateRow: MustacheObject {
  associatedtype Field: TemplateField
  /// Whether the row has `field` now (a possession without a photo has no `photo`); every
  /// field by default.
  func has(_ field: Field) -> Bool
  /// What `field` is, said to `sink`: as text, as a number, or as a value. `body` is where a
  /// text sink hands the text; pass it on to the sink's calls.
  func answer<Sink: FieldSink>(_ field: Field, to sink: Sink, _ body: TextBody) -> Sink.Result
}

/// The fields of a `TemplateRow`: their raw values are the template keys.
protocol TemplateField: RawRepresentable<String>, CaseIterable, Sendable {
  /// The fields, found by key (make it `FieldTable(Self.self)`, once).
  static var table: FieldTable<Self> { get }
}

/// Finds a field by its key, comparing lengths first: a lookup that falls through a row to the
/// page (`labels`, `site`) costs at most a comparison or two.
struct FieldTable<Field: TemplateField>: Sendable {
  private let entries: [(key: String, length: Int, field: Field)]

  init(_ type: Field.Type) {
    entries = Field.allCases.map { ($0.rawValue, $0.rawValue.utf8.count, $0) }
  }

  /// The field whose key is `key`, if there is one.
  @inline(__always)
  func field(_ key: String) -> Field? {
    let length = key.utf8.count
    for entry in entries where entry.length == length && entry.key == key {
      return entry.field
    }
    return nil
  }
}

/// Where `text(forKey:_:)` hands a field's UTF-8 bytes.
typealias TextBody = (UnsafeBufferPointer<UInt8>) -> Void

/// What a `TemplateRow` says a field is; the two sinks make a value of it, or hand its text to
/// `body` (which the value sink ignores: a closure is passed along, never stored, so that a
/// lookup allocates nothing).
protocol FieldSink {
  associatedtype Result
  /// The field is the text `text`.
  func text(_ text: String, _ body: TextBody) -> Result
  /// The field is the text `make()` would make, whose UTF-8 bytes `write` hands to the body
  /// in place (a row's text in the plan's block, a link written on the stack).
  func text(_ make: () -> String, bytes write: () -> Void) -> Result
  /// The field is a whole number.
  func number(_ number: Int64, _ body: TextBody) -> Result
  /// The field is a value that is not text (a priority object, a flag, a photo).
  func value(_ make: () -> MustacheValue) -> Result
  /// The row has no such field now.
  var missing: Result { get }
}

extension TemplateRow {
  func has(_ field: Field) -> Bool { true }

  var keys: [String] { Field.allCases.filter(has).map(\.rawValue) }

  func value(forKey key: String) -> MustacheValue? {
    guard let field = Field.table.field(key), has(field) else { return nil }
    return answer(field, to: ValueSink()) { _ in }
  }

  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    guard let field = Field.table.field(key), has(field) else { return .missing }
    return answer(field, to: TextSink(), body)
  }
}

/// Makes a field's value: what `value(forKey:)` returns.
struct ValueSink: FieldSink {
  func text(_ text: String, _ body: TextBody) -> MustacheValue? { .string(text) }

  func text(_ make: () -> String, bytes write: () -> Void) -> MustacheValue? {
    .string(make())
  }

  func number(_ number: Int64, _ body: TextBody) -> MustacheValue? { .int(number) }
  func value(_ make: () -> MustacheValue) -> MustacheValue? { make() }
  var missing: MustacheValue? { nil }
}

/// Hands a field's text to an interpolation without making its value, when it can: what
/// `text(forKey:_:)` does.
struct TextSink: FieldSink {
  func text(_ text: String, _ body: TextBody) -> MustacheTextLookup { .hand(text, to: body) }

  func text(_ make: () -> String, bytes write: () -> Void) -> MustacheTextLookup {
    write()
    return .handed
  }

  func number(_ number: Int64, _ body: TextBody) -> MustacheTextLookup {
    .hand(number, to: body)
  }

  func value(_ make: () -> MustacheValue) -> MustacheTextLookup { .useValue }
  var missing: MustacheTextLookup { .missing }
}
