import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// File times set by the tests themselves, so that no test depends on the clock ticking
/// between two writes.
///
/// A file's times come from a coarse clock (4 ms on Linux here): two writes within one tick
/// leave the same modification time. taskpress does not trust a file modified within a tick of
/// the moment it looks at it (git's "racy clean" rule), so a build right after a database was
/// written cannot be matched by the next one. A test that expects a rebuild to stop early sets
/// the database's time back first (`settle`); a test that needs "later" sets it explicitly.
public enum FileTimes {
  /// The modification time, status change time and size of the file at `path`.
  public struct Stamp: Equatable, Sendable, CustomStringConvertible {
    public var modified: Nanoseconds
    public var changed: Nanoseconds
    public var size: Int64

    public var description: String { "size \(size), mtime \(modified), ctime \(changed)" }
  }

  /// Nanoseconds since 1970.
  public typealias Nanoseconds = Int64

  /// The file's stamp; throws when it cannot be read.
  public static func stamp(_ path: String) throws -> Stamp {
    var info = stat()
    guard stat(path, &info) == 0 else { throw POSIXError(errnoCode) }
    #if canImport(Darwin)
      let (modified, changed) = (info.st_mtimespec, info.st_ctimespec)
    #else
      let (modified, changed) = (info.st_mtim, info.st_ctim)
    #endif
    return Stamp(
      modified: nanoseconds(modified), changed: nanoseconds(changed), size: Int64(info.st_size))
  }

  /// The time now, from the clock that stamps files' changes finely (not the coarse one).
  public static func now() -> Nanoseconds {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return nanoseconds(time)
  }

  /// Sets the access and modification times of the file at `path` to `time` (with utimensat).
  /// Its status change time becomes now: no program can set that.
  public static func setModified(_ path: String, to time: Nanoseconds) throws {
    let spec = timespec(tv_sec: Int(time / 1_000_000_000), tv_nsec: Int(time % 1_000_000_000))
    var times = [spec, spec]
    guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw POSIXError(errnoCode) }
  }

  /// Makes the database at `path`, and its `-wal` when it has one, look written `seconds` ago,
  /// each at a different nanosecond: a build that looks at it now trusts what it sees, and the
  /// next write to it changes its time whatever the clock's tick.
  public static func settle(_ path: String, secondsAgo seconds: Int64 = 60) throws {
    let time = now() - seconds * 1_000_000_000
    try setModified(path, to: time)
    if FileManager.default.fileExists(atPath: path + "-wal") {
      try setModified(path + "-wal", to: time + 1)
    }
  }

  private static func nanoseconds(_ time: timespec) -> Nanoseconds {
    Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }

  private static var errnoCode: POSIXErrorCode { POSIXErrorCode(rawValue: errno) ?? .EIO }
}
