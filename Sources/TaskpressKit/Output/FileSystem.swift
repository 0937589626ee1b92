#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Thin wrappers around the Glibc calls of the hot path. Everything works relative to an open
// directory descriptor and never follows a symbolic link: `O_NOFOLLOW` on opens,
// `AT_SYMLINK_NOFOLLOW` on stats.

/// A failed system call: its `errno`.
struct SystemError: Error, Equatable {
  var code: Int32

  /// The current `errno`.
  static var current: SystemError { SystemError(code: errno) }

  /// A lower-case message for a user: `no space left on device`.
  var reason: String {
    switch code {
    case ENOSPC: return "no space left on device"
    case EDQUOT: return "disk quota exceeded"
    case EFBIG: return "file too large (the file size limit, see 'ulimit -f', was reached)"
    case EACCES, EPERM: return "permission denied"
    case EROFS: return "read-only file system"
    case ENOTDIR: return "a part of the path is a file, not a folder"
    case EISDIR: return "is a folder, not a file"
    case ELOOP: return OutputError.symbolicLink
    case ENAMETOOLONG: return "name too long"
    case EMFILE, ENFILE: return "too many open files"
    case EIO: return "input/output error"
    default:
      guard let text = strerror(code) else { return "error \(code)" }
      let message = String(cString: text)
      return message.prefix(1).lowercased() + message.dropFirst()
    }
  }
}

enum FileSystem {
  static let directoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC

  /// Opens the folder `name` inside `parent`; nil when it does not exist.
  static func openDirectory(_ parent: Int32, _ name: String) throws(SystemError) -> Int32? {
    let fd = openat(parent, name, directoryFlags)
    if fd >= 0 { return fd }
    let code = errno
    if code == ENOENT { return nil }
    if code == ELOOP || code == ENOTDIR {
      // Tell a link apart from a file sitting where a folder should be.
      if let info = statNoFollow(parent, name), info.isSymbolicLink {
        throw SystemError(code: ELOOP)
      }
      throw SystemError(code: ENOTDIR)
    }
    throw SystemError(code: code)
  }

