/// The paths added to a build, each with its number (its index in `OutputWriter.State.records`).
///
/// Open addressing over the paths' own hashes (`HashSlots`). A `[String: Int]` of a site's
/// 100,000 paths costs several times more per added file (it rehashes every path as it grows
/// and compares paths on its way), and every file's lookup lands on memory no other file
/// touched: the smaller the table, the better.
struct PathTable {
  private var slots = HashSlots(count: 1024)
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
    return slot == 0 ? nil : HashSlots.number(slot)
  }

  /// Files `path` (whose `hash(of:)` is `hash`) under `number`, unless it is there already:
  /// then returns the number it has.
  mutating func insert(
    _ path: String, hash: UInt32, number: Int, records: OutputWriter.RecordTable
  ) -> Int? {
    if (count + 1) * 4 > slots.count * 3 { slots.grow(to: slots.count * 2) }
    let found = position(of: path, hash: hash, records: records)
    if slots[found] != 0 { return HashSlots.number(slots[found]) }
    slots[found] = HashSlots.slot(hash: hash, number: number)
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
      let home = slots.home(moved)
      // The slot stays when its home lies (cyclically) after the hole, up to where it is.
      let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
      if stays { continue }
      slots[hole] = moved
      hole = next
    }
    slots[hole] = 0
  }

  /// Where `path` is, or the empty slot where it would go.
  private func position(of path: String, hash: UInt32, records: OutputWriter.RecordTable) -> Int {
    slots.position(hash: hash) { records.hasPath($0, path) }
  }

  /// Makes room for `count` paths in all without growing.
  mutating func reserveCapacity(_ count: Int) {
    var size = slots.count
    while count * 4 > size * 3 { size *= 2 }
    if size > slots.count { slots.grow(to: size) }
  }
}
