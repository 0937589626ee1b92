import Foundation

/// What a build's `data/todos.json` holds, in brief: the file's identity once committed, and
/// each to-do's pk and row hash (`PageFingerprints.rowHash`), in pk order as in the copy.
/// Recorded in the state folder (`todo-copy`), so that the next build, finding the copy still
/// that file, reads from it only the to-dos whose rows changed (`TodoCopy`) instead of the
/// whole of it (`RenderPaths.recordedCopy`).
struct TodoCopyRecord: Sendable, Equatable {
  /// The copy's device, inode, size, and modification and change times in nanoseconds: a
  /// file written or touched since has another (its change time moves with any write).
  var identity: [UInt64]
  var pks: [Int64]
  var hashes: [KeyedHash]

  static let fileName = "todo-copy"
  private static let header = Array("taskpress-todo-copy 3\n".utf8)
  private static let identityWords = 5

  init(identity: [UInt64], pks: [Int64], hashes: [KeyedHash]) {
    precondition(identity.count == Self.identityWords && pks.count == hashes.count)
    self.identity = identity
    self.pks = pks
    self.hashes = hashes
  }

  /// The identity of the file at `path` (see `identity`), nil when it is not a regular file.
  static func identity(ofFile path: String) -> [UInt64]? {
    var info = stat()
    guard lstat(path, &info) == 0, info.isRegularFile else { return nil }
    let stamp = FileStamp(info)
    return [
      stamp.device ?? 0, stamp.inode ?? 0, UInt64(bitPattern: stamp.size),
      UInt64(bitPattern: stamp.modified), UInt64(bitPattern: stamp.changed ?? 0),
    ]
  }

  /// The record as it is stored: a header line, the identity and the count (8 bytes each), then
  /// each row: its pk less the previous row's (0 before the first), zigzag-encoded as a base-128
  /// varint (1 byte for consecutive pks), and its hash (16 bytes, `low` first), little endian.
  /// About 17 bytes a to-do, where 8-byte pks took 24: a million to-dos' record is kept from
  /// the rendering to the commit.
  var bytes: [UInt8] {
    var bytes = Self.bytes(count: pks.count, rows: pks.indices.lazy.map { (pks[$0], hashes[$0]) })
    Self.setIdentity(identity, in: &bytes)
    return bytes
  }

  /// The stored record of `count` rows (pk, hash), with an identity of zeros: a build makes it
  /// before its commit, and sets the identity of the copy it committed (`setIdentity`) in
  /// place, without a copy of a million rows' record.
  static func bytes(count: Int, rows: some Collection<(Int64, KeyedHash)>) -> [UInt8] {
    // Measured first, so that the bytes are allocated once, at their size.
    var size = header.count + (identityWords + 1) * 8
    var previous: Int64 = 0
    var added = 0
    for (pk, _) in rows {
      size += varintLength(zigzag(pk &- previous)) + 16
      previous = pk
      added += 1
    }
    precondition(added == count, "\(added) rows for a record of \(count)")
    var bytes = header
    bytes.reserveCapacity(size)
    func add(_ word: UInt64) {
      withUnsafeBytes(of: word.littleEndian) { bytes += $0 }
    }
    for _ in 0..<identityWords { add(0) }
    add(UInt64(count))
    previous = 0
    for (pk, hash) in rows {
      var delta = zigzag(pk &- previous)
      while delta >= 0x80 {
        bytes.append(UInt8(truncatingIfNeeded: delta) | 0x80)
        delta >>= 7
      }
      bytes.append(UInt8(delta))
      previous = pk
      add(hash.low)
      add(hash.high)
    }
    return bytes
  }

  /// `value` with its sign in the lowest bit: small differences either way are small numbers.
  private static func zigzag(_ value: Int64) -> UInt64 {
    UInt64(bitPattern: (value << 1) ^ (value >> 63))
  }

  private static func unzigzag(_ value: UInt64) -> Int64 {
    Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
  }

  /// How many bytes the varint of `value` takes.
  private static func varintLength(_ value: UInt64) -> Int {
    var length = 1
    var value = value >> 7
    while value != 0 {
      length += 1
      value >>= 7
    }
    return length
  }

  /// Sets the identity of a record `bytes(count:rows:)` made.
  static func setIdentity(_ identity: [UInt64], in bytes: inout [UInt8]) {
    precondition(identity.count == identityWords && bytes.starts(with: header))
    bytes.withUnsafeMutableBytes { raw in
      for (index, word) in identity.enumerated() {
        raw.storeBytes(
          of: word.littleEndian, toByteOffset: header.count + index * 8, as: UInt64.self)
      }
    }
  }

