import Testing

@testable import TaskpressKit

/// `SeenKeys`, which keeps no set while the keys increase, against its plain twin, a
/// `Set<Int64>` of every key.
@Suite struct SeenKeysTests {
  @Test("keys increasing, repeated, or out of order anywhere: new exactly when a set says so")
  func againstSet() {
    var generator = SplitMix(state: 2026)
    for round in 0..<500 {
      let count = Int(generator.next() % 60)
      var keys: [Int64] = []
      var key = Int64(generator.next() % 7) - 3
      for _ in 0..<count {
        switch generator.next() % 10 {
        case 0: break  // the same key again
        case 1: key = Int64(generator.next() % 40) - 5  // anywhere
        default: key += Int64(generator.next() % 3) + 1
        }
        keys.append(key)
      }
      if round % 5 == 0 { keys.sort() }
      var seen = SeenKeys()
      var set = Set<Int64>()
      var taken: [Int64] = []
      var asked = 0
      for key in keys {
        let new = seen.insert(key) {
          asked += 1
          return taken
        }
        #expect(new == set.insert(key).inserted, "round \(round): \(keys)")
        if new { taken.append(key) }
      }
      // The keys taken are asked for once at most, and not while they increase.
      #expect(asked <= 1)
      if keys.indices.dropFirst().allSatisfy({ keys[$0 - 1] < keys[$0] }) { #expect(asked == 0) }
    }
  }
}
