import CSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a WAL-mode database without making `-wal` and `-shm` files beside it, where that is
/// safe, and tells afterwards whether the read saw one state of the file.
///
/// SQLite makes both files when it opens a WAL-mode database, read-only or not, and a read-only
/// connection can never remove them; in a folder it cannot write to, it cannot open the database
/// at all. When the write-ahead log holds no changes (there is no `-wal` file, or an empty one
/// and no `-shm`), the database file alone holds every row, and SQLite can read it with
/// `immutable=1`, which makes no file and takes no lock. That is safe while no other program
/// writes the file, which this type makes sure of:
///
/// - It holds a read lock on the bytes where SQLite takes its SHARED lock, for as long as the
///   database is open. No program can then take the EXCLUSIVE lock that removing a `-wal` or
///   `-shm` file needs, nor open the database in exclusive locking mode. (The lock belongs to
///   this type's own open file description, so SQLite closing its descriptors of the same file
///   cannot drop it, as it would drop a process's POSIX lock.)
/// - So a program that opens the database during the read makes the missing file (every
///   connection opens a `-wal`, and a `-shm` unless it is in exclusive mode), and the file stays
///   until the lock is let go. Such a program writes only to the `-wal`; only a checkpoint of the
///   log writes the database file.
/// - ``check()`` at the end: when the watched file appeared and the database file's size or
///   times changed, the read may have mixed two states, and it throws.
///
/// Where these locks do not exist (not Linux), or the log holds changes, the database is opened
/// as usual and SQLite makes the files it needs.
final class ImmutableRead {
  /// The side file whose appearance means another program opened the database.
  private let watched: String
  /// Holds the lock; closed when released.
  private let descriptor: Int32
  private let stamp: FileStamp
  /// Whether `stamp` was taken within a tick of the file's last change (git's racy-clean rule,
  /// `TaskpressKit`'s `FileStamp`): a change in that tick would leave the same stamp, so then
  /// the file's bytes are compared instead (`contents`).
  private let racy: Bool
  /// The database file's bytes' hash when the stamp is racy.
  private let contents: UInt64?
  private let file: String

  /// The size, times and identity of a file, to tell whether it was written.
  private struct FileStamp: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: timespec
    var changed: timespec

    init(_ info: stat) {
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
      size = Int64(info.st_size)
      #if canImport(Darwin)
        modified = info.st_mtimespec
        changed = info.st_ctimespec
      #else
        modified = info.st_mtim
        changed = info.st_ctim
      #endif
    }

