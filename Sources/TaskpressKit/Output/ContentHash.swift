/// A deterministic 64-bit non-cryptographic hash of file contents.
///
/// The output layer uses it to decide quickly whether a file changed; callers may use `hex` to
/// name files by their content (photos). Unlike Swift's `Hasher`, which is seeded randomly per
/// process, the value is the same on every run and machine: input is read as little-endian
/// 64-bit words, in four independent lanes of multiply/rotate mixing, then avalanched.
public struct ContentHash: Hashable, Sendable, CustomStringConvertible {
  /// The 64-bit hash value.
  public var value: UInt64

  /// Wraps a hash value (e.g. one read back from a manifest).
  public init(value: UInt64) {
    self.value = value
  }

  /// The hash of `bytes`.
  public init(of bytes: [UInt8]) {
    self = bytes.withUnsafeBytes { ContentHash(of: $0) }
  }

  /// The hash of the bytes in `buffer`.
  public init(of buffer: UnsafeRawBufferPointer) {
    // The whole blocks straight from `buffer`, the tail too: no copy, no allocation.
    var hasher = ContentHasher()
    let whole = buffer.count & ~31
    hasher.blocks(buffer, upTo: whole)
    self = hasher.finish(
      length: UInt64(buffer.count), tail: UnsafeRawBufferPointer(rebasing: buffer[whole...]))
  }

  /// The hash as 16 lower-case hexadecimal digits.
  public var hex: String {
    let digits: [UInt8] = Array("0123456789abcdef".utf8)
    var out = [UInt8](repeating: 0, count: 16)
    var v = value
    for i in stride(from: 15, through: 0, by: -1) {
      out[i] = digits[Int(v & 0xF)]
      v >>= 4
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// The hash of `bytes` as 16 lower-case hexadecimal digits.
  public static func hex(of bytes: [UInt8]) -> String {
    ContentHash(of: bytes).hex
  }

  /// Parses 16 hexadecimal digits, as written by `hex`.
  public init?(hex: Substring) {
    guard hex.utf8.count == 16, let v = UInt64(hex, radix: 16) else { return nil }
    value = v
  }

  public var description: String { hex }
}

/// An incremental `ContentHash`: feed chunks of any size; the result equals the one-shot hash
/// of their concatenation.
public struct ContentHasher: Sendable {
  private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
  private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
  private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
  private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63

  private var lane0: UInt64 = 0x243F_6A88_85A3_08D3
  private var lane1: UInt64 = 0x1319_8A2E_0370_7344
  private var lane2: UInt64 = 0xA409_3822_299F_31D0
  private var lane3: UInt64 = 0x082E_FA98_EC4E_6C89
  /// Bytes not yet forming a whole 32-byte block (at most 31 are kept).
  private var pending: [UInt8] = []
  private var length: UInt64 = 0

  /// Starts an empty hash.
  public init() {}

  @inline(__always)
  private static func round(_ lane: UInt64, _ word: UInt64) -> UInt64 {
    let mixed = lane &+ word &* prime2
    return ((mixed << 31) | (mixed >> 33)) &* prime1
  }

  @inline(__always)
  private mutating func block(_ p: UnsafeRawBufferPointer, _ at: Int) {
    lane0 = Self.round(
      lane0, UInt64(littleEndian: p.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
    lane1 = Self.round(
      lane1, UInt64(littleEndian: p.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)))
    lane2 = Self.round(
      lane2, UInt64(littleEndian: p.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self)))
    lane3 = Self.round(
      lane3, UInt64(littleEndian: p.loadUnaligned(fromByteOffset: at + 24, as: UInt64.self)))
  }

  /// Mixes in the 32-byte blocks of `buffer` before `end` (a multiple of 32).
  mutating func blocks(_ buffer: UnsafeRawBufferPointer, upTo end: Int) {
    var start = 0
    while start < end {
      block(buffer, start)
      start += 32
    }
  }

  /// Adds `bytes` to the hash.
  public mutating func update(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { update($0) }
  }

  /// Adds the bytes of `buffer` to the hash.
  public mutating func update(_ buffer: UnsafeRawBufferPointer) {
    length &+= UInt64(buffer.count)
    var start = 0
    if !pending.isEmpty {
      let take = min(32 - pending.count, buffer.count)
      pending.append(contentsOf: buffer[0..<take])
      start = take
      guard pending.count == 32 else { return }
      pending.withUnsafeBytes { block($0, 0) }
      pending.removeAll(keepingCapacity: true)
    }
    let whole = start + ((buffer.count - start) & ~31)
    blocks(UnsafeRawBufferPointer(rebasing: buffer[start...]), upTo: whole - start)
    start = whole
    if start < buffer.count {
      pending.append(contentsOf: buffer[start...])
    }
  }

  /// The hash of everything added so far.
  public func finalize() -> ContentHash {
    pending.withUnsafeBytes { finish(length: length, tail: $0) }
  }

  /// The hash of `length` bytes, the blocks mixed in so far followed by `tail` (under 32 bytes).
  func finish(length: UInt64, tail: UnsafeRawBufferPointer) -> ContentHash {
    var h =
      ((lane0 << 1) | (lane0 >> 63)) &+ ((lane1 << 7) | (lane1 >> 57))
      &+ ((lane2 << 12) | (lane2 >> 52)) &+ ((lane3 << 18) | (lane3 >> 46))
    h = (h ^ Self.round(0, lane0)) &* Self.prime1 &+ Self.prime4
    h = (h ^ Self.round(0, lane1)) &* Self.prime1 &+ Self.prime4
    h = (h ^ Self.round(0, lane2)) &* Self.prime1 &+ Self.prime4
    h = (h ^ Self.round(0, lane3)) &* Self.prime1 &+ Self.prime4
    h &+= length
    var i = 0
    while tail.count - i >= 8 {
      let word = UInt64(littleEndian: tail.loadUnaligned(fromByteOffset: i, as: UInt64.self))
      h ^= Self.round(0, word)
      h = ((h << 27) | (h >> 37)) &* Self.prime1 &+ Self.prime4
      i += 8
    }
    while i < tail.count {
      h ^= UInt64(tail[i]) &* Self.prime3
      h = ((h << 11) | (h >> 53)) &* Self.prime1
      i += 1
    }
    // Final avalanche so that every input bit affects every output bit.
    h ^= h >> 33
    h &*= Self.prime2
    h ^= h >> 29
    h &*= Self.prime3
    h ^= h >> 32
    return ContentHash(value: h)
  }
}