  /// Hands `body` the record `bytes` (made by `bytes(count:rows:)`) with the identity
  /// `identity`, in three parts read in place: `setIdentity` on a copy, without the copy.
  static func withIdentity<E: Error>(
    _ identity: [UInt64], of bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(E) -> Void
  ) throws(E) {
    precondition(identity.count == identityWords && bytes.starts(with: header))
    let words = identity.map(\.littleEndian)
    let start = header.count
    let end = start + identityWords * 8
    let failure: E? = bytes.withUnsafeBytes { raw in
      words.withUnsafeBytes { identityBytes in
        do throws(E) {
          try body(UnsafeRawBufferPointer(rebasing: raw[..<start]))
          try body(identityBytes)
          try body(UnsafeRawBufferPointer(rebasing: raw[end...]))
          return nil
        } catch {
          return error
        }
      }
    }
    if let failure { throw failure }
  }

  /// Reads a stored record; nil when `bytes` are not one (another version, cut short).
  init?(bytes: [UInt8]) {
    let start = Self.header.count
    guard bytes.starts(with: Self.header), bytes.count >= start + (Self.identityWords + 1) * 8
    else { return nil }
    let read = bytes.withUnsafeBytes { raw -> (identity: [UInt64], [Int64], [KeyedHash])? in
      func word(_ offset: Int) -> UInt64 {
        UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      }
      let identity = (0..<Self.identityWords).map { word(start + $0 * 8) }
      let count = word(start + Self.identityWords * 8)
      var offset = start + (Self.identityWords + 1) * 8
      // Each row takes 17 bytes at least.
      guard count <= UInt64((raw.count - offset) / 17) else { return nil }
      var pks: [Int64] = []
      var hashes: [KeyedHash] = []
      pks.reserveCapacity(Int(count))
      hashes.reserveCapacity(Int(count))
      var previous: Int64 = 0
      for _ in 0..<count {
        var delta: UInt64 = 0
        var shift: UInt64 = 0
        while true {
          guard offset < raw.count, shift < 64 else { return nil }
          let byte = raw[offset]
          offset += 1
          delta |= UInt64(byte & 0x7F) << shift
          if byte < 0x80 { break }
          shift += 7
        }
        guard offset + 16 <= raw.count else { return nil }
        previous = previous &+ Self.unzigzag(delta)
        pks.append(previous)
        hashes.append(KeyedHash(low: word(offset), high: word(offset + 8)))
        offset += 16
      }
      guard offset == raw.count else { return nil }
      return (identity, pks, hashes)
    }
    guard let read else { return nil }
    (identity, pks, hashes) = read
  }
}

/// The previous build's `data/todos.json`, still the file its `TodoCopyRecord` describes: the
/// to-dos whose rows changed are read from it alone, found by their pks.
struct TodoCopy: Sendable, Equatable {
  /// The copy's path.
  var path: String
  var record: TodoCopyRecord

  /// More changed rows than this, and the whole copy is read: each is found in about 25 reads.
  static let rowLimit = 256

  /// The copy at `path`, when `record` describes it as it is now.
  init?(path: String, record: TodoCopyRecord) {
    guard TodoCopyRecord.identity(ofFile: path) == record.identity else { return nil }
    self.path = path
    self.record = record
  }

  /// What the changes of `rows` (in strictly increasing pk order, as read) need of the copy:
  /// the previous rows of the to-dos changed or removed, and the positions of those changed or
  /// added. Comparing those gives the changes comparing every row gives, as the other rows'
  /// hashes are the recorded ones. Nil when more than `rowLimit` rows differ, when the copy
  /// does not have one of them as recorded, or when it has a pk twice (its rows are then paired
  /// as a whole).
  /// `key` is the output folder's: the one the record's hashes were made with.
  func differingRows(_ rows: TodoRows, key: HashKey) -> (old: PreviousTodos, positions: [Int])? {
    let pks = record.pks
    let hashes = record.hashes
    guard zip(pks, pks.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
    var wanted: [Int64] = []
    var positions: [Int] = []
    var next = 0
    for position in rows.indices {
      let pk = rows.pk(position)
      while next < pks.count, pks[next] < pk {
        wanted.append(pks[next])
        next += 1
      }
      if next < pks.count, pks[next] == pk {
        if hashes[next] != PageFingerprints.rowHash(rows, at: position, key: key) {
          wanted.append(pk)
          positions.append(position)
        }
        next += 1
      } else {
        positions.append(position)
      }
      if wanted.count > Self.rowLimit { return nil }
    }
    wanted += pks[next...]
    guard wanted.count <= Self.rowLimit, let old = read(wanted) else { return nil }
    return (old, positions)
  }

  /// The to-dos `pks` (in increasing order) of the copy; nil when one is not found in the form
  /// `DataExport.todosJSON` writes.
  func read(_ pks: [Int64]) -> PreviousTodos? {
    guard !pks.isEmpty else { return [] }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var file = ObjectFinder(fd: fd, size: Int(truncatingIfNeeded: record.identity[2]))
    var todos: [PreviousBuild.Todo] = []
    for pk in pks {
      guard let todo = file.todo(pk) else { return nil }
      todos.append(todo)
    }
    return PreviousTodos(todos)
  }
}

/// Finds the objects of a copy `DataExport.todosJSON` wrote by pk, by halving the part of the
/// file it may be in: each object begins a line with `  {`, then one with `"pk"` (a string in
/// the copy never holds a line break), and the copy is in pk order.
private struct ObjectFinder {
  let fd: Int32
  let size: Int
  private static let start = Array("\n  {\n    \"pk\": ".utf8)
  private static let end = Array("\n  }".utf8)
  private static let window = 8192

