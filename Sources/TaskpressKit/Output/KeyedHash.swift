import Foundation

/// The secret of one output folder: the 128-bit key of every hash that decides, across builds,
/// that something is unchanged (`KeyedHash`). Made at random by the first build into the folder
/// and kept in its state folder (`key`), which is never published: nobody who writes a to-do, a
/// template or a photo knows it, so nobody can choose bytes whose hash is another's.
public struct HashKey: Sendable, Equatable {
  public var k0: UInt64
  public var k1: UInt64

  public init(k0: UInt64, k1: UInt64) {
    self.k0 = k0
    self.k1 = k1
  }

  /// A new key from the system's random source.
  public static func random() -> HashKey {
    var generator = SystemRandomNumberGenerator()
    return HashKey(k0: generator.next(), k1: generator.next())
  }

  /// The name of the key's file in the state folder.
  static let fileName = "key"
  private static let header = "taskpress-key 1\n"

  /// The key as it is stored: a header line, then 32 hexadecimal digits and a newline.
  var bytes: [UInt8] { Array((Self.header + KeyedHash(low: k0, high: k1).hex + "\n").utf8) }

  /// Reads a stored key; nil when `bytes` are not one (missing, cut short, another version).
  init?(bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard text.hasPrefix(Self.header), text.hasSuffix("\n"),
      let parsed = KeyedHash(hex: text.dropFirst(Self.header.utf8.count).dropLast())
    else { return nil }
    k0 = parsed.low
    k1 = parsed.high
  }

  /// The SipHash-2-4-128 of `buffer` under this key.
  public func hash(_ buffer: UnsafeRawBufferPointer) -> KeyedHash {
    var hasher = SipHasher(key: self)
    hasher.update(buffer)
    return hasher.finalize()
  }

  /// The SipHash-2-4-128 of `bytes` under this key.
  public func hash(_ bytes: [UInt8]) -> KeyedHash {
    bytes.withUnsafeBytes { hash($0) }
  }
}

/// A 128-bit keyed hash (SipHash-2-4 with its 128-bit output): wide enough that two different
/// inputs having one is not a practical event, and, its key being secret, not one an input can
/// be chosen to make.
public struct KeyedHash: Hashable, Sendable, CustomStringConvertible {
  /// The first 8 bytes of the output, little endian.
  public var low: UInt64
  /// The last 8 bytes of the output, little endian.
  public var high: UInt64

  public init(low: UInt64, high: UInt64) {
    self.low = low
    self.high = high
  }

  /// The zero hash, which stands for "none" where a record has no hash.
  static let zero = KeyedHash(low: 0, high: 0)

  /// The hash as 32 lower-case hexadecimal digits, `high` first.
  public var hex: String {
    let digits: [UInt8] = Array("0123456789abcdef".utf8)
    var out = [UInt8](repeating: 0, count: 32)
    for (offset, word) in [(0, high), (16, low)] {
      var v = word
      for i in stride(from: 15, through: 0, by: -1) {
        out[offset + i] = digits[Int(v & 0xF)]
        v >>= 4
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Parses 32 hexadecimal digits, as written by `hex`.
  public init?(hex: Substring) {
    let utf8 = Array(hex.utf8)
    guard utf8.count == 32,
      let high = UInt64(String(decoding: utf8[0..<16], as: UTF8.self), radix: 16),
      let low = UInt64(String(decoding: utf8[16...], as: UTF8.self), radix: 16)
    else { return nil }
    self.low = low
    self.high = high
  }

  public var description: String { hex }
}

/// SipHash-2-4 with its 128-bit output (Aumasson and Bernstein), fed bytes in chunks of any size
/// or whole 64-bit words (`add(word:)`, for a sequence of words whose bytes are hashed in order,
/// as `FingerprintHasher` makes them). `KeyedHashTests` checks it against the reference vectors.
public struct SipHasher: Sendable {
  private var v0: UInt64
  private var v1: UInt64
  private var v2: UInt64
  private var v3: UInt64
  /// Bytes not yet forming a whole word, in its low bytes; `tailCount` of them.
  private var tail: UInt64 = 0
  private var tailCount = 0
  private var length: UInt64 = 0

  public init(key: HashKey) {
    v0 = key.k0 ^ 0x736f_6d65_7073_6575
    v1 = key.k1 ^ 0x646f_7261_6e64_6f6d ^ 0xee
    v2 = key.k0 ^ 0x6c79_6765_6e65_7261
    v3 = key.k1 ^ 0x7465_6462_7974_6573
  }

  @inline(__always)
  private static func rotl(_ x: UInt64, _ b: UInt64) -> UInt64 { (x << b) | (x >> (64 - b)) }

  @inline(__always)
  private mutating func round() {
    v0 &+= v1
    v1 = Self.rotl(v1, 13)
    v1 ^= v0
    v0 = Self.rotl(v0, 32)
    v2 &+= v3
    v3 = Self.rotl(v3, 16)
    v3 ^= v2
    v0 &+= v3
    v3 = Self.rotl(v3, 21)
    v3 ^= v0
    v2 &+= v1
    v1 = Self.rotl(v1, 17)
    v1 ^= v2
    v2 = Self.rotl(v2, 32)
  }

  @inline(__always)
  private mutating func compress(_ m: UInt64) {
    v3 ^= m
    round()
    round()
    v0 ^= m
  }

  /// Adds the 8 bytes of `word`, little endian.
  @inline(__always)
  public mutating func add(word: UInt64) {
    length &+= 8
    if tailCount == 0 { return compress(word) }
    let shift = UInt64(tailCount * 8)
    compress(tail | (word << shift))
    tail = word >> (64 - shift)
  }

  /// Adds the bytes of `buffer`.
  public mutating func update(_ buffer: UnsafeRawBufferPointer) {
    var index = 0
    let count = buffer.count
    // Whole words of the buffer, each joined to the bytes held over from the chunk before (as
    // `add(word:)` does): a chunk that does not start on a word boundary, as most pieces of a
    // streamed file do not, is not hashed byte by byte.
    if count >= 8 {
      if tailCount == 0 {
        while index + 8 <= count {
          compress(
            UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
          index += 8
        }
      } else {
        let shift = UInt64(tailCount * 8)
        while index + 8 <= count {
          let word = UInt64(
            littleEndian: buffer.loadUnaligned(fromByteOffset: index, as: UInt64.self))
          compress(tail | (word << shift))
          tail = word >> (64 - shift)
          index += 8
        }
      }
      length &+= UInt64(index)
    }
    while index < count {
      tail |= UInt64(buffer[index]) << UInt64(tailCount * 8)
      tailCount += 1
      index += 1
      length &+= 1
      if tailCount == 8 {
        compress(tail)
        tail = 0
        tailCount = 0
      }
    }
  }

  /// Adds `bytes`.
  public mutating func update(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { update($0) }
  }

  /// The hash of everything added so far.
  public func finalize() -> KeyedHash {
    var copy = self
    let last = (copy.length << 56) | copy.tail
    copy.compress(last)
    copy.v2 ^= 0xee
    for _ in 0..<4 { copy.round() }
    let low = copy.v0 ^ copy.v1 ^ copy.v2 ^ copy.v3
    copy.v1 ^= 0xdd
    for _ in 0..<4 { copy.round() }
    return KeyedHash(low: low, high: copy.v0 ^ copy.v1 ^ copy.v2 ^ copy.v3)
  }
}
