/// The data a template is rendered with: the JSON data model.
///
/// Objects are dictionaries, so the order of their keys never reaches the output. Build values
/// with literals (`["title": "Milk", "done": false, "tags": ["a", "b"]]`), with the cases, or
/// from JSON text with ``init(json:)``.
public enum MustacheValue: Sendable, Equatable {
  /// A missing value: falsey, interpolates as nothing.
  case null
  /// `true` or `false`; interpolates as `true` or `false`.
  case bool(Bool)
  /// An integer; interpolates in decimal, e.g. `85`.
  case int(Int64)
  /// A floating-point number; interpolates like JavaScript prints it (`1.21`, `85` for `85.0`).
  case double(Double)
  /// Text; interpolates escaped as the template's ``Escaping`` says.
  case string(String)
  /// Text given as UTF-8 bytes (which must be valid UTF-8): it behaves as `.string` with that
  /// text, without being made into a `String` first. For a large text made as bytes and
  /// inserted once, such as a page's rendered HTML.
  case utf8([UInt8])
  /// A list: a section renders once per element.
  case array([MustacheValue])
  /// A hash: its keys are names a template can look up.
  case object([String: MustacheValue])
  /// A list whose elements are made when a section reaches them, so that a list of 100,000
  /// rows never has to be in memory at once; otherwise it behaves as `.array`.
  case list(MustacheList)
  /// An object whose values are made when a template looks them up, so that a page's context
  /// costs no dictionary; otherwise it behaves as `.object`. Make one with
  /// ``computed(_:)-swift.type.method``.
  case computed(MustacheObjectBox)
}

/// A ``MustacheObject`` held by reference: a value holding it is one word, and a lookup asks
/// the object where it is instead of copying it out first.
public final class MustacheObjectBox: Sendable {
  /// The object.
  public let object: any MustacheObject

  /// Holds `object`.
  public init(_ object: any MustacheObject) {
    self.object = object
  }
}

extension MustacheValue {
  /// An object whose values are made when a template looks them up; see
  /// ``computed(_:)-swift.enum.case``.
  public static func computed(_ object: any MustacheObject) -> MustacheValue {
    .computed(MustacheObjectBox(object))
  }
}

/// An object that makes its values on demand; see ``MustacheValue/computed(_:)``.
///
/// A type wrapping a row (a to-do, a possession) answers `value(forKey:)` from the row instead
/// of copying every field into a dictionary that a template reads two of.
public protocol MustacheObject: Sendable {
  /// Every key the object has a value for.
  var keys: [String] { get }
  /// The value of `key`; nil when the object has no such key.
  func value(forKey key: String) -> MustacheValue?
  /// Hands `body` the text that `{{key}}` inserts for the value of `key`, as UTF-8 bytes that
  /// are valid during the call only, without making the value: a row's text read in place, a
  /// link written into a buffer on the stack. A render asks this first when it interpolates a
  /// name whose last key this object holds, and `value(forKey:)` when the answer is
  /// ``MustacheTextLookup/useValue``, as the default implementation always answers.
  ///
  /// The answer must agree with `value(forKey:)`: ``MustacheTextLookup/missing`` exactly when
  /// that returns nil, and the bytes handed its value's ``MustacheValue/interpolatedText``.
  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
}

/// What ``MustacheObject/text(forKey:_:)`` did.
public enum MustacheTextLookup: Sendable, Equatable {
  /// The object has no value for the key.
  case missing
  /// The object handed the text of the key's value to the body.
  case handed
  /// The object did not hand the text: the render asks for the value instead.
  case useValue

  /// Hands the UTF-8 bytes of `text` to `body`; returns ``handed``.
  @inlinable
  public static func hand(_ text: String, to body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    // A native string lends its bytes in place; another is made native first.
    if text.utf8.withContiguousStorageIfAvailable(body) == nil {
      var copy = text
      copy.withUTF8(body)
    }
    return .handed
  }

  /// Hands `number` in decimal, as `{{number}}` inserts it, to `body`; returns ``handed``.
  public static func hand(_ number: Int64, to body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var magnitude = number.magnitude
      var start = digits.count
      repeat {
        start -= 1
        digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
      } while magnitude > 0
      if number < 0 {
        start -= 1
        digits[start] = UInt8(ascii: "-")
      }
      body(UnsafeBufferPointer(rebasing: digits[start...]))
    }
    return .handed
  }
}

extension MustacheObject {
  /// Answers ``MustacheTextLookup/useValue``: the render asks `value(forKey:)`.
  public func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    .useValue
  }
}

extension MustacheObject {
  /// The object as a dictionary: every key with its value.
  public var dictionary: [String: MustacheValue] {
    var result: [String: MustacheValue] = [:]
    for key in keys {
      if let value = value(forKey: key) { result[key] = value }
    }
    return result
  }
}

