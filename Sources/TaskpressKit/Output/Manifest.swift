import Dispatch

/// What taskpress wrote into an output folder in its last build: `.taskpress/manifest`.
///
/// A plain text file, sorted and deterministic, one line per file and then one per folder that
/// taskpress created:
///
/// ```
/// taskpress-manifest 2
/// 8f1a9c03d2e4b5a60c1d2e3f4a5b6c7d 2048 1732900000123456789 todos/3.html
/// folder todos
/// ```
///
/// A file line is the content's keyed hash (`KeyedHash`, under the folder's `HashKey`; 32 hex
/// digits; a manifest of version 1, with 16 digits of an unkeyed hash, is read with hashes that
/// match nothing), the size in bytes, the modification time (nanoseconds since
/// the epoch) of the file as written, and the path. The modification time lets a rebuild trust
/// the hash without reading the file; when it differs, the file is compared byte by byte.
struct Manifest: Equatable {
  struct Entry: Equatable {
    var hash: KeyedHash
    var size: Int
    var modified: Int64
  }

  static let header = "taskpress-manifest 2"
  /// The header of a manifest of an earlier version, whose hashes were 16 digits, unkeyed.
  static let headerVersion1 = "taskpress-manifest 1"

  var files = Files()
  /// Folders taskpress created (so it may remove them when they become empty).
  var folders: Set<String> = []

  init() {}

  /// Parses a manifest; nil when it is damaged.
  init?(parsing bytes: [UInt8]) {
    // Hand-rolled over the raw bytes: a site's manifest has 100,000 lines and more.
    let parsed: (files: Files, folders: Set<String>)? = bytes.withUnsafeBufferPointer {
      Self.parse($0)
    }
    guard let parsed else { return nil }
    files = parsed.files
    folders = parsed.folders
  }

  private static func parse(_ text: UnsafeBufferPointer<UInt8>) -> (
    files: Files, folders: Set<String>
  )? {
    var files = Files()
    var folders: Set<String> = []
    let newline = UInt8(ascii: "\n")
    // One line a file: room for them all at once, not grown (and rehashed) a dozen times.
    var lines = 0
    for byte in text where byte == newline { lines += 1 }
    files.reserveCapacity(lines, pathBytes: text.count)
    let space = UInt8(ascii: " ")
    let folderPrefix = Array("folder ".utf8)
    var start = 0
    var first = true
    var digits = 32
    while start < text.count {
      var end = start
      while end < text.count && text[end] != newline { end += 1 }
      let line = UnsafeBufferPointer(rebasing: text[start..<end])
      start = end + 1
      if line.isEmpty { continue }
      if first {
        if line.elementsEqual(headerVersion1.utf8) {
          digits = 16
        } else {
          guard line.elementsEqual(header.utf8) else { return nil }
        }
        first = false
        continue
      }
      if line.starts(with: folderPrefix) {
        let path = UnsafeBufferPointer(rebasing: line[folderPrefix.count...])
        guard OutputPath.problem(bytes: path) == nil else { return nil }
        folders.insert(String(decoding: path, as: UTF8.self))
        continue
      }
      // hash (32 hex digits; 16 in version 1) SP size SP mtime SP path
      guard line.count > digits + 1, line[digits] == space,
        let high = parseHex(line[0..<(digits - 16)]),
        let low = parseHex(line[(digits - 16)..<digits])
      else {
        return nil
      }
      // A version 1 hash, unkeyed, is kept as one no keyed hash is (its high half marked):
      // nothing of the previous version is trusted to be unchanged.
      let hash =
        digits == 32 ? KeyedHash(low: low, high: high) : KeyedHash(low: low, high: ~0 ^ low)
      var index = digits + 1
      guard let size = parseDecimal(line, &index), size >= 0, index < line.count,
        line[index] == space
      else { return nil }
      index += 1
      guard let modified = parseDecimal(line, &index), index < line.count - 1,
        line[index] == space
      else { return nil }
      let path = UnsafeBufferPointer(rebasing: line[(index + 1)...])
      guard OutputPath.problem(bytes: path) == nil else { return nil }
      files.insert(
        bytes: path, Entry(hash: hash, size: Int(size), modified: modified))
    }
    return first ? nil : (files, folders)
  }

