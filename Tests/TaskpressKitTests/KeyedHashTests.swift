import Foundation
import Testing

@testable import TaskpressKit

@Suite("KeyedHashTests")
struct KeyedHashTests {
  /// The reference vectors of SipHash-2-4-128 (key 00 01 .. 0f, message 00 01 .. len-1).
  static let vectors: [Int: [UInt8]] = [
    0: [
      0xa3, 0x81, 0x7f, 0x04, 0xba, 0x25, 0xa8, 0xe6, 0x6d, 0xf6, 0x72, 0x14, 0xc7, 0x55, 0x02,
      0x93,
    ],
    1: [
      0xda, 0x87, 0xc1, 0xd8, 0x6b, 0x99, 0xaf, 0x44, 0x34, 0x76, 0x59, 0x11, 0x9b, 0x22, 0xfc,
      0x45,
    ],
    8: [
      0x3b, 0x62, 0xa9, 0xba, 0x62, 0x58, 0xf5, 0x61, 0x0f, 0x83, 0xe2, 0x64, 0xf3, 0x14, 0x97,
      0xb4,
    ],
    15: [
      0x54, 0x93, 0xe9, 0x99, 0x33, 0xb0, 0xa8, 0x11, 0x7e, 0x08, 0xec, 0x0f, 0x97, 0xcf, 0xc3,
      0xd9,
    ],
    16: [
      0x6e, 0xe2, 0xa4, 0xca, 0x67, 0xb0, 0x54, 0xbb, 0xfd, 0x33, 0x15, 0xbf, 0x85, 0x23, 0x05,
      0x77,
    ],
    63: [
      0x51, 0x50, 0xd1, 0x77, 0x2f, 0x50, 0x83, 0x4a, 0x50, 0x3e, 0x06, 0x9a, 0x97, 0x3f, 0xbd,
      0x7c,
    ],
  ]

  static func bytes(_ hash: KeyedHash) -> [UInt8] {
    withUnsafeBytes(of: hash.low.littleEndian) { Array($0) }
      + withUnsafeBytes(of: hash.high.littleEndian) { Array($0) }
  }

  @Test("SipHash-2-4-128 gives the reference vectors, whole, byte by byte and by words")
  func referenceVectors() throws {
    for (length, expected) in Self.vectors.sorted(by: { $0.key < $1.key }) {
      let message = (0..<length).map { UInt8($0) }
      #expect(Self.bytes(HashKey.test.hash(message)) == expected, "\(length) bytes")
      var pieces = SipHasher(key: .test)
      for byte in message { pieces.update([byte]) }
      #expect(Self.bytes(pieces.finalize()) == expected, "\(length) bytes, one at a time")
      // Whole words after a byte that leaves a tail, then the rest.
      if length >= 9 {
        var words = SipHasher(key: .test)
        words.update([message[0]])
        let word = message[1..<9].enumerated().reduce(UInt64(0)) {
          $0 | UInt64($1.element) << (8 * UInt64($1.offset))
        }
        words.add(word: word)
        words.update(Array(message[9...]))
        #expect(Self.bytes(words.finalize()) == expected, "\(length) bytes, with a word")
      }
    }
  }

  @Test("any split of a message into chunks gives the hash of the whole")
  func chunks() {
    var generator = SplitMix(state: 41)
    let message = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let whole = HashKey.test.hash(message)
    for _ in 0..<50 {
      var hasher = SipHasher(key: .test)
      var start = 0
      while start < message.count {
        let end = min(message.count, start + Int.random(in: 0...20, using: &generator))
        hasher.update(Array(message[start..<end]))
        start = end
      }
      #expect(hasher.finalize() == whole)
    }
    #expect(HashKey(k0: 1, k1: 2).hash(message) != whole)
  }

