#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The folder that photos stored as files are read from: the possessions database's folder, or
/// the `photo-folder` the user gave. A photo's path is resolved beneath it one component at a
/// time from an open descriptor of the folder (`openat` with `O_NOFOLLOW`), its links followed
/// by hand (as the kernel's `RESOLVE_BENEATH` does): a path that is absolute, that climbs out
/// with `..`, or whose link points out of the folder is refused before any file outside it is
/// opened, and a component swapped for a link while it is resolved fails to open.
/// Nothing in the folder is ever written.
final class PhotoFolder {
  /// The folder as the user gave it (or the database's folder), for messages.
  let path: String
  private let descriptor: Int32

  /// The longest path a row may hold, in bytes (Linux's `PATH_MAX`).
  static let maxPathBytes = 4096
  /// Links followed while one path is resolved, at most (Linux's `MAXSYMLINKS`).
  static let maxLinks = 40
  /// The largest photo file read: SQLite's longest BLOB (`SQLITE_MAX_LENGTH`).
  static let maxFileBytes: Int64 = 1_000_000_000

  /// Opens the folder at `path` for reading.
  ///
  /// - Throws: ``SourceError`` naming `file` when the folder cannot be opened.
  init(path: String, file: String) throws {
    self.path = path
    #if canImport(Glibc)
      let descriptor = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    #else
      let descriptor = Darwin.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    #endif
    guard descriptor >= 0 else {
      let reason = String(cString: strerror(errno))
      throw SourceError(
        file: file,
        message:
          "the photo folder '\(path)' cannot be opened (\(reason)); give the folder the photos' "
          + "paths are relative to with --photo-folder or \"photo-folder\"")
    }
    self.descriptor = descriptor
  }

  deinit { close(descriptor) }

  /// A photo file opened for reading, closed when let go of.
  final class File {
    let descriptor: Int32
    let stamp: FileStamp

    init(descriptor: Int32, stamp: FileStamp) {
      self.descriptor = descriptor
      self.stamp = stamp
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes from `offset`, fewer at the file's end.
    func read(offset: Int64, count: Int) throws -> [UInt8] {
      guard count > 0 else { return [] }
      var bytes = [UInt8](repeating: 0, count: count)
      var done = 0
      while done < count {
        let read = bytes.withUnsafeMutableBytes { buffer in
          pread(
            descriptor, buffer.baseAddress.map { $0 + done }, count - done,
            off_t(offset) + off_t(done))
        }
        if read < 0, errno == EINTR { continue }
        guard read >= 0 else { throw Failure(String(cString: strerror(errno))) }
        if read == 0 { break }
        done += read
      }
      bytes.removeLast(count - done)
      return bytes
    }
  }

  /// Why a file could not be read, in words for a message.
  struct Failure: Error, Equatable {
    var reason: String
    init(_ reason: String) { self.reason = reason }
  }

  /// Why a row's path is not opened: the end of a warning, after `photo 'PATH' `.
  enum Refusal: Error, Equatable {
    case absolute
    case leaves
    case missing
    case notRegular
    case tooManyLinks
    case unreadable(String)

    var message: String {
      switch self {
      case .absolute: "is an absolute path; give a path relative to the photo folder"
      case .leaves: "leaves the photo folder"
      case .missing: "is not in the photo folder"
      case .notRegular: "is not a regular file"
      case .tooManyLinks: "goes through more than \(PhotoFolder.maxLinks) links"
      case .unreadable(let reason): "cannot be read (\(reason))"
      }
    }
  }

  /// Why the text `bytes` is not a path to look up (before anything is opened), or nil when it
  /// is one: too long, not UTF-8, holding a control character, absolute.
  static func check(_ bytes: [UInt8]) -> String? {
    if bytes.count > maxPathBytes { return "is longer than \(maxPathBytes) bytes" }
    if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
      return "holds a control character (a NUL byte, a line break, a tab)"
    }
    if String(validating: bytes, as: UTF8.self) == nil { return "is not valid UTF-8" }
    if bytes.first == UInt8(ascii: "/") { return Refusal.absolute.message }
    return nil
  }

  /// Opens the regular file at `relative` beneath the folder, following links only while they
  /// stay beneath it; why not otherwise.
  func open(_ relative: String) -> Result<File, Refusal> {
    guard !relative.hasPrefix("/") else { return .failure(.absolute) }
    // A path that climbs out as written is refused before anything is looked up.
    var depth = 0
    for name in Self.components(relative) {
      depth += name == ".." ? -1 : 1
      if depth < 0 { return .failure(.leaves) }
    }
    // The components still to resolve, the next one last.
    var pending = Array(Self.components(relative).reversed())
    // The folders resolved so far beneath the folder, each open.
    var folders: [Int32] = []
    defer {
      for folder in folders { close(folder) }
    }
    var links = 0
    while let name = pending.popLast() {
      if name == ".." {
        guard let last = folders.popLast() else { return .failure(.leaves) }
        close(last)
        continue
      }
      let current = folders.last ?? descriptor
      var info = stat()
      guard fstatat(current, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
        return .failure(Self.refusal(errno))
      }
      switch info.st_mode & S_IFMT {
      case S_IFLNK:
        links += 1
        guard links <= Self.maxLinks else { return .failure(.tooManyLinks) }
        var target = [CChar](repeating: 0, count: Self.maxPathBytes + 1)
        let count = readlinkat(current, name, &target, Self.maxPathBytes)
        guard count >= 0 else { return .failure(Self.refusal(errno)) }
        let text = String(
          decoding: target.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard !text.hasPrefix("/") else { return .failure(.leaves) }
        pending += Self.components(text).reversed()
      case S_IFDIR where !pending.isEmpty:
        let folder = openat(current, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return .failure(Self.refusal(errno)) }
        folders.append(folder)
      case S_IFREG where pending.isEmpty:
        // Not blocking: a file swapped for a FIFO after the check must not hang the build.
        let file = openat(current, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard file >= 0 else { return .failure(Self.refusal(errno)) }
        var opened = stat()
        guard fstat(file, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG,
          opened.st_dev == info.st_dev, opened.st_ino == info.st_ino
        else {
          close(file)
          return .failure(.notRegular)
        }
        return .success(File(descriptor: file, stamp: FileStamp(opened)))
      case S_IFREG:
        return .failure(.missing)
      default:
        return .failure(.notRegular)
      }
    }
    // The path ends at a folder (`.`, `..`, or a link to one).
    return .failure(.notRegular)
  }

  /// The components of a path, without empty ones and `.`.
  private static func components(_ path: String) -> [String] {
    path.split(separator: "/").map(String.init).filter { $0 != "." }
  }

  private static func refusal(_ code: Int32) -> Refusal {
    switch code {
    case ENOENT, ENOTDIR: .missing
    default: .unreadable(String(cString: strerror(code)))
    }
  }
}