extension MustacheValue {
  /// Values are equal when they show the same data: a computed object equals the `.object`
  /// with the same keys and values, a list the `.array` with the same elements.
  public static func == (lhs: MustacheValue, rhs: MustacheValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.int(let a), .int(let b)): return a == b
    case (.double(let a), .double(let b)): return a == b
    case (.string(let a), .string(let b)): return a == b
    case (.utf8(let a), .utf8(let b)): return a == b
    case (.utf8(let a), .string(let b)), (.string(let b), .utf8(let a)):
      return String(decoding: a, as: UTF8.self) == b
    case (.array(let a), .array(let b)): return a == b
    case (.list(let a), .list(let b)): return a == b
    case (.object, .object), (.object, .computed), (.computed, .object), (.computed, .computed):
      return lhs.objectFields == rhs.objectFields
    default: return false
    }
  }

  /// The fields of an object (plain or computed); nil for any other value.
  var objectFields: [String: MustacheValue]? {
    switch self {
    case .object(let fields): fields
    case .computed(let box): box.object.dictionary
    default: nil
    }
  }

  /// What a lookup of `key` in this value finds, for an interpolation: the text handed to
  /// `body` when the value is an object that hands it (a computed object that answers
  /// ``MustacheObject/text(forKey:_:)``, or a plain object whose value is a string), else the
  /// value.
  @inline(__always)
  func resolveText(_ key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> ResolvedText {
    switch self {
    case .object(let fields):
      switch fields[key] {
      case .none: return .missing
      case .some(.string(let text)):
        _ = MustacheTextLookup.hand(text, to: body)
        return .handed
      case .some(let value): return .value(value)
      }
    case .computed(let box):
      switch box.object.text(forKey: key, body) {
      case .missing: return .missing
      case .handed: return .handed
      case .useValue:
        guard let value = box.object.value(forKey: key) else { return .missing }
        return .value(value)
      }
    default:
      return .missing
    }
  }

  /// The value of `key` when this is an object (plain or computed).
  @inline(__always)
  func member(_ key: String) -> MustacheValue? {
    switch self {
    case .object(let fields): fields[key]
    case .computed(let box): box.object.value(forKey: key)
    default: nil
    }
  }
}

/// What ``MustacheValue/resolveText(_:_:)`` found.
enum ResolvedText {
  /// No value for the key.
  case missing
  /// The value's text was handed over.
  case handed
  /// The value, to interpolate as it is.
  case value(MustacheValue)

  var isMissing: Bool {
    if case .missing = self { true } else { false }
  }
}

/// A list of values made on demand, one element at a time; see ``MustacheValue/list(_:)``.
public struct MustacheList: Sendable, Equatable {
  /// The number of elements.
  public let count: Int
  private let element: @Sendable (Int) -> MustacheValue

  /// Creates a list of `count` elements; `element(i)` makes the element at `i`, each time it is
  /// needed.
  public init(count: Int, element: @escaping @Sendable (Int) -> MustacheValue) {
    self.count = max(0, count)
    self.element = element
  }

  /// The element at `index`, made now.
  public subscript(index: Int) -> MustacheValue {
    element(index)
  }

  /// Lists are equal when their elements are.
  public static func == (lhs: MustacheList, rhs: MustacheList) -> Bool {
    lhs.count == rhs.count && (0..<lhs.count).allSatisfy { lhs[$0] == rhs[$0] }
  }
}

// MARK: - Truthiness and interpolation

extension MustacheValue {
  /// Whether a section shows this value: `null`, `false`, `0`, `NaN`, `""` and `[]` are falsey,
  /// as JavaScript's `!!value` says (the spec's definition); everything else is truthy.
  public var isTruthy: Bool {
    switch self {
    case .null: return false
    case .bool(let value): return value
    case .int(let value): return value != 0
    case .double(let value): return value != 0 && !value.isNaN
    case .string(let value): return !value.isEmpty
    case .utf8(let bytes): return !bytes.isEmpty
    case .array(let values): return !values.isEmpty
    case .list(let list): return list.count > 0
    case .object, .computed: return true
    }
  }

  /// The text `{{value}}` inserts before escaping. Objects insert nothing; a list inserts its
  /// elements joined by commas, as JavaScript prints an array.
  public var interpolatedText: String {
    switch self {
    case .null, .object, .computed: return ""
    case .bool(let value): return value ? "true" : "false"
    case .int(let value): return String(value)
    case .double(let value): return Self.format(value)
    case .string(let value): return value
    case .utf8(let bytes): return String(decoding: bytes, as: UTF8.self)
    case .array(let values): return values.map(\.interpolatedText).joined(separator: ",")
    case .list(let list):
      return (0..<list.count).map { list[$0].interpolatedText }.joined(separator: ",")
    }
  }

  /// Formats a double like JavaScript's `String(number)` for the common cases: integral values
  /// print without a fraction, others as the shortest text that reads back the same value.
  static func format(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
    if value == value.rounded(), abs(value) < 1e15 {
      return String(Int64(value))
    }
    return value.description
  }
}

// MARK: - Literals

extension MustacheValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
  ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
  /// Creates `.null`.
  public init(nilLiteral: ()) { self = .null }
  /// Creates `.bool`.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  /// Creates `.int`.
  public init(integerLiteral value: Int64) { self = .int(value) }
  /// Creates `.double`.
  public init(floatLiteral value: Double) { self = .double(value) }
  /// Creates `.string`.
  public init(stringLiteral value: String) { self = .string(value) }
  /// Creates `.array`.
  public init(arrayLiteral elements: MustacheValue...) { self = .array(elements) }
  /// Creates `.object`; a repeated key keeps its last value.
  public init(dictionaryLiteral elements: (String, MustacheValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
}
