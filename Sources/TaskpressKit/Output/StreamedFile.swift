#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file given to the writer in pieces (`OutputWriter.openFile(_:)`): the caller writes its
/// bytes into it, then hands it back with `OutputWriter.add(_:)`. Nothing of the caller's runs
/// inside the writer: the writer takes the pieces as data, one call at a time.
///
/// While the pieces equal the file already on disk, nothing is written; at the first
/// difference the file is staged (the equal prefix copied from the old file). Memory stays
/// bounded by two 64 KiB buffers, whatever the size of the file.
///
/// A file let go of without being handed back (the code writing it threw, or a write failed)
/// is given up: its partly written staging file is removed and its path given back, as if it
/// had never been opened. It is used by one thread at a time.
public final class StreamedFile {
  /// Keeps the writer (and its staging) alive until the file is handed back or given up.
  private let writer: OutputWriter
  let slot: OutputWriter.Slot
  private var path: String { slot.path }
  private var hasher: SipHasher
  private var size = 0
  /// Whether the file still takes pieces: not yet handed back.
  private(set) var isOpen = true

  /// The file already at the path, read alongside to find out whether anything changed.
  private var existingFD: Int32 = -1
  private var existingModified: Int64 = 0
  private let ownedByTaskpress: Bool

  private var stagingFD: Int32 = -1
  private var stagingName: OutputWriter.StagingName?
  private let buffer: UnsafeMutableRawBufferPointer
  private var buffered = 0

  init(writer: OutputWriter, slot: OutputWriter.Slot) throws {
    self.writer = writer
    self.slot = slot
    hasher = SipHasher(key: writer.hashKey)
    ownedByTaskpress = writer.previous.files[slot.path] != nil
    // Should anything below throw, deinit still runs: it frees `buffer` and gives the file up.
    buffer = .allocate(byteCount: OutputWriter.chunkSize, alignment: 16)
    if let existing = try writer.existingTarget(slot) {
      defer { existing.folder.release() }
      existingFD = openat(existing.folder.fd, slot.leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
      guard existingFD >= 0 else {
        throw OutputError(path: writer.display(path), reason: SystemError.current.reason)
      }
      existingModified = existing.info.modificationNanoseconds
    } else {
      try startStaging()
    }
  }

  deinit {
    buffer.deallocate()
    if isOpen {
      // Given up: the staging file removed, the path given back.
      discard()
      writer.release(CollectionOfOne(slot))
    }
  }

  /// Appends the bytes of `chunk` to the file.
  /// - Throws: `OutputError` naming the file: a full disk, a file in the way that taskpress did
  ///   not write, a file written after it was handed back.
  public func write(_ chunk: UnsafeRawBufferPointer) throws {
    guard isOpen else {
      throw OutputError(path: writer.display(path), reason: "written after it was added")
    }
    hasher.update(chunk)
    if existingFD >= 0 {
      if try existingContinues(with: chunk) {
        size += chunk.count
        return
      }
      try diverge()
    }
    size += chunk.count
    try append(chunk)
  }

  /// Appends `bytes` to the file.
  public func write(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { try write($0) }
  }

  // MARK: - Internals used by OutputWriter

  /// Completes the file: it is either unchanged or fully staged. Once only, by the writer
  /// (`OutputWriter.add(_:)`), which records or gives up the file after it.
  func finish() throws -> OutputWriter.Staged {
    isOpen = false
    let hash = hasher.finalize()
    if existingFD >= 0 {
      var probe: UInt8 = 0
      let extra = try guarded { () throws(SystemError) in
        try withUnsafeMutableBytes(of: &probe) { (p) throws(SystemError) in
          try FileSystem.readFully(existingFD, p)
        }
      }
      if extra == 0 {
        close(existingFD)
        existingFD = -1
        return .unchanged(Manifest.Entry(hash: hash, size: size, modified: existingModified))
      }
      try diverge()  // the old file is longer
    }
    try flush()
    guard let name = stagingName else {
      throw OutputError(path: writer.display(path), reason: "internal error: nothing staged")
    }
    let entry = try guarded { () throws(SystemError) in
      try writer.finishStagingFile(stagingFD, hash: hash)
    }
    stagingFD = -1
    stagingName = nil
    return .written(entry, stagingName: name)
  }

  /// Closes everything and removes a partly written staging file.
  func discard() {
    if existingFD >= 0 { close(existingFD) }
    existingFD = -1
    if stagingFD >= 0 { close(stagingFD) }
    stagingFD = -1
    if let name = stagingName { writer.removeStagingFile(name, slot) }
    stagingName = nil
  }

  // MARK: - Private

  private func guarded<R>(_ body: () throws(SystemError) -> R) throws(OutputError) -> R {
    do {
      return try body()
    } catch {
      throw OutputError(path: writer.display(path), reason: error.reason)
    }
  }

  /// Whether the old file's next bytes equal `chunk` (compared through `buffer`, which is
  /// empty while comparing).
  private func existingContinues(with chunk: UnsafeRawBufferPointer) throws -> Bool {
    var offset = 0
    while offset < chunk.count {
      let want = min(buffer.count, chunk.count - offset)
      let got = try guarded { () throws(SystemError) in
        try FileSystem.readFully(
          existingFD, UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
      }
      guard let base = chunk.baseAddress, let scratch = buffer.baseAddress, got == want,
        memcmp(scratch, base + offset, want) == 0
      else { return false }
      offset += want
    }
    return true
  }

  /// The bytes differ from the old file: stage the new file, starting with the `size` bytes
  /// the old one already had in common.
  private func diverge() throws {
    let oldFD = existingFD
    existingFD = -1
    defer { close(oldFD) }
    guard ownedByTaskpress else {
      throw OutputError(path: writer.display(path), reason: OutputError.notWrittenByUs)
    }
    try startStaging()
    var offset = 0
    while offset < size {
      let want = min(buffer.count, size - offset)
      let got = pread(oldFD, buffer.baseAddress, want, off_t(offset))
      guard got > 0 else {
        throw OutputError(
          path: writer.display(path), reason: "changed while being read; build again")
      }
      buffered = got
      try flush()
      offset += got
    }
  }

  private func startStaging() throws {
    let (fd, name) = try writer.createStagingFile(slot)
    stagingFD = fd
    stagingName = name
  }

  private func append(_ chunk: UnsafeRawBufferPointer) throws {
    if buffered + chunk.count > buffer.count { try flush() }
    if chunk.count >= buffer.count {
      try guarded { () throws(SystemError) in try FileSystem.writeAll(stagingFD, chunk) }
      return
    }
    if let base = chunk.baseAddress, let target = buffer.baseAddress {
      (target + buffered).copyMemory(from: base, byteCount: chunk.count)
    }
    buffered += chunk.count
  }

  private func flush() throws {
    guard buffered > 0 else { return }
    let pending = UnsafeRawBufferPointer(rebasing: buffer[0..<buffered])
    buffered = 0
    try guarded { () throws(SystemError) in try FileSystem.writeAll(stagingFD, pending) }
  }
}
