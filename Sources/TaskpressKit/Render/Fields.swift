import Mustache

/// A few fields in order, looked up one by one: cheaper than a dictionary for the handful of
/// names a page or a priority has.
struct Fields: MustacheObject, ExpressibleByDictionaryLiteral {
  private(set) var pairs: [(key: String, value: MustacheValue)]

  init() {
    pairs = []
  }

  /// No fields yet, with room for `capacity`.
  init(capacity: Int) {
    pairs = []
    pairs.reserveCapacity(capacity)
  }

  init(dictionaryLiteral elements: (String, MustacheValue)...) {
    pairs = elements.map { (key: $0.0, value: $0.1) }
  }

  var keys: [String] { pairs.map(\.key) }

  func value(forKey key: String) -> MustacheValue? {
    // Comparing lengths first is nearly free and rules out most keys.
    let length = key.utf8.count
    for pair in pairs where pair.key.utf8.count == length && pair.key == key {
      return pair.value
    }
    return nil
  }

  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    let length = key.utf8.count
    for index in pairs.indices where pairs[index].key.utf8.count == length {
      guard pairs[index].key == key else { continue }
      switch pairs[index].value {
      case .string(let text): return .hand(text, to: body)
      case .utf8(let bytes):
        bytes.withUnsafeBufferPointer(body)
        return .handed
      default: return .useValue
      }
    }
    return .missing
  }

  /// Sets `key` to `value`, replacing an earlier value.
  subscript(key: String) -> MustacheValue? {
    get { value(forKey: key) }
    set {
      let length = key.utf8.count
      let index = pairs.firstIndex { $0.key.utf8.count == length && $0.key == key }
      switch (index, newValue) {
      case (let index?, let value?): pairs[index].value = value
      case (let index?, nil): pairs.remove(at: index)
      case (nil, let value?): pairs.append((key: key, value: value))
      case (nil, nil): break
      }
    }
  }
}