  private static func parseHex(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> UInt64? {
    var value: UInt64 = 0
    for digit in digits {
      let nibble: UInt8
      switch digit {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
      default: return nil
      }
      value = value << 4 | UInt64(nibble)
    }
    return value
  }

  /// An optionally negative decimal at `index`, which moves past it.
  private static func parseDecimal(_ line: UnsafeBufferPointer<UInt8>, _ index: inout Int)
    -> Int64?
  {
    var negative = false
    if index < line.count && line[index] == UInt8(ascii: "-") {
      negative = true
      index += 1
    }
    var value: Int64 = 0
    var digits = 0
    while index < line.count, line[index] >= UInt8(ascii: "0"), line[index] <= UInt8(ascii: "9") {
      let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times.addingReportingOverflow(Int64(line[index] - UInt8(ascii: "0")))
      guard !overflow1 && !overflow2 else { return nil }
      value = sum
      index += 1
      digits += 1
    }
    guard digits > 0 else { return nil }
    return negative ? -value : value
  }

  /// The text of the manifest, sorted by path.
  func serialized() -> [UInt8] {
    let paths = files.paths
    let ordered = OutputPath.byteOrder(paths.count) { paths[$0] }.map { index in
      (path: paths[index], entry: files.entry(index))
    }
    return Self.text(files: ordered, folders: OutputPath.sorted(folders))
  }

  /// The text of a manifest of `files` and `folders`, both already in byte order.
  ///
  /// Written straight into one buffer of the right size: a site's manifest has 100,000 lines
  /// and more, and it is made during the commit. A long list is written in two halves on two
  /// threads, the second into a buffer of its own that is then copied after the first.
  static func text(files: [(path: String, entry: Entry)], folders: [String]) -> [UInt8] {
    let folderPrefix = "folder "
    var capacity = header.utf8.count + 1
    files.withUnsafeBufferPointer { capacity += lineCapacity($0[...]) }
    for folder in folders { capacity += folderPrefix.utf8.count + folder.utf8.count + 1 }
    return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
      guard let base = buffer.baseAddress else { return }
      var out = base
      put(header, at: &out)
      put(UInt8(ascii: "\n"), at: &out)
      files.withUnsafeBufferPointer { buffer in
        nonisolated(unsafe) let files = buffer
        if files.count < parallelThreshold {
          putLines(files[...], at: &out)
        } else {
          let half = files.count / 2
          let second = UnsafeMutablePointer<UInt8>.allocate(capacity: lineCapacity(files[half...]))
          defer { second.deallocate() }
          // Each thread writes one half into memory no other thread touches.
          nonisolated(unsafe) var firstEnd = out
          nonisolated(unsafe) var secondEnd = second
          DispatchQueue.concurrentPerform(iterations: 2) { part in
            if part == 0 {
              putLines(files[..<half], at: &firstEnd)
            } else {
              putLines(files[half...], at: &secondEnd)
            }
          }
          out = firstEnd
          let secondCount = secondEnd - second
          out.update(from: second, count: secondCount)
          out += secondCount
        }
      }
      for folder in folders {
        put(folderPrefix, at: &out)
        put(folder, at: &out)
        put(UInt8(ascii: "\n"), at: &out)
      }
      count = out - base
    }
  }

  /// From how many files `text` writes on two threads.
  static let parallelThreshold = 16_384

  /// The most room the lines of `files` take: per line 32 hex digits, two numbers of up to 20
  /// characters, 3 spaces, a newline, and the path.
  private static func lineCapacity(
    _ files: Slice<UnsafeBufferPointer<(path: String, entry: Entry)>>
  ) -> Int {
    var capacity = 0
    for file in files { capacity += 32 + 20 + 20 + 4 + file.path.utf8.count }
    return capacity
  }

  /// Writes one line per file at `out`, which moves past them.
  private static func putLines(
    _ files: Slice<UnsafeBufferPointer<(path: String, entry: Entry)>>,
    at out: inout UnsafeMutablePointer<UInt8>
  ) {
    // Read in place: a copy of each line's path would cost reference counting.
    for index in files.indices {
      putLine(files[index].entry, at: &out)
      put(files[index].path, at: &out)
      put(UInt8(ascii: "\n"), at: &out)
    }
  }

  /// Writes the start of a file's line at `out`: its hash, size and modification time, each
  /// followed by a space.
  private static func putLine(_ entry: Entry, at out: inout UnsafeMutablePointer<UInt8>) {
    putHex(entry.hash.high, at: &out)
    putHex(entry.hash.low, at: &out)
    put(UInt8(ascii: " "), at: &out)
    putDecimal(Int64(entry.size), at: &out)
    put(UInt8(ascii: " "), at: &out)
    putDecimal(entry.modified, at: &out)
    put(UInt8(ascii: " "), at: &out)
  }

