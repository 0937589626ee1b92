#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension OutputWriter {
  // MARK: - Folders

  /// A descriptor of an output folder: cached by the writer (valid until it finishes), or
  /// `owned` by the caller, who closes it with `release()`.
  struct FolderRef {
    var fd: Int32
    var owned: Bool

    func release() {
      if owned { close(fd) }
    }
  }

  /// The folder `relative`, or nil when it does not exist. Opening never follows a link: a link
  /// on the way is an error naming it.
  func folder(_ relative: String) throws(OutputError) -> FolderRef? {
    switch state.withLock({ $0.folders[relative] }) {
    case .missing: return nil
    case .open(let fd): return FolderRef(fd: fd, owned: false)
    case nil: break
    }
    let (parentPath, name) = OutputPath.split(relative)
    guard let parent = try folder(parentPath) else {
      state.withLock { s in if s.folders[relative] == nil { s.folders[relative] = .missing } }
      return nil
    }
    defer { parent.release() }
    var opened: Int32?
    do throws(SystemError) {
      opened = try FileSystem.openDirectory(parent.fd, name)
    } catch {
      if error.code == ELOOP {
        throw OutputError(path: display(relative), reason: OutputError.symbolicLink)
      }
      if error.code == ENOTDIR {
        // A file taskpress wrote in an earlier build may stand where a folder is now needed;
        // the commit removes it. Anything else is in the way.
        guard previous.files[relative] != nil else {
          throw OutputError(
            path: display(relative),
            reason: "is a file where taskpress needs a folder; move it away or delete it")
        }
        return nil
      }
      throw OutputError(path: display(relative), reason: error.reason)
    }
    guard let fd = opened else {
      state.withLock { s in if s.folders[relative] == nil { s.folders[relative] = .missing } }
      return nil
    }
    return state.withLock { s in
      if case .open(let known) = s.folders[relative] {
        close(fd)
        return FolderRef(fd: known, owned: false)
      }
      guard s.cachedDescriptors < Self.maximumCachedFolders else {
        return FolderRef(fd: fd, owned: true)
      }
      s.cachedDescriptors += 1
      s.folders[relative] = .open(fd)
      return FolderRef(fd: fd, owned: false)
    }
  }

  // MARK: - Abort

  /// Abandons the build: removes the staging area and leaves the output folder exactly as it
  /// was. Does nothing after `commit()`; safe to call more than once.
  public func abort() {
    state.withLock { s in
      guard s.phase == .staging else { return }
      s.phase = .finished
      if s.stateFolderFD >= 0 {
        FileSystem.removeTree(s.stateFolderFD, Self.stagingFolder)
        if s.createdStateFolder {
          rmdir(statePath)
          let parentFD = open(stateParent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
          if parentFD >= 0 {
            Self.setModificationTime(parentFD, s.modifiedBeforeStaging)
            close(parentFD)
          }
        } else {
          Self.setModificationTime(s.stateFolderFD, s.modifiedBeforeStaging)
        }
      }
      // Another thread may still be inside `add` using a cached descriptor: the last one out
      // closes them.
      Self.closeIfIdle(&s)
      for folder in s.createdRootFolders.reversed() { rmdir(folder) }
      if let (parent, time) = s.parentModifiedBeforeStaging,
        access(s.createdRootFolders.first ?? parent, F_OK) != 0
      {
        let parentFD = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if parentFD >= 0 {
          Self.setModificationTime(parentFD, time)
          close(parentFD)
        }
      }
    }
  }

  /// `UTIME_OMIT` (a macro the C module does not bring across): a time `futimens` leaves alone.
  private static let omitTime = (1 << 30) - 2

  /// The modification time of the folder open as `fd`, if it can be read.
  static func modificationTime(_ fd: Int32) -> timespec? {
    var info = stat()
    return fstat(fd, &info) == 0 ? info.modificationTime : nil
  }

  /// Puts back a folder's modification time (its access time stays as it is): an abandoned
  /// build leaves no trace, not even in the time of the folder it staged in.
  static func setModificationTime(_ fd: Int32, _ time: timespec?) {
    guard let time else { return }
    let times = [timespec(tv_sec: 0, tv_nsec: omitTime), time]
    _ = times.withUnsafeBufferPointer { futimens(fd, $0.baseAddress) }
  }

  static func closeIfIdle(_ s: inout State) {
    if s.activeAdds == 0 && !s.closed { closeAll(&s) }
  }

  static func closeAll(_ s: inout State) {
    s.closed = true
    for case .open(let fd) in s.folders.values { close(fd) }
    s.folders.removeAll()
    s.cachedDescriptors = 0
    if s.stagingFD >= 0 { close(s.stagingFD) }
    if s.stateFolderFD >= 0 { close(s.stateFolderFD) }
    s.stagingFD = -1
    s.stateFolderFD = -1
  }
}