    static func == (lhs: FileStamp, rhs: FileStamp) -> Bool {
      lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
        && lhs.modified.tv_sec == rhs.modified.tv_sec
        && lhs.modified.tv_nsec == rhs.modified.tv_nsec
        && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
    }
  }

  // SQLite's lock bytes (os.h): the SHARED lock is a read lock on 510 bytes past the pending byte.
  private static let pendingByte: Int64 = 0x4000_0000
  private static let sharedFirst = pendingByte + 2
  private static let sharedSize: Int64 = 510

  private init(file: String, watched: String, descriptor: Int32, stamp: FileStamp) {
    self.file = file
    self.watched = watched
    self.descriptor = descriptor
    self.stamp = stamp
    racy = Self.isRacy(stamp.modified, at: Self.now()) || Self.isRacy(stamp.changed, at: Self.now())
    contents = racy ? Self.contentHash(descriptor) : nil
  }

  /// As `FileStamp.isRacy` in `TaskpressKit`: `time` within 20 ms (more than a tick of the
  /// clock that stamps files) before `now`, or after it; on a file system of whole seconds, the
  /// same second or the one before.
  private static func isRacy(_ time: timespec, at now: timespec) -> Bool {
    let second: Int64 = 1_000_000_000
    let file = Int64(time.tv_sec) * second + Int64(time.tv_nsec)
    let recorded = Int64(now.tv_sec) * second + Int64(now.tv_nsec)
    if file >= recorded - 20_000_000 { return true }
    return time.tv_nsec == 0 && file >= (recorded / second - 1) * second
  }

  private static func now() -> timespec {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return time
  }

  /// The FNV-1a hash of the whole file, read with `pread`; nil when it cannot be read.
  private static func contentHash(_ descriptor: Int32) -> UInt64? {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var offset: off_t = 0
    while true {
      let count = buffer.withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress, $0.count, offset)
      }
      if count < 0 { return nil }
      if count == 0 { return hash }
      for byte in buffer[0..<count] { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
      offset += off_t(count)
    }
  }

  deinit {
    close(descriptor)
  }

  /// Takes the lock and returns a guard when `path` is a WAL-mode database whose log holds no
  /// changes; `nil` when it should be opened as usual.
  ///
  /// - Throws: ``SQLiteError`` when another program holds an exclusive lock for longer than
  ///   `busyTimeout`, or when the log holds changes that cannot be read in this folder.
  static func begin(path: String, busyTimeout: Duration) throws -> ImmutableRead? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    var keep = false
    defer { if !keep { close(descriptor) } }
    guard isWALMode(descriptor) else { return nil }
    #if os(Linux)
      guard try lockShared(descriptor, path: path, busyTimeout: busyTimeout) else { return nil }
    #else
      return nil
    #endif
    // Looked at once the lock is held: from here on no side file can go away.
    let wal = fileInfo(path + "-wal")
    let shm = fileInfo(path + "-shm")
    let watched: String
    if wal == nil {
      watched = path + "-wal"
    } else if wal?.st_size == 0, shm == nil {
      watched = path + "-shm"
    } else {
      if shm == nil, !isWritableFolder(of: path) {
        throw SQLiteError(
          file: path, code: SQLITE_CANTOPEN,
          message: SQLiteError.walNeedsIndexMessage(path))
      }
      return nil
    }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return nil }
    keep = true
    return ImmutableRead(
      file: path, watched: watched, descriptor: descriptor, stamp: FileStamp(info))
  }

  /// Throws when another program opened the database during the read and the database file
  /// changed since: a checkpoint wrote to it, so the rows read may come from two states.
  func check() throws {
    guard Self.fileInfo(watched) != nil else { return }
    var info = stat()
    guard fstat(descriptor, &info) == 0, FileStamp(info) == stamp,
      !racy || (contents != nil && Self.contentHash(descriptor) == contents)
    else {
      throw SQLiteError(
        file: file, code: SQLITE_BUSY, message: SQLiteError.changedWhileReadMessage)
    }
  }

  // MARK: - Files

  /// SQLite opens a file in WAL mode when byte 19 of its header (the read version) is 2,
  /// whatever byte 18 (the write version) says: a write version above 2 only makes the file
  /// read-only. Both are 2 in a sound WAL-mode file; a damaged one may keep only byte 19.
  static func isWALMode(_ descriptor: Int32) -> Bool {
    var header = [UInt8](repeating: 0, count: 20)
    let count = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 20, 0) }
    return count == 20 && header[19] == 2
  }

  private static func fileInfo(_ path: String) -> stat? {
    var info = stat()
    return lstat(path, &info) == 0 ? info : nil
  }

  private static func isWritableFolder(of path: String) -> Bool {
    let folder: String
    if let slash = path.lastIndex(of: "/") {
      folder = slash == path.startIndex ? "/" : String(path[..<slash])
    } else {
      folder = "."
    }
    return access(folder, W_OK) == 0
  }

  #if os(Linux)
    // F_OFD_SETLK (fcntl.h, Linux 3.15): Glibc's module does not export it.
    private static let setOpenFileLock: Int32 = 37

    /// Takes a read lock on SQLite's SHARED bytes, waiting up to `busyTimeout` for a writer;
    /// false where such locks do not work (an old kernel, some network file systems).
    private static func lockShared(
      _ descriptor: Int32, path: String, busyTimeout: Duration
    ) throws -> Bool {
      let deadline = ContinuousClock.now + busyTimeout
      var pause = 1
      while true {
        var lock = flock()
        lock.l_type = Int16(F_RDLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(sharedFirst)
        lock.l_len = off_t(sharedSize)
        if fcntl(descriptor, setOpenFileLock, &lock) == 0 { return true }
        let number = errno
        guard number == EAGAIN || number == EACCES || number == EINTR else { return false }
        guard ContinuousClock.now < deadline else {
          throw SQLiteError(file: path, code: SQLITE_BUSY, message: SQLiteError.lockedMessage)
        }
        usleep(useconds_t(pause * 1000))
        pause = min(pause * 2, 50)
      }
    }
  #endif
}