  /// `count` bytes from `offset`, fewer at the end of the file.
  private func bytes(at offset: Int, count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: max(0, min(count, size - offset)))
    var done = 0
    while done < bytes.count {
      let read = bytes.withUnsafeMutableBytes { buffer in
        guard let base = buffer.baseAddress else { return 0 }
        return pread(fd, base + done, buffer.count - done, off_t(offset + done))
      }
      if read < 0, errno == EINTR { continue }
      guard read > 0 else { return Array(bytes[..<done]) }
      done += read
    }
    return bytes
  }

  /// Where `pattern` first begins at or after `offset`, and before `limit`.
  private func first(_ pattern: [UInt8], from offset: Int, before limit: Int) -> Int? {
    var from = offset
    while from < limit {
      let chunk = bytes(at: from, count: Self.window)
      guard chunk.count >= pattern.count else { return nil }
      if let found = chunk.firstRange(of: pattern)?.lowerBound, from + found < limit {
        return from + found
      }
      // The pattern may straddle this window and the next.
      from += chunk.count - pattern.count + 1
    }
    return nil
  }

  /// The offset and pk of the first object that begins at or after `offset`, before `limit`.
  private func object(from offset: Int, before limit: Int) -> (offset: Int, pk: Int64)? {
    guard let found = first(Self.start, from: offset, before: limit) else { return nil }
    let digits = bytes(at: found + Self.start.count, count: 24).prefix {
      $0 == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
    }
    guard let pk = Int64(String(decoding: digits, as: UTF8.self)) else { return nil }
    return (found, pk)
  }

  /// The to-do `pk`, read as `DataCopyReader` reads the copy; nil when the copy has none.
  mutating func todo(_ pk: Int64) -> PreviousBuild.Todo? {
    // The object of `pk`, if any, begins in `low..<high`.
    var low = 0
    var high = size
    while high - low > Self.window {
      let middle = (low + high) / 2
      guard let found = object(from: middle, before: high) else {
        high = middle
        continue
      }
      if found.pk == pk { return todo(at: found.offset, pk) }
      if found.pk < pk {
        low = found.offset + 1
      } else {
        high = middle
      }
    }
    var offset = low
    while let found = object(from: offset, before: high), found.pk <= pk {
      if found.pk == pk { return todo(at: found.offset, pk) }
      offset = found.offset + 1
    }
    return nil
  }

  /// The to-do of the object at `offset`, when it is `pk`'s.
  private func todo(at offset: Int, _ pk: Int64) -> PreviousBuild.Todo? {
    guard let end = first(Self.end, from: offset + 1, before: size) else { return nil }
    let object = bytes(at: offset, count: end + Self.end.count - offset)
    let array = Array("[".utf8) + object + Array("\n]\n".utf8)
    guard let todos = array.withUnsafeBytes(DataCopyReader.todos), todos.count == 1,
      todos.pk(0) == pk
    else { return nil }
    return todos[0]
  }
}

/// What a `TodoCopyRecord` is made of, kept past the plan: the to-dos' pks and rows' hashes in
/// index order and their positions in pk order (28 bytes a to-do, arrays the plan and the
/// fingerprints already hold). The commit makes the record (`bytes`) once the plan's texts
/// are let go of.
struct TodoCopyRows: Sendable {
  let pks: [Int64]
  let order: [Int32]
  let hashes: [KeyedHash]

  /// The stored record, with an identity of zeros (`TodoCopyRecord.bytes(count:rows:)`).
  var bytes: [UInt8] {
    let (pks, hashes) = (pks, hashes)
    return TodoCopyRecord.bytes(
      count: order.count, rows: order.lazy.map { (pks[Int($0)], hashes[Int($0)]) })
  }
}
