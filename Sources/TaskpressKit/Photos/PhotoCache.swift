#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A folder of renditions outside the site (`--photo-cache DIR`), kept across builds and
/// checkouts (a CI cache step): a photo whose renditions it holds is published from it without
/// being decoded.
///
/// An entry is one file, `KEY.tpc`, named by the hash of its photo's bytes and of the settings
/// that decide its renditions' bytes (`PhotoPublisher.cacheKey`), keyed with the cache's own
/// secret (`key`, a `HashKey` made at random when the folder is first used and kept in it): no
/// photo can be crafted to be found under another's entry. Its name is not trusted: it
/// holds its own key, each rendition's size and bytes, and ends with the `ContentHash` of
/// everything before it, all checked when it is read; an entry that fails (cut, damaged, another
/// program's file, another key's entry renamed) is a miss, removed, and made again. Entries are
/// written to a temporary file and renamed into place, so a build that stops, or two builds that
/// share the folder, never leave half an entry under a key's name.
///
/// The folder is bounded: once a build has published its photos, the entries used least
/// recently (each hit touches its entry) are removed until the folder holds at most `limit`
/// bytes of entries.
final class PhotoCache: Sendable {
  /// One rendition as stored: its width in its file's name, its size, its bytes.
  struct Rendition: Equatable, Sendable {
    var nameWidth: Int
    var width: Int
    var height: Int
    var bytes: [UInt8]
  }

  let folder: String
  let limit: Int
  /// The cache's secret: the key of the hashes its entries are named by.
  let key: HashKey

  static let fileExtension = ".tpc"
  private static let magic = Array("taskpress-photo-cache 1\n".utf8)
  /// The default bound of the folder, in bytes (1 GiB).
  public static let defaultLimit = 1 << 30

  /// Opens the cache in `folder`, making it (and its parents) if needed.
  init(folder: String, limit: Int) throws(BuildError) {
    self.folder = folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
    self.limit = limit
    var info = stat()
    if stat(self.folder, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFDIR else {
        throw BuildError(
          "--photo-cache '\(folder)': not a folder; give the path of a folder for the cache")
      }
    } else {
      try Self.makeFolder(self.folder, shown: folder)
    }
    guard access(self.folder, W_OK | X_OK) == 0 else {
      throw BuildError(
        "--photo-cache '\(folder)': cannot write into the folder; check its permissions")
    }
    key = try Self.folderKey(self.folder, shown: folder)
  }

  /// The cache's key, kept in the file `key` of `folder`: read, or made at random and stored
  /// when there is none (or it does not read as a key). Two builds that make one at once keep
  /// the first stored (a hard link never replaces a file); an entry named under a key no longer
  /// in force is never found, and is trimmed in time.
  private static func folderKey(_ folder: String, shown: String) throws(BuildError) -> HashKey {
    let path = "\(folder)/\(HashKey.fileName)"
    for _ in 0..<3 {
      if let bytes = readFile(path), let key = HashKey(bytes: bytes) { return key }
      let made = HashKey.random()
      var template = Array("\(folder)/.key.XXXXXX".utf8CString)
      let fd = template.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress.map { mkstemp($0) } ?? -1
      }
      guard fd >= 0 else { break }
      let temporary = String(
        decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      defer { unlink(temporary) }
      let bytes = made.bytes
      let written = bytes.withUnsafeBytes { buffer in
        buffer.baseAddress.map { System.write(fd, $0, buffer.count) } ?? -1
      }
      fchmod(fd, 0o600)
      guard close(fd) == 0, written == bytes.count else { break }
      if link(temporary, path) == 0 { return made }
      // Another build stored one first, or a damaged file is in the way: read again, and
      // replace what does not read as a key.
      if errno == EEXIST, readFile(path).flatMap(HashKey.init(bytes:)) == nil {
        unlink(path)
      }
    }
    throw BuildError(
      "--photo-cache '\(shown)': cannot store the cache's key in the folder; check its "
        + "permissions and free space")
  }