  /// `openat(parent, "folder/name", flags, mode)`, with the path joined in a buffer on the
  /// stack rather than in a new string (this is done for every file of a first build).
  static func open(
    _ parent: Int32, folder: String, name: String, _ flags: Int32, _ mode: mode_t
  ) -> Int32 {
    var folder = folder
    var name = name
    return folder.withUTF8 { folder in
      name.withUTF8 { name in
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: folder.count + name.count + 2) {
          path in
          var end = 0
          for byte in folder {
            path[end] = byte
            end += 1
          }
          path[end] = UInt8(ascii: "/")
          end += 1
          for byte in name {
            path[end] = byte
            end += 1
          }
          path[end] = 0
          return path.withMemoryRebound(to: CChar.self) { path in
            // A temporary allocation of two or more bytes has an address.
            path.baseAddress.map { openat(parent, $0, flags, mode) } ?? -1
          }
        }
      }
    }
  }

  /// `fstatat(AT_SYMLINK_NOFOLLOW)`; nil when the entry does not exist (or cannot be read).
  static func statNoFollow(_ parent: Int32, _ name: String) -> stat? {
    var info = stat()
    guard fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
    return info
  }

  /// Like `statNoFollow`, but tells "absent" (nil) apart from a failure (thrown).
  static func statIfExists(_ parent: Int32, _ name: String) throws(SystemError) -> stat? {
    var info = stat()
    if fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 { return info }
    let code = errno
    if code == ENOENT { return nil }
    throw SystemError(code: code)
  }

  /// Writes all of `buffer`, retrying short writes and `EINTR`.
  static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SystemError) {
    guard var base = buffer.baseAddress else { return }
    var left = buffer.count
    while left > 0 {
      let n = write(fd, base, left)
      if n < 0 {
        if errno == EINTR { continue }
        throw SystemError.current
      }
      if n == 0 { throw SystemError(code: EIO) }
      left -= n
      base += n
    }
  }

  /// Writes all of `bytes`.
  static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
    let failure: SystemError? = bytes.withUnsafeBytes { p in
      do throws(SystemError) {
        try writeAll(fd, p)
        return nil
      } catch {
        return error
      }
    }
    if let failure { throw failure }
  }

  /// Reads the whole rest of `fd`, which is `expected` bytes long when unchanged.
  static func readAll(_ fd: Int32, expected: Int) throws(SystemError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: expected)
    let result: Result<Int, SystemError> = bytes.withUnsafeMutableBytes { p in
      do throws(SystemError) {
        return .success(try readFully(fd, p))
      } catch {
        return .failure(error)
      }
    }
    bytes.removeLast(bytes.count - (try result.get()))
    return bytes
  }

  /// Reads until `buffer` is full or the end of the file; returns the count read.
  static func readFully(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SystemError)
    -> Int
  {
    guard let base = buffer.baseAddress else { return 0 }
    var total = 0
    while total < buffer.count {
      let n = read(fd, base + total, buffer.count - total)
      if n < 0 {
        if errno == EINTR { continue }
        throw SystemError.current
      }
      if n == 0 { break }
      total += n
    }
    return total
  }

  /// Whether the open file `fd` (positioned at its start) holds exactly `bytes`.
  static func contentEquals(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError)
    -> Bool
  {
    let chunk = 1 << 16
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
    defer { scratch.deallocate() }
    var offset = 0
    while offset < bytes.count {
      let want = min(chunk, bytes.count - offset)
      let got = try readFully(fd, UnsafeMutableRawBufferPointer(rebasing: scratch[0..<want]))
      guard got == want, let mine = scratch.baseAddress, let theirs = bytes.baseAddress,
        memcmp(mine, theirs + offset, want) == 0
      else { return false }
      offset += want
    }
    // Equal so far; the file must also end here.
    var probe: UInt8 = 0
    let extra = try withUnsafeMutableBytes(of: &probe) { (p) throws(SystemError) in
      try readFully(fd, p)
    }
    return extra == 0
  }

  /// The names in folder `fd` other than `.` and `..`. Does not take ownership of `fd`.
  static func listDirectory(_ fd: Int32) throws(SystemError) -> [String] {
    let copy = dup(fd)
    guard copy >= 0 else { throw SystemError.current }
    guard let dir = fdopendir(copy) else {
      let error = SystemError.current
      close(copy)
      throw error
    }
    defer { closedir(dir) }
    rewinddir(dir)
    var names: [String] = []
    // A record is as long as its name (`d_reclen`), not `MemoryLayout<dirent>.size`: the name
    // is read where it is, never by copying the record (`entry.pointee`), which can read past
    // the end of readdir's buffer, into memory that is not mapped.
    // (19 is glibc's offset of `d_name`, should the layout not say.)
    let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19
    while let entry = readdir(dir) {
      let field = UnsafeRawPointer(entry) + nameOffset
      let name = String(cString: field.assumingMemoryBound(to: CChar.self))
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// Removes `name` in `parent` and, when it is a real folder, everything inside it (links are
  /// removed, never followed). Missing entries are fine.
  static func removeTree(_ parent: Int32, _ name: String) {
    guard let info = statNoFollow(parent, name) else { return }
    if info.isDirectory, let fd = try? openDirectory(parent, name) {
      for child in (try? listDirectory(fd)) ?? [] { removeTree(fd, child) }
      close(fd)
      unlinkat(parent, name, AT_REMOVEDIR)
    } else {
      unlinkat(parent, name, 0)
    }
  }
}

extension stat {
  var isSymbolicLink: Bool { (st_mode & S_IFMT) == S_IFLNK }
  var isDirectory: Bool { (st_mode & S_IFMT) == S_IFDIR }
  var isRegularFile: Bool { (st_mode & S_IFMT) == S_IFREG }
  /// Modification time in nanoseconds since the epoch.
  var modificationNanoseconds: Int64 {
    Int64(modificationTime.tv_sec) &* 1_000_000_000 &+ Int64(modificationTime.tv_nsec)
  }
}
