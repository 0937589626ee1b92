/// What the last build's search index held (`SearchIndex`): each shard's name, the keyed hash
/// of the rows it was made from, its number of rows and its bitmap of character pairs, in the
/// order of the directory. Recorded in the state folder (`search`, one of the commit's records,
/// tied to its manifest), so that a rebuild keeps the file of each shard whose rows hash as
/// recorded, with its summary, and folds, quotes and writes only the shards whose rows changed
/// (`RenderPaths.recordedSearch`); the directory, `search/index.js`, is made from the summaries.
struct SearchRecord: Sendable, Equatable {
  struct Shard: Sendable, Equatable {
    var name: String
    /// The keyed hash of what the shard's file is made of (`SearchIndex.Group.inputs`).
    var inputs: KeyedHash
    var count: Int
    var bitmap: [UInt8]
  }

  var shards: [Shard]

  static let fileName = "search"
  private static let header = Array("taskpress-search 1\n".utf8)

  init(shards: [Shard]) {
    self.shards = shards
  }

  /// The record as it is stored: a header line, then for each shard the length of its name (one
  /// byte), the name, the hash (16 bytes), the count (8 bytes) and the bitmap
  /// (`SearchIndex.bitmapBits / 8` bytes), numbers little endian.
  var bytes: [UInt8] {
    var bytes = Self.header
    bytes.reserveCapacity(bytes.count + shards.count * (41 + SearchIndex.bitmapBits / 8))
    for shard in shards {
      let name = Array(shard.name.utf8.prefix(255))
      bytes.append(UInt8(name.count))
      bytes += name
      withUnsafeBytes(of: shard.inputs.low.littleEndian) { bytes += $0 }
      withUnsafeBytes(of: shard.inputs.high.littleEndian) { bytes += $0 }
      withUnsafeBytes(of: UInt64(shard.count).littleEndian) { bytes += $0 }
      bytes += shard.bitmap
    }
    return bytes
  }

  /// Reads a stored record; nil when `bytes` are not one (another version, cut short).
  init?(bytes: [UInt8]) {
    guard bytes.starts(with: Self.header) else { return nil }
    let bitmapBytes = SearchIndex.bitmapBits / 8
    var shards: [Shard] = []
    var offset = Self.header.count
    func word(_ at: Int) -> UInt64 {
      bytes.withUnsafeBytes {
        UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: UInt64.self))
      }
    }
    while offset < bytes.count {
      let length = Int(bytes[offset])
      let end = offset + 1 + length + 24 + bitmapBytes
      guard end <= bytes.count else { return nil }
      let name = String(decoding: bytes[(offset + 1)..<(offset + 1 + length)], as: UTF8.self)
      let at = offset + 1 + length
      let count = word(at + 16)
      guard count <= UInt64(Int.max) else { return nil }
      shards.append(
        Shard(
          name: name, inputs: KeyedHash(low: word(at), high: word(at + 8)), count: Int(count),
          bitmap: Array(bytes[(at + 24)..<end])))
      offset = end
    }
    self.shards = shards
  }
}