  /// Writes `word` as 16 lower-case hexadecimal digits at `out`.
  @inline(__always)
  private static func putHex(_ word: UInt64, at out: inout UnsafeMutablePointer<UInt8>) {
    var shift: UInt64 = 64
    while shift > 0 {
      shift -= 4
      let nibble = UInt8((word >> shift) & 0xF)
      put(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble, at: &out)
    }
  }

  /// Writes the text of a manifest to `fd` as `text(files:folders:)` makes it, without holding
  /// it in memory: `count` files, file `i` in byte order handed by `file(i, body)` to `body`
  /// as its path's bytes and its entry, then `folders` (in byte order). A site of a million
  /// files has a manifest of 60 MB, which the commit would otherwise make at its peak.
  /// Returns the text's hash.
  static func write(
    count: Int, file: (Int, (UnsafeBufferPointer<UInt8>, Entry) -> Void) -> Void,
    folders: [String], to fd: Int32
  ) throws(SystemError) -> ContentHash {
    var stream = Stream(fd: fd)
    defer { stream.buffer.deallocate() }
    try stream.reserve(header.utf8.count + 1)
    stream.append { out in
      put(header, at: &out)
      put(UInt8(ascii: "\n"), at: &out)
    }
    for index in 0..<count {
      var failure: SystemError?
      file(index) { path, entry in
        do throws(SystemError) {
          try stream.reserve(32 + 20 + 20 + 4 + path.count)
        } catch {
          failure = error
          return
        }
        stream.append { out in
          putLine(entry, at: &out)
          if let base = path.baseAddress {
            out.update(from: base, count: path.count)
            out += path.count
          }
          put(UInt8(ascii: "\n"), at: &out)
        }
      }
      if let failure { throw failure }
    }
    for folder in folders {
      try stream.reserve(7 + folder.utf8.count + 1)
      stream.append { out in
        put("folder ", at: &out)
        put(folder, at: &out)
        put(UInt8(ascii: "\n"), at: &out)
      }
    }
    try stream.flush()
    return stream.hasher.finalize()
  }

  /// Bytes on their way to a file through a buffer, hashed as they go.
  private struct Stream {
    let fd: Int32
    static let capacity = 1 << 20
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    var count = 0
    var hasher = ContentHasher()

    init(fd: Int32) {
      self.fd = fd
    }

    /// Makes room for `bytes` more (at most `capacity`), writing out what the buffer holds.
    mutating func reserve(_ bytes: Int) throws(SystemError) {
      precondition(bytes <= Self.capacity, "a manifest line longer than its buffer")
      if count + bytes > Self.capacity { try flush() }
    }

    /// Lets `body` write at the end of the buffer (into room made by `reserve`).
    mutating func append(_ body: (inout UnsafeMutablePointer<UInt8>) -> Void) {
      var out = buffer + count
      body(&out)
      count = out - buffer
    }

    mutating func flush() throws(SystemError) {
      let bytes = UnsafeRawBufferPointer(start: buffer, count: count)
      hasher.update(bytes)
      try FileSystem.writeAll(fd, bytes)
      count = 0
    }
  }

  @inline(__always)
  private static func put(_ byte: UInt8, at out: inout UnsafeMutablePointer<UInt8>) {
    out.pointee = byte
    out += 1
  }

  private static func put(_ text: String, at out: inout UnsafeMutablePointer<UInt8>) {
    var position = out
    let copied =
      text.utf8.withContiguousStorageIfAvailable { bytes in
        guard let source = bytes.baseAddress else { return true }
        position.update(from: source, count: bytes.count)
        position += bytes.count
        return true
      } ?? false
    out = position
    guard !copied else { return }
    for byte in text.utf8 { put(byte, at: &out) }
  }

  private static func putDecimal(_ value: Int64, at out: inout UnsafeMutablePointer<UInt8>) {
    if value < 0 { put(UInt8(ascii: "-"), at: &out) }
    var magnitude = value.magnitude
    var digits = 1
    var scale: UInt64 = 10
    while digits < 20 && magnitude >= scale {
      digits += 1
      scale = scale &* 10
    }
    var at = out + digits
    out = at
    repeat {
      at -= 1
      at.pointee = UInt8(ascii: "0") + UInt8(magnitude % 10)
      magnitude /= 10
    } while magnitude > 0
  }
}