  private static func makeFolder(_ path: String, shown: String) throws(BuildError) {
    var prefix = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
      prefix += "/" + part
      if mkdir(prefix, 0o755) != 0, errno != EEXIST {
        let reason = String(cString: strerror(errno))
        throw BuildError(
          "--photo-cache '\(shown)': cannot make the folder (\(reason.lowercased())); "
            + "check the path and its permissions")
      }
    }
  }

  private func path(_ key: String) -> String { "\(folder)/\(key)\(Self.fileExtension)" }

  // MARK: - Reading

  /// The renditions stored under `key`, checked; nil when there is no entry or it does not
  /// check out (it is then removed, so that the photo's renditions are made and stored again).
  /// A hit marks the entry used now.
  func read(_ key: String) -> [Rendition]? {
    let path = path(key)
    guard let bytes = Self.readFile(path) else { return nil }
    guard let renditions = Self.decode(bytes, key: key) else {
      unlink(path)
      return nil
    }
    // Used now: the bound drops it last.
    utimensat(AT_FDCWD, path, nil, 0)
    return renditions
  }

  /// The renditions in an entry's `bytes` when they are whole, checked and stored under `key`.
  static func decode(_ bytes: [UInt8], key: String) -> [Rendition]? {
    let keyBytes = Array(key.utf8)
    guard bytes.count >= magic.count + keyBytes.count + 4 + 8 else { return nil }
    let body = bytes.count - 8
    let stored = bytes.withUnsafeBytes {
      UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: body, as: UInt64.self))
    }
    let checked = bytes.withUnsafeBytes {
      ContentHash(of: UnsafeRawBufferPointer(rebasing: $0[0..<body]))
    }
    guard checked.value == stored, bytes[0..<magic.count].elementsEqual(magic) else { return nil }
    var offset = magic.count
    guard bytes[offset..<offset + keyBytes.count].elementsEqual(keyBytes) else { return nil }
    offset += keyBytes.count
    func number(_ size: Int) -> Int? {
      guard offset + size <= body else { return nil }
      var value: UInt64 = 0
      for index in 0..<size { value |= UInt64(bytes[offset + index]) << (8 * index) }
      offset += size
      return value <= UInt64(Int32.max) ? Int(value) : nil
    }
    guard let count = number(4), (1...64).contains(count) else { return nil }
    var sizes: [(nameWidth: Int, width: Int, height: Int, length: Int)] = []
    for _ in 0..<count {
      guard let nameWidth = number(4), let width = number(4), let height = number(4),
        let length = number(8), width > 0, height > 0
      else { return nil }
      sizes.append((nameWidth, width, height, length))
    }
    var renditions: [Rendition] = []
    for size in sizes {
      guard size.length <= body - offset else { return nil }
      renditions.append(
        Rendition(
          nameWidth: size.nameWidth, width: size.width, height: size.height,
          bytes: Array(bytes[offset..<offset + size.length])))
      offset += size.length
    }
    return offset == body ? renditions : nil
  }

  /// An entry's bytes: the renditions under `key`, then the hash of all before it.
  static func encode(_ renditions: [Rendition], key: String) -> [UInt8] {
    var bytes = magic + Array(key.utf8)
    func append(_ value: Int, _ size: Int) { append64(UInt64(truncatingIfNeeded: value), size) }
    func append64(_ value: UInt64, _ size: Int) {
      for index in 0..<size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }
    append(renditions.count, 4)
    for rendition in renditions {
      append(rendition.nameWidth, 4)
      append(rendition.width, 4)
      append(rendition.height, 4)
      append(rendition.bytes.count, 8)
    }
    for rendition in renditions { bytes += rendition.bytes }
    append64(ContentHash(of: bytes).value, 8)
    return bytes
  }

  // MARK: - Writing

  /// Stores `renditions` under `key`. A failure to write is not the build's: the photo is
  /// published either way, and made again next time.
  func store(_ renditions: [Rendition], key: String) {
    let bytes = Self.encode(renditions, key: key)
    var template = Array("\(folder)/.\(key).XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.map { mkstemp($0) } ?? -1
    }
    guard fd >= 0 else { return }
    let temporary = String(
      decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var done = 0
    while done < bytes.count {
      let count = bytes.withUnsafeBytes { buffer in
        buffer.baseAddress.map { System.write(fd, $0 + done, buffer.count - done) } ?? -1
      }
      guard count > 0 else { break }
      done += count
    }
    fchmod(fd, 0o644)
    let closed = close(fd) == 0
    if done != bytes.count || !closed || rename(temporary, path(key)) != 0 {
      unlink(temporary)
    }
  }

  // MARK: - The bound

  /// Removes the entries used least recently until those left hold at most `limit` bytes;
  /// also removes temporary files older than a day (of builds that were stopped).
  func trim() {
    guard let directory = opendir(folder) else { return }
    var entries: [(name: String, size: Int, used: Int64)] = []
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    while let item = readdir(directory) {
      let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      var info = stat()
      guard lstat("\(folder)/\(name)", &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
        continue
      }
      if name.hasPrefix("."), name.count > 8, now.tv_sec - info.modificationTime.tv_sec > 86_400 {
        unlink("\(folder)/\(name)")
        continue
      }
      guard name.hasSuffix(Self.fileExtension), !name.hasPrefix(".") else { continue }
      entries.append((name, Int(info.st_size), info.modificationNanoseconds))
    }
    closedir(directory)
    var total = entries.reduce(0) { $0 + $1.size }
    guard total > limit else { return }
    // Oldest first; equal times by name, so that the same folder is trimmed the same way.
    entries.sort { ($0.used, $0.name) < ($1.used, $1.name) }
    for entry in entries where total > limit {
      if unlink("\(folder)/\(entry.name)") == 0 { total -= entry.size }
    }
  }

  private static func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0,
      info.st_size < 1 << 31
    else { return nil }
    let size = Int(info.st_size)
    var bytes = [UInt8](repeating: 0, count: size)
    var done = 0
    while done < size {
      let count = bytes.withUnsafeMutableBytes { buffer in
        buffer.baseAddress.map { System.read(fd, $0 + done, size - done) } ?? -1
      }
      guard count > 0 else { return nil }
      done += count
    }
    return bytes
  }
}
