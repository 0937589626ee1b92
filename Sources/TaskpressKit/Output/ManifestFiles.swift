extension Manifest {
  /// The files of a manifest by path, packed: the paths' bytes one after the other (each ended
  /// by a NUL, so that it can be passed to the system as it is), their entries, and an open
  /// addressing table over the paths' hashes (`HashSlots`, as `PathTable` has for the files of
  /// a build).
  ///
  /// A `[String: Entry]` of a site's 122,000 files made each path a `String` of its own when
  /// the manifest was read, hashed it again for each lookup, and let go of each at the end:
  /// about a fifth of a rebuild with nothing changed, and 100 MB more at a million files.
  /// `ManifestTests` checks it against a `[String: Entry]` given the same paths.
  struct Files: Equatable, Sendable {
    /// The paths, each followed by a 0; path `i` starts at `pathStarts[i]`.
    private var pathBytes: [UInt8] = []
    private var pathStarts: [Int] = []
    private var entries: [Entry] = []
    private var slots = HashSlots(count: 16)

    init() {}

    /// How many files.
    var count: Int { entries.count }

    var isEmpty: Bool { entries.isEmpty }

    /// The numbers of the files, in the order they were added.
    var indices: Range<Int> { 0..<count }

    /// Makes room for `files` files of `pathBytes` bytes of paths in all.
    mutating func reserveCapacity(_ files: Int, pathBytes bytes: Int) {
      pathBytes.reserveCapacity(bytes + files)
      pathStarts.reserveCapacity(files)
      entries.reserveCapacity(files)
      var size = slots.count
      while files * 4 > size * 3 { size *= 2 }
      if size > slots.count { slots.grow(to: size) }
    }

    /// The entry of `path`, or nil.
    subscript(path: String) -> Entry? {
      // A cold build looks up each file it adds in an empty table: no hash for that.
      guard !isEmpty else { return nil }
      var path = path
      return path.withUTF8 { bytes in
        let slot = slots[position(of: bytes, hash: Self.hash(bytes))]
        return slot == 0 ? nil : entries[HashSlots.number(slot)]
      }
    }

    /// The number of the file whose path's UTF-8 bytes are `bytes`, or nil.
    func number(ofBytes bytes: UnsafeBufferPointer<UInt8>) -> Int? {
      guard !isEmpty else { return nil }
      let slot = slots[position(of: bytes, hash: Self.hash(bytes))]
      return slot == 0 ? nil : HashSlots.number(slot)
    }

    /// Files `entry` under `path`, in place of the entry the path had.
    mutating func insert(_ path: String, _ entry: Entry) {
      var path = path
      path.withUTF8 { insert(bytes: $0, entry) }
    }

    /// Files `entry` under the path whose bytes are `bytes`, in place of the entry it had.
    mutating func insert(bytes: UnsafeBufferPointer<UInt8>, _ entry: Entry) {
      if (count + 1) * 4 > slots.count * 3 { slots.grow(to: slots.count * 2) }
      let hash = Self.hash(bytes)
      let found = position(of: bytes, hash: hash)
      if slots[found] != 0 {
        entries[HashSlots.number(slots[found])] = entry
        return
      }
      slots[found] = HashSlots.slot(hash: hash, number: count)
      pathStarts.append(pathBytes.count)
      pathBytes.append(contentsOf: bytes)
      pathBytes.append(0)
      entries.append(entry)
    }

    /// Files each of `other`'s entries, in place of the entry its path had here.
    mutating func merge(_ other: Files) {
      for index in other.indices {
        other.withPath(index) { insert(bytes: $0, other.entries[index]) }
      }
    }

    /// The path of file `index`.
    func path(_ index: Int) -> String {
      withPath(index) { String(decoding: $0, as: UTF8.self) }
    }

    /// The entry of file `index`.
    func entry(_ index: Int) -> Entry { entries[index] }

    /// Runs `body` with the bytes of file `index`'s path, without its NUL.
    func withPath<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
      let end = index + 1 < pathStarts.count ? pathStarts[index + 1] - 1 : pathBytes.count - 1
      return try pathBytes.withUnsafeBufferPointer {
        try body(UnsafeBufferPointer(rebasing: $0[pathStarts[index]..<end]))
      }
    }

    /// Runs `body` with file `index`'s path as a C string.
    func withCPath<R>(_ index: Int, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
      try pathBytes.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress else { preconditionFailure("no file \(index)") }
        return try body((base + pathStarts[index]).assumingMemoryBound(to: CChar.self))
      }
    }

    /// The paths, in the order they were added.
    var paths: [String] { indices.map(path) }

    static func == (a: Files, b: Files) -> Bool {
      guard a.count == b.count else { return false }
      return a.indices.allSatisfy { index in
        a.withPath(index) { bytes in
          let slot = b.slots[b.position(of: bytes, hash: hash(bytes))]
          return slot != 0 && b.entries[HashSlots.number(slot)] == a.entries[index]
        }
      }
    }

    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
      UInt32(truncatingIfNeeded: ContentHash(of: UnsafeRawBufferPointer(bytes)).value >> 32)
    }

    /// Where the path `bytes` is, or the empty slot where it would go.
    private func position(of bytes: UnsafeBufferPointer<UInt8>, hash: UInt32) -> Int {
      slots.position(hash: hash) { number in withPath(number) { $0.elementsEqual(bytes) } }
    }
  }
}
