import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Checks of the relative paths given to `OutputWriter`.
enum OutputPath {
  /// The folder, at the top of the output, that held taskpress's own state in earlier versions
  /// (see `OutputWriter.adoptOldState`); no file of a site goes there.
  static let stateFolder = ".taskpress"

  /// Why `path` cannot be written, or nil when it is a valid relative file path.
  static func problem(_ path: String) -> String? {
    if let checked = path.utf8.withContiguousStorageIfAvailable({ problem(bytes: $0) }) {
      return checked
    }
    return Array(path.utf8).withUnsafeBufferPointer { problem(bytes: $0) }
  }

  /// Why the UTF-8 path `bytes` cannot be written, or nil when it is a valid relative file path.
  static func problem(bytes: UnsafeBufferPointer<UInt8>) -> String? {
    // Without allocating: every added file and every line of a manifest is checked.
    let slash = UInt8(ascii: "/")
    let dot = UInt8(ascii: ".")
    if bytes.isEmpty { return "an empty path is not a valid output file" }
    if bytes[0] == slash { return "is absolute; output paths are relative to the output folder" }
    if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "contains a control character" }
    var partStart = 0
    for index in 0...bytes.count where index == bytes.count || bytes[index] == slash {
      let length = index - partStart
      if length == 0
        || (bytes[partStart] == dot
          && (length == 1 || (length == 2 && bytes[partStart + 1] == dot)))
      {
        return "contains an empty, '.' or '..' part; output paths must be plain relative paths"
      }
      if partStart == 0 && isStateFolder(bytes, length) {
        return "is inside '.taskpress', where earlier versions of taskpress kept their state"
      }
      partStart = index + 1
    }
    return nil
  }

  /// Whether the first `length` bytes of `bytes` are `.taskpress`.
  private static func isStateFolder(_ bytes: UnsafeBufferPointer<UInt8>, _ length: Int) -> Bool {
    let name = stateFolder.utf8
    guard length == name.count else { return false }
    return zip(bytes, name).allSatisfy { $0 == $1 }
  }

  /// Splits `a/b/c.html` into (`a/b`, `c.html`); the folder is empty at the top.
  static func split(_ path: String) -> (folder: String, name: String) {
    // On the UTF-8 bytes: a path is split for every file written.
    let parts = path.utf8.withContiguousStorageIfAvailable { bytes -> (String, String) in
      guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return ("", path) }
      return (
        String(decoding: UnsafeBufferPointer(rebasing: bytes[..<slash]), as: UTF8.self),
        String(decoding: UnsafeBufferPointer(rebasing: bytes[(slash + 1)...]), as: UTF8.self)
      )
    }
    if let parts { return parts }
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return ("", path) }
    return (String(path[..<slash]), String(path[path.index(after: slash)...]))
  }

  /// `a/b/c.html` -> [`a`, `a/b`]: the folders that must exist for the file.
  static func ancestors(ofFolder folder: String) -> [String] {
    guard !folder.isEmpty else { return [] }
    var result: [String] = []
    var index = folder.startIndex
    while let slash = folder[index...].firstIndex(of: "/") {
      result.append(String(folder[..<slash]))
      index = folder.index(after: slash)
    }
    result.append(folder)
    return result
  }

  /// Byte-wise order, the same on every machine and locale.
  static func precedes(_ a: String, _ b: String) -> Bool {
    // memcmp on the contiguous UTF-8 of native strings.
    var a = a
    var b = b
    return a.withUTF8 { x in
      b.withUTF8 { y in
        let common = min(x.count, y.count)
        guard common > 0, let p = x.baseAddress, let q = y.baseAddress else {
          return x.count < y.count
        }
        let order = memcmp(p, q, common)
        return order != 0 ? order < 0 : x.count < y.count
      }
    }
  }

  /// `strings` in byte order (`precedes`).
  static func sorted(_ strings: some Collection<String>) -> [String] {
    let array = Array(strings)
    return byteOrder(array.count) { array[$0] }.map { array[$0] }
  }

  /// The numbers `0..<count` ordered as the strings `string(i)` in byte order (`precedes`).
  ///
  /// Sorting a site's 100,000 paths as `String`s costs a noticeable part of a build: this
  /// sorts keys made of each string's first 16 bytes, and compares the rest of two strings
  /// (kept in one buffer) only when those are equal. Many strings are sorted in two halves on
  /// two threads, then merged.
  static func byteOrder(_ count: Int, _ string: (Int) -> String) -> [Int] {
    byteOrder(count) { index, body in
      var text = string(index)
      text.withUTF8(body)
    }
  }

  /// `byteOrder` of strings given as their UTF-8 bytes: `bytes(i, body)` calls `body` with the
  /// bytes of string `i` (read in place, where a `String` would be copied).
  static func byteOrder(
    _ count: Int, bytes: (Int, (UnsafeBufferPointer<UInt8>) -> Void) -> Void
  ) -> [Int] {
    byteOrder32(count, bytes: bytes).map { Int($0) }
  }

  /// `byteOrder(_:bytes:)` as 4-byte numbers: half the memory of a million files' order.
  static func byteOrder32(
    _ count: Int, bytes: (Int, (UnsafeBufferPointer<UInt8>) -> Void) -> Void
  ) -> [UInt32] {
    precondition(count <= Int(UInt32.max), "more than 2^32 strings to sort")
    guard count >= parallelSortThreshold else {
      return SortedRun(0..<count, bytes).keys.map(\.index)
    }
    return withoutActuallyEscaping(bytes) { string in
      nonisolated(unsafe) let string = string
      let halves = [0..<count / 2, count / 2..<count]
      // Each thread makes one of the two runs.
      nonisolated(unsafe) let runs = UnsafeMutablePointer<SortedRun>.allocate(capacity: 2)
      defer {
        runs.deinitialize(count: 2)
        runs.deallocate()
      }
      DispatchQueue.concurrentPerform(iterations: 2) { part in
        (runs + part).initialize(to: SortedRun(halves[part], string))
      }
      return SortedRun.merge(runs[0], runs[1])
    }
  }

  /// From how many strings `byteOrder` sorts on two threads.
  static let parallelSortThreshold = 16_384

  /// The strings of some numbers as sort keys, sorted.
  private struct SortedRun {
    var keys: [SortKey] = []
    /// Of every string longer than 16 bytes, one after the other: its length (4 bytes, native
    /// order), then its bytes past the first 16.
    var tails: [UInt8] = []

    init(_ range: Range<Int>, _ string: (Int, (UnsafeBufferPointer<UInt8>) -> Void) -> Void) {
      keys.reserveCapacity(range.count)
      for index in range {
        string(index) { bytes in
          keys.append(SortKey(bytes, tail: tails.count, index: index))
          if bytes.count > 16 {
            precondition(bytes.count <= Int(UInt32.max), "a string of more than 4 GB to sort")
            withUnsafeBytes(of: UInt32(bytes.count)) { tails.append(contentsOf: $0) }
            tails.append(contentsOf: bytes[16...])
          }
        }
      }
      tails.withUnsafeBufferPointer { buffer in
        let base = buffer.baseAddress
        keys.sort { SortKey.precedes($0, base, $1, base) }
      }
    }

    /// The numbers of `first` and `second` in one byte order.
    static func merge(_ first: SortedRun, _ second: SortedRun) -> [UInt32] {
      var order: [UInt32] = []
      order.reserveCapacity(first.keys.count + second.keys.count)
      first.tails.withUnsafeBufferPointer { firstTails in
        second.tails.withUnsafeBufferPointer { secondTails in
          var i = 0
          var j = 0
          while i < first.keys.count && j < second.keys.count {
            // Ties keep the first run's string first, as one stable sort would.
            if SortKey.precedes(
              second.keys[j], secondTails.baseAddress, first.keys[i], firstTails.baseAddress)
            {
              order.append(second.keys[j].index)
              j += 1
            } else {
              order.append(first.keys[i].index)
              i += 1
            }
          }
          for key in first.keys[i...] { order.append(key.index) }
          for key in second.keys[j...] { order.append(key.index) }
        }
      }
      return order
    }
  }

  /// A string's place in `byteOrder`, in 24 bytes: its first 16 bytes as two big-endian
  /// numbers (zeros past its end), its number, and either its length (16 or less) or, for a
  /// longer string, where its length and the rest of it start in the buffer of tails (with the
  /// top bit set).
  private struct SortKey {
    var high: UInt64
    var low: UInt64
    var index: UInt32
    var info: UInt32

    static let long: UInt32 = 1 << 31

    init(_ bytes: UnsafeBufferPointer<UInt8>, tail: Int, index: Int) {
      var first16: (UInt64, UInt64) = (0, 0)
      withUnsafeMutableBytes(of: &first16) { raw in
        if let base = bytes.baseAddress {
          raw.copyMemory(from: UnsafeRawBufferPointer(start: base, count: min(bytes.count, 16)))
        }
      }
      high = UInt64(bigEndian: first16.0)
      low = UInt64(bigEndian: first16.1)
      self.index = UInt32(truncatingIfNeeded: index)
      if bytes.count > 16 {
        precondition(tail < Int(Self.long), "more than 2 GB of strings to sort")
        info = Self.long | UInt32(tail)
      } else {
        info = UInt32(bytes.count)
      }
    }

    /// Whether `a` (whose tail is in `aTails`) comes before `b` (tail in `bTails`).
    @inline(__always)
    static func precedes(
      _ a: SortKey, _ aTails: UnsafePointer<UInt8>?, _ b: SortKey, _ bTails: UnsafePointer<UInt8>?
    ) -> Bool {
      if a.high != b.high { return a.high < b.high }
      if a.low != b.low { return a.low < b.low }
      // Equal first 16 bytes: when one string is that short, it is a prefix of the other.
      guard a.info & long != 0, b.info & long != 0, let aTails, let bTails else {
        return a.info < b.info
      }
      let aTail = aTails + Int(a.info & ~long)
      let bTail = bTails + Int(b.info & ~long)
      let aLength = Int(UnsafeRawPointer(aTail).loadUnaligned(as: UInt32.self))
      let bLength = Int(UnsafeRawPointer(bTail).loadUnaligned(as: UInt32.self))
      let order = memcmp(aTail + 4, bTail + 4, min(aLength, bLength) - 16)
      return order != 0 ? order < 0 : aLength < bLength
    }
  }

  /// Whether `path` is `folder` or inside it.
  static func isWithin(_ path: String, _ folder: String) -> Bool {
    path == folder
      || (path.utf8.count > folder.utf8.count && path.hasPrefix(folder)
        && path.utf8[path.utf8.index(path.utf8.startIndex, offsetBy: folder.utf8.count)]
          == UInt8(ascii: "/"))
  }
}
