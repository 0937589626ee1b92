/// The paths added to a build, each with its number (its index in `OutputWriter.State.records`).
///
/// Open addressing over the paths' own hashes, 8 bytes a slot, at most three in four of them
/// used: a lookup compares 32 bits of hash, and paths only when those are equal; growing moves
/// the slots without hashing a path again. A `[String: Int]` of a site's 100,000 paths costs several times more per added file
/// (it rehashes every path as it grows and compares paths on its way), and every file's
/// lookup lands on memory no other file touched: the smaller the table, the better.
struct PathTable {
  /// 0 for an empty slot, else 32 bits of the path's hash above its number plus one.
  private var slots = [UInt64](repeating: 0, count: 1024)
  /// How many paths the table holds.
  private(set) var count = 0

  /// The hash that `PathTable` files `path` under.
  static func hash(of path: String) -> UInt32 {
    var path = path
    return path.withUTF8 {
      UInt32(truncatingIfNeeded: ContentHash(of: UnsafeRawBufferPointer($0)).value >> 32)
    }
  }

  /// The number of `path` (whose `hash(of:)` is `hash`), or nil.
  func number(of path: String, hash: UInt32, records: OutputWriter.RecordTable) -> Int? {
    let slot = slots[position(of: path, hash: hash, records: records)]
    return slot == 0 ? nil : Self.number(slot)
  }

  /// Files `path` (whose `hash(of:)` is `hash`) under `number`, unless it is there already:
  /// then returns the number it has.
  mutating func insert(
    _ path: String, hash: UInt32, number: Int, records: OutputWriter.RecordTable
  ) -> Int? {
    if (count + 1) * 4 > slots.count * 3 { grow() }
    let found = position(of: path, hash: hash, records: records)
    if slots[found] != 0 { return Self.number(slots[found]) }
    slots[found] = UInt64(hash) << 32 | UInt64(number + 1)
    count += 1
    return nil
  }

  /// Forgets `path` (whose `hash(of:)` is `hash`), when it is there.
  mutating func remove(_ path: String, hash: UInt32, records: OutputWriter.RecordTable) {
    var hole = position(of: path, hash: hash, records: records)
    guard slots[hole] != 0 else { return }
    count -= 1
    // Linear probing: move back each later slot of the run that could no longer be found past
    // the hole, so that no lookup stops there.
    let mask = slots.count - 1
    var next = hole
    while true {
      next = (next + 1) & mask
      let moved = slots[next]
      if moved == 0 { break }
      let home = Self.home(moved, mask)
      // The slot stays when its home lies (cyclically) after the hole, up to where it is.
      let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
      if stays { continue }
      slots[hole] = moved
      hole = next
    }
    slots[hole] = 0
  }

  private static func number(_ slot: UInt64) -> Int {
    Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1
  }

  private static func home(_ slot: UInt64, _ mask: Int) -> Int {
    Int(truncatingIfNeeded: slot >> 32) & mask
  }

  /// Where `path` is, or the empty slot where it would go.
  private func position(of path: String, hash: UInt32, records: OutputWriter.RecordTable) -> Int {
    let mask = slots.count - 1
    var at = Int(hash) & mask
    while true {
      let slot = slots[at]
      if slot == 0
        || (UInt32(truncatingIfNeeded: slot >> 32) == hash
          && records.hasPath(Self.number(slot), path))
      {
        return at
      }
      at = (at + 1) & mask
    }
  }

  /// Makes room for `count` paths in all without growing.
  mutating func reserveCapacity(_ count: Int) {
    while count * 4 > slots.count * 3 { grow() }
  }

  private mutating func grow() {
    precondition(slots.count < 1 << 32, "more than 2^31 files in one build")
    let old = slots
    slots = [UInt64](repeating: 0, count: old.count * 2)
    let mask = slots.count - 1
    for slot in old where slot != 0 {
      var at = Self.home(slot, mask)
      while slots[at] != 0 { at = (at + 1) & mask }
      slots[at] = slot
    }
  }
}
