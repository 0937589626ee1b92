/// The slots of an open addressing table of numbered paths (`PathTable`, `Manifest.Files`): 8
/// bytes a slot, 0 when empty, else 32 bits of the path's hash above its number plus one. A
/// lookup compares 32 bits of hash, and asks its table to compare paths only when those are
/// equal; growing moves the slots without hashing a path again. Linear probing, over a power of
/// two of slots that the tables keep at most three in four used.
struct HashSlots: Sendable {
  private(set) var slots: [UInt64]

  init(count: Int) {
    precondition(count > 0 && count & (count - 1) == 0, "a power of two of slots")
    slots = [UInt64](repeating: 0, count: count)
  }

  /// How many slots.
  var count: Int { slots.count }

  var mask: Int { slots.count - 1 }

  subscript(position: Int) -> UInt64 {
    get { slots[position] }
    set { slots[position] = newValue }
  }

  /// The slot of number `number` under `hash`.
  static func slot(hash: UInt32, number: Int) -> UInt64 {
    UInt64(hash) << 32 | UInt64(number + 1)
  }

  /// The number in a slot that is not empty.
  static func number(_ slot: UInt64) -> Int {
    Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1
  }

  /// Where a slot's probe starts.
  func home(_ slot: UInt64) -> Int {
    Int(truncatingIfNeeded: slot >> 32) & mask
  }

  /// Where the path whose hash is `hash` is (`matches` tells whether the path of a number is
  /// it), or the empty slot where it would go.
  func position(hash: UInt32, matches: (Int) -> Bool) -> Int {
    var at = Int(hash) & mask
    while true {
      let slot = slots[at]
      if slot == 0 || (UInt32(truncatingIfNeeded: slot >> 32) == hash && matches(Self.number(slot)))
      {
        return at
      }
      at = (at + 1) & mask
    }
  }

  /// Moves the slots into `count` of them (a larger power of two).
  mutating func grow(to count: Int) {
    precondition(count <= 1 << 32, "more than 3 * 2^30 paths in one table")
    let old = slots
    self = HashSlots(count: count)
    for slot in old where slot != 0 {
      var at = home(slot)
      while slots[at] != 0 { at = (at + 1) & mask }
      slots[at] = slot
    }
  }
}