  @Test("a key reads back as written; a damaged one does not")
  func keyFile() {
    let key = HashKey.random()
    #expect(HashKey(bytes: key.bytes) == key)
    #expect(HashKey(bytes: Array(key.bytes.dropLast())) == nil)
    #expect(HashKey(bytes: Array(key.bytes.dropLast(2)) + [10]) == nil)
    #expect(HashKey(bytes: []) == nil)
    #expect(HashKey.random() != key)
    #expect(
      KeyedHash(hex: Substring(KeyedHash(low: 1, high: .max).hex)) == .init(low: 1, high: .max))
  }

  // MARK: - A text forged against the unkeyed row hash of before

  /// The row hash of the design before keys (`FingerprintHasher` as it was): each word is
  /// multiplied into the state, rotated and multiplied again. Every step can be undone, so a
  /// text can be chosen to give any state.
  struct UnkeyedHasher {
    static let start: UInt64 = 0x243F_6A88_85A3_08D3
    static let k1: UInt64 = 0x9E37_79B9_7F4A_7C15
    static let k2: UInt64 = 0xFF51_AFD7_ED55_8CCD
    var state = start

    mutating func mix(_ word: UInt64) {
      let mixed = state ^ (word &* Self.k1)
      state = ((mixed << 29) | (mixed >> 35)) &* Self.k2
    }

    mutating func add(text: [UInt8]) {
      mix(UInt64(text.count))
      var offset = 0
      while offset < text.count {
        var word: UInt64 = 0
        for (shift, byte) in text[offset..<min(offset + 8, text.count)].enumerated() {
          word |= UInt64(byte) << (8 * UInt64(shift))
        }
        mix(word)
        offset += 8
      }
    }

    /// The inverse of an odd number modulo 2^64 (Newton's iteration).
    static func inverse(_ a: UInt64) -> UInt64 {
      var x = a
      for _ in 0..<6 { x = x &* (2 &- a &* x) }
      return x
    }

    /// The word that takes the state `from` to `to`.
    static func word(from: UInt64, to: UInt64) -> UInt64 {
      let mixed = to &* inverse(k2)
      let unrotated = (mixed >> 29) | (mixed << 35)
      return (unrotated ^ from) &* inverse(k1)
    }
  }

  /// A text of the length of `original` (a multiple of 8 bytes), of printable ASCII,
  /// that gives the unkeyed hasher the state `original` gives it after the to-do's `pk`: so that
  /// every field after the text being the same, the old row hash is the same.
  static func forged(against original: String, pk: Int64) -> String {
    let target = Array(original.utf8)
    precondition(target.count % 8 == 0 && target.count >= 16)
    var reference = UnkeyedHasher()
    reference.mix(UInt64(bitPattern: pk))
    reference.add(text: target)
    // Printable ASCII but the quote, which the test's SQL would need doubled.
    let allowed = (UInt8(0x20)...0x7e).filter { $0 != UInt8(ascii: "'") }
    let isAllowed = (0...255).map { allowed.contains(UInt8($0)) }
    var generator = SplitMix(state: 7)
    while true {
      var text = (0..<(target.count - 8)).map { _ in
        allowed[Int.random(in: 0..<allowed.count, using: &generator)]
      }
      var hasher = UnkeyedHasher()
      hasher.mix(UInt64(bitPattern: pk))
      hasher.mix(UInt64(target.count))
      for start in stride(from: 0, to: text.count, by: 8) {
        hasher.mix(
          text[start..<(start + 8)].enumerated().reduce(UInt64(0)) {
            $0 | UInt64($1.element) << (8 * UInt64($1.offset))
          })
      }
      let last = UnkeyedHasher.word(from: hasher.state, to: reference.state)
      let bytes = (0..<8).map { UInt8(truncatingIfNeeded: last >> (8 * UInt64($0))) }
      guard bytes.allSatisfy({ isAllowed[Int($0)] }) else { continue }
      text += bytes
      return String(decoding: text, as: UTF8.self)
    }
  }

  @Test("a to-do text forged to collide with the old unkeyed hash is rebuilt as a cold build")
  func forgedText() throws {
    let original = "Pay the rent to Alice by Friday!"
    let forged = Self.forged(against: original, pk: 7)
    // The forgery works against the old hash: the old design kept the page of pk 7.
    var old = UnkeyedHasher()
    old.mix(7)
    old.add(text: Array(original.utf8))
    var new = UnkeyedHasher()
    new.mix(7)
    new.add(text: Array(forged.utf8))
    #expect(forged != original && old.state == new.state, "\(forged)")
    let (_, rebuild) = try IncrementalTests.expectSameAsCold(
      "a forged text",
      setUp: { inputs in
        try inputs.change("todo.sqlite", "UPDATE todo SET text = '\(original)' WHERE pk = 7")
      },
      change: { inputs in
        try inputs.change("todo.sqlite", "UPDATE todo SET text = '\(forged)' WHERE pk = 7")
      })
    #expect(rebuild.writtenPaths.contains("todos/7.html"))
  }

  @Test("a key missing or damaged: a new key, nothing recorded trusted, the cold build's bytes")
  func newKey() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let inputs = try IncrementalTests.Inputs(folder)
    _ = try IncrementalTests.build(inputs.options)
    let state = folder.sub(".site.taskpress")
    let first = try #require(HashKey.of(stateFolder: state))
    // Kept from build to build.
    let again = try IncrementalTests.build(inputs.options)
    #expect(HashKey.of(stateFolder: state) == first)
    #expect(again.written == 0)
    for (round, damage) in ["", "taskpress-key 1\nnot hex\n"].enumerated() {
      try Data(damage.utf8).write(to: URL(fileURLWithPath: state + "/" + HashKey.fileName))
      let before = folder.sub("before-\(round)")
      try IncrementalTests.copy(inputs.options.output, before)
      try inputs.change("todo.sqlite", "UPDATE todo SET text = text || '!' WHERE pk = 3")
      let rebuild = try IncrementalTests.build(inputs.options)
      let key = try #require(HashKey.of(stateFolder: state))
      #expect(key != first)
      // The plain path: every page rendered, none kept by a record of the old key.
      #expect(rebuild.rendered == rebuild.pages, "\(damage)")
      var cold = inputs.options
      cold.output = folder.sub("cold-\(round)")
      cold.previous = before
      _ = try IncrementalTests.build(cold)
      IncrementalTests.expectSameTrees(cold.output, inputs.options.output, "after a new key")
    }
  }
}
