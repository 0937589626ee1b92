/// Files of the previous build named by the keys of their paths: what a build hands to
/// `OutputWriter.carryOver(_:)`. Data, not a test: the writer takes each path's key itself, by
/// `keying`, and looks it up in `keys`.
public struct PathKeys: Sendable, Equatable {
  /// How a file's path maps to its key.
  public enum Keying: Sendable, Equatable {
    /// `FingerprintRecord.key(bytes:)`: the key a page's fingerprint is recorded under.
    case fingerprintRecord

    /// The key of the path whose UTF-8 bytes are `path`.
    func key(of path: UnsafeBufferPointer<UInt8>) -> UInt64 {
      switch self {
      case .fingerprintRecord: FingerprintRecord.key(bytes: path)
      }
    }

    /// The key of `path`: `key(of:)` of its UTF-8 bytes.
    func key(of path: String) -> UInt64 {
      switch self {
      case .fingerprintRecord: FingerprintRecord.key(path)
      }
    }
  }

  /// The keys, in increasing order, each once.
  public let keys: [UInt64]
  public let keying: Keying

  /// The files whose keys under `keying` are `keys` (in any order; sorted here when they are
  /// not in increasing order, a key given twice counted once).
  public init(_ keys: [UInt64], keyedBy keying: Keying) {
    self.keying = keying
    if zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }) {
      self.keys = keys
    } else {
      var sorted = keys.sorted()
      var kept = 0
      for key in sorted where kept == 0 || sorted[kept - 1] != key {
        sorted[kept] = key
        kept += 1
      }
      sorted.removeLast(sorted.count - kept)
      self.keys = sorted
    }
  }

  /// The files `paths` (relative to the output folder), by their keys under `keying`.
  public init(paths: some Sequence<String>, keyedBy keying: Keying) {
    self.init(paths.map(keying.key(of:)), keyedBy: keying)
  }

  /// How many files are named.
  public var count: Int { keys.count }

  /// Whether the file whose path's UTF-8 bytes are `path` is named: its key is one of `keys`
  /// (`FingerprintRecord.lowerBound`'s binary search).
  func contains(path: UnsafeBufferPointer<UInt8>) -> Bool {
    let key = keying.key(of: path)
    let low = FingerprintRecord.lowerBound(of: key, in: keys)
    return low < keys.count && keys[low] == key
  }
}
