/// The keys of the rows a source has taken, to skip a row whose key came before: a damaged
/// b-tree can return a row twice, anywhere in the scan.
///
/// The rows are read in key order. While each key is greater than the one before, none can
/// have come before, and no set is kept (a set of a million keys was 16 MB and a fifth of
/// reading the to-dos). At the first key that is not, the keys taken so far go into a set, and
/// from there every key is looked up in it, as `Set.insert` would have looked up all of them
/// (`SeenKeysTests` checks the two against each other).
struct SeenKeys {
  private var last: Int64?
  private var set: Set<Int64>?

  /// Whether `key` is new, and notes it if so; `taken` gives the keys noted so far, asked for
  /// once, at the first key out of order.
  mutating func insert(_ key: Int64, taken: () -> [Int64]) -> Bool {
    if set == nil {
      guard let last, key <= last else {
        last = key
        return true
      }
      set = Set(taken())
    }
    return set?.insert(key).inserted ?? true
  }
}
