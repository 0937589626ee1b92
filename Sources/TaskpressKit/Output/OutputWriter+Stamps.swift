#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension OutputWriter {
  // MARK: - Files as left: the stamp, else the keyed hash

  /// Whether the file `info` describes is, by its stamp, the previous build's file of `entry`
  /// (`FileStamp.matches`: size and modification time as recorded, and its times before the
  /// moment the stamps were recorded, `stampedAt`).
  func stampMatches(_ info: stat, _ entry: Manifest.Entry) -> Bool {
    info.isRegularFile
      && FileStamp(size: entry.size, modified: entry.modified)
        .matches(FileStamp(info), recordedAt: stampedAt)
  }

  /// The file `path` (in the folder `folderFD`) read once and compared by its keyed hash with
  /// `entry`, whose stamp it does not match (restored by `cp -r`, touched, or stamped within a
  /// tick): `entry` with the file's stamp when its bytes are the entry's, else nil (a hand
  /// edit, or a file being replaced).
  func restamped(
    _ folderFD: Int32, _ path: UnsafePointer<CChar>, _ entry: Manifest.Entry
  ) -> Manifest.Entry? {
    guard !repairing, entry.size < 1 << 30 else { return nil }
    rehashedFiles.add(1, ordering: .relaxed)
    let fd = openat(folderFD, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.isRegularFile, Int(info.st_size) == entry.size,
      let bytes = try? FileSystem.readAll(fd, expected: entry.size), bytes.count == entry.size,
      hashKey.hash(bytes) == entry.hash
    else { return nil }
    return Manifest.Entry(
      hash: entry.hash, size: entry.size, modified: info.modificationNanoseconds)
  }

  /// The previous manifest's file `index` read and compared as `restamped` does; when its bytes
  /// are the entry's, the new entry is noted for the commit, which records it in place of the
  /// old one (for a file carried over) and returns true.
  func restampPrevious(_ rootFD: Int32, _ index: Int) -> Bool {
    let files = previous.files
    guard
      let entry = files.withCPath(index, { restamped(rootFD, $0, files.entry(index)) })
    else { return false }
    state.withLock { $0.restamped[Int32(truncatingIfNeeded: index)] = entry }
    return true
  }

  /// Records the time now, once the commit has put its last file in place, as the time of the
  /// stamps of the manifest the commit left (`stampedAt` of the next build), tied to that
  /// manifest: every file of the manifest was written, kept or looked at before it, so a file
  /// whose times are a tick or more before it (`FileStamp.isRacy`) is as the manifest records
  /// it, and only those written within the last tick are read again by the next build.
  func recordStampTime(_ stateFD: Int32, manifest: ContentHash?) {
    guard let manifest else {
      unlinkat(stateFD, Self.stampedFileName, 0)
      return
    }
    let time = FileStamp.now()
    if !replaceStateFile(
      stateFD, Self.stampedFileName, Array((manifest.hex + "\n" + String(time)).utf8))
    {
      unlinkat(stateFD, Self.stampedFileName, 0)
    }
  }

  /// How many files this build read and compared by their keyed hash because their stamp could
  /// not be trusted (restored, touched, or written within a tick of the last build's stamps).
  public var filesRehashed: Int { rehashedFiles.load(ordering: .relaxed) }

  /// `stampedAt` as the state folder `stateFD` records it for the manifest of `manifestHash`;
  /// nil when it is missing, damaged or of another manifest.
  static func recordedStampTime(_ stateFD: Int32, tiedTo manifestHash: ContentHash?) -> Int64? {
    guard let manifestHash, stateFD >= 0,
      let bytes = readStateFile(stateFD, stampedFileName)
    else { return nil }
    let header = Array((manifestHash.hex + "\n").utf8)
    guard bytes.starts(with: header) else { return nil }
    return Int64(String(decoding: bytes[header.count...], as: UTF8.self))
  }
}
