#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a rebuild records of a file it trusts to be as it left it: its device, inode, size,
/// modification time and status change time, and the one rule by which a file seen later is
/// that file (`matches(_:recordedAt:)`).
///
/// The rule is git's, racy-clean included: the fields are equal, and neither of the file's times
/// is within a tick of the coarse clock that stamps files (`racyMargin`) of the moment the stamp
/// was recorded, or later. A file changed again within the tick of its last change keeps its
/// times; a stamp recorded in that tick cannot tell, so it is unsure, and the next build reads
/// the file and compares its keyed hash instead.
///
/// A record that keeps fewer fields (the manifest keeps the size and modification time of each
/// file, and one recording time for all of them, `OutputWriter.stampedAt`) leaves the others
/// `nil`: then the rule asks that the status change time, which no program can set back, be
/// before the recording time. A hand edit, a restore (`cp -r`, `rsync -a`) or a rename after the
/// recording moves it on, however the modification time is set back.
struct FileStamp: Equatable, Sendable {
  var device: UInt64?
  var inode: UInt64?
  var size: Int64
  /// Nanoseconds since 1970.
  var modified: Int64
  /// Nanoseconds since 1970; nil when the record does not keep it.
  var changed: Int64?

  init(device: UInt64?, inode: UInt64?, size: Int64, modified: Int64, changed: Int64?) {
    self.device = device
    self.inode = inode
    self.size = size
    self.modified = modified
    self.changed = changed
  }

  /// The whole stamp of the file `info` describes.
  init(_ info: stat) {
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    modified = Self.nanoseconds(info.modificationTime)
    changed = Self.nanoseconds(info.statusChangeTime)
  }

  /// The stamp a manifest entry keeps: its size and modification time.
  init(size: Int, modified: Int64) {
    self.init(device: nil, inode: nil, size: Int64(size), modified: modified, changed: nil)
  }

  /// More than one tick of the clock that stamps files' changes (4 ms on Linux at 250 Hz,
  /// 10 ms at 100 Hz).
  static let racyMargin: Int64 = 20_000_000

  /// Whether a file whose stamp is now `current` is the file this stamp, recorded at
  /// `recordedAt` (nanoseconds since 1970, taken before the file was last looked at), was
  /// taken of: every recorded field equal, and neither of its times racy (`isRacy`). With
  /// `recordedAt` nil (none recorded, or a record of another manifest) no file is trusted.
  func matches(_ current: FileStamp, recordedAt: Int64?) -> Bool {
    guard let recordedAt, let currentChanged = current.changed,
      size == current.size, modified == current.modified
    else { return false }
    if let device, device != current.device { return false }
    if let inode, inode != current.inode { return false }
    if let changed, changed != currentChanged { return false }
    return !Self.isRacy(current.modified, recordedAt: recordedAt)
      && !Self.isRacy(currentChanged, recordedAt: recordedAt)
  }

  /// Whether a file time `time` is too near the moment `recordedAt` for a stamp recorded then
  /// to tell a later change within the same tick: within `racyMargin` before it, or after it.
  /// On a file system that keeps whole seconds (no nanoseconds), the same second or the one
  /// before it.
  static func isRacy(_ time: Int64, recordedAt: Int64) -> Bool {
    if time >= recordedAt - racyMargin { return true }
    let second: Int64 = 1_000_000_000
    return time % second == 0 && time >= (recordedAt / second - 1) * second
  }

  /// The time now, in nanoseconds since 1970, from the fine clock: never before the time the
  /// coarse clock stamps on a file changed at this moment.
  static func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return nanoseconds(time)
  }

  static func nanoseconds(_ time: timespec) -> Int64 {
    Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
  }
}
