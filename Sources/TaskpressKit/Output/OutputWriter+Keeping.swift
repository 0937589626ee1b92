#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension OutputWriter {
  // MARK: - Keeping files without their bytes

  /// Adds each of `paths` as the file the previous build left there, without its bytes, when
  /// that file is provably still as the previous build wrote it: recorded in the manifest, a
  /// regular file (not a link) whose stamp matches (`FileStamp`) or, when it does not, whose
  /// bytes have the recorded keyed hash, and no commit of the previous build was interrupted. Returns whether each path was kept; one that was not
  /// is not added, and the caller adds its bytes as usual.
  ///
  /// A kept file counts as unchanged, as if its bytes had been added and found on disk. The
  /// caller vouches for the bytes (a page whose inputs are those that made the file; see
  /// `PageFingerprints`): the writer checks only that the file is the one it wrote.
  /// - Throws: `OutputError` naming the file: an invalid or repeated path, an interrupt.
  public func keep(_ paths: [String]) throws -> [Bool] {
    guard !repairing, !paths.isEmpty else { return paths.map { _ in false } }
    let slots = try reserve(paths)
    var kept: [Bool] = []
    var keptSlots: [Slot] = []
    var keptEntries: [Staged] = []
    var released: [Slot] = []
    kept.reserveCapacity(slots.count)
    for slot in slots {
      if let entry = keepable(slot) {
        keptSlots.append(slot)
        keptEntries.append(.unchanged(entry))
        kept.append(true)
      } else {
        released.append(slot)
        kept.append(false)
      }
    }
    record(keptSlots, keptEntries, kept: true)
    release(released)
    return kept
  }

  /// Adds every one of `paths` as `keep(_:)` does, when each can be kept; otherwise adds none
  /// of them and returns false, and the caller adds their bytes as usual.
  /// - Throws: `OutputError` naming the file: an invalid or repeated path, an interrupt.
  public func keepAll(_ paths: [String]) throws -> Bool {
    guard !repairing, !paths.isEmpty else { return paths.isEmpty }
    let slots = try reserve(paths)
    var entries: [Staged] = []
    entries.reserveCapacity(slots.count)
    for slot in slots {
      guard let entry = keepable(slot) else {
        release(slots)
        return false
      }
      entries.append(.unchanged(entry))
    }
    record(slots, entries, kept: true)
    return true
  }

  /// The manifest's entry of the slot's path when the file there is that entry's file.
  private func keepable(_ slot: Slot) -> Manifest.Entry? {
    guard let known = previous.files[slot.path],
      let existing = try? existingTarget(slot)
    else { return nil }
    defer { existing.folder.release() }
    if stampMatches(existing.info, known) { return known }
    // Not as stamped (restored, touched, or stamped within a tick): read once and compared by
    // its keyed hash; the same bytes are kept and stamped again, never written again.
    return slot.leaf.withCString { restamped(existing.folder.fd, $0, known) }
  }

  // MARK: - The state a later build reads

  static func readStateFile(_ folderFD: Int32, _ name: String) -> [UInt8]? {
    let fd = openat(folderFD, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.isRegularFile, info.st_size < 1 << 30 else { return nil }
    return try? FileSystem.readAll(fd, expected: Int(info.st_size))
  }
}
