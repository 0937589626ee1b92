#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: - Staging

extension OutputWriter {
  /// Decides whether `bytes` differ from what is at the slot's path and, when they do, stages
  /// them.
  func stage(_ slot: Slot, _ bytes: UnsafeRawBufferPointer, hash: KeyedHash) throws
    -> Staged
  {
    let path = slot.path
    if let existing = try existingTarget(slot) {
      defer { existing.folder.release() }
      let info = existing.info
      let size = Int(info.st_size)
      let known = previous.files[path]
      if let known, !repairing, known.hash == hash, known.size == bytes.count, size == bytes.count,
        stampMatches(info, known)
      {
        return .unchanged(known)
      }
      if size == bytes.count {
        let same = try withTarget(path, existing.folder.fd, slot.leaf) {
          fd throws(SystemError) in
          try FileSystem.contentEquals(fd, bytes)
        }
        if same {
          return .unchanged(
            Manifest.Entry(hash: hash, size: size, modified: info.modificationNanoseconds))
        }
      }
      if known == nil {
        // Noted, not thrown: the commit names every such file of the build in one error.
        state.withLock { $0.clashes.append(path) }
        return .unchanged(
          Manifest.Entry(hash: hash, size: size, modified: info.modificationNanoseconds))
      }
    }
    let (fd, name) = try createStagingFile(slot)
    do throws(SystemError) {
      try FileSystem.writeAll(fd, bytes)
      let entry = try finishStagingFile(fd, hash: hash)
      return .written(entry, stagingName: name)
    } catch {
      close(fd)
      removeStagingFile(name, slot)
      throw OutputError(path: display(path), reason: error.reason)
    }
  }

  struct ExistingTarget {
    /// The folder (the caller releases it).
    var folder: FolderRef
    var info: stat
  }

  /// What is at the slot's path now: nil when nothing (or its folder does not exist yet); an
  /// error when it is something taskpress cannot replace by a file.
  func existingTarget(_ slot: Slot) throws(OutputError) -> ExistingTarget? {
    guard case .existing(let cachedFD) = slot.placement else { return nil }
    let folderRef: FolderRef
    if cachedFD >= 0 {
      folderRef = FolderRef(fd: cachedFD, owned: false)
    } else {
      guard let opened = try self.folder(slot.folder) else { return nil }
      folderRef = opened
    }
    let info: stat?
    do throws(SystemError) {
      info = try FileSystem.statIfExists(folderRef.fd, slot.leaf)
    } catch {
      folderRef.release()
      throw OutputError(path: display(slot.path), reason: error.reason)
    }
    guard let info else {
      folderRef.release()
      return nil
    }
    var problem: String?
    if info.isSymbolicLink {
      problem = OutputError.symbolicLink
    } else if info.isDirectory {
      problem = "is a folder where taskpress needs to write a file; move it away or delete it"
    } else if !info.isRegularFile {
      problem = "is not a regular file; move it away or delete it"
    }
    if let problem {
      folderRef.release()
      throw OutputError(path: display(slot.path), reason: problem)
    }
    return ExistingTarget(folder: folderRef, info: info)
  }

  /// Opens the existing file `name` for reading and runs `body` with its descriptor.
  func withTarget<R>(
    _ path: String, _ folderFD: Int32, _ name: String, _ body: (Int32) throws(SystemError) -> R
  ) throws(OutputError) -> R {
    let fd = openat(folderFD, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      throw OutputError(path: display(path), reason: SystemError.current.reason)
    }
    defer { close(fd) }
    do throws(SystemError) {
      return try body(fd)
    } catch {
      throw OutputError(path: display(path), reason: error.reason)
    }
  }

  /// Creates a new, empty staging file for the slot's path; returns its descriptor and its
  /// name, a path relative to the staging folder.
  ///
  /// A file whose folder already exists is staged flat (`f17`) and renamed into place by the
  /// commit. A file under a folder that does not exist yet (all of them on a first build) goes
  /// into a copy of that folder in the staging area (`d1/3.html` for `todos/3.html`), and the
  /// commit moves the whole folder with one rename.
  func createStagingFile(_ slot: Slot) throws(OutputError) -> (Int32, StagingName) {
    let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
    var stagingFD = slot.stagingFD
    let fd: Int32
    let stagingName: StagingName
    switch slot.placement {
    case .shadow(_, let prefix):
      // The plan made the staging folders.
      fd = FileSystem.open(stagingFD, folder: prefix, name: slot.leaf, flags, 0o666)
      stagingName = .inFolderCopy
    case .existing where folderSwap != .never:
      // In the layout of the site, inside `next`: the folder the commit may exchange with the
      // output folder (`FolderSwap`), or whence it renames each file into place.
      let prefix = Self.layoutPrefix(slot.folder)
      stagingFD = try state.withLock { (s) throws(OutputError) -> Int32 in
        guard s.phase == .staging else {
          throw OutputError(
            path: display(slot.path), reason: "added after the output was committed or aborted")
        }
        if s.stagingFD < 0 { try createStagingFolder(&s) }
        try makeStagingFolders(prefix, &s)
        return s.stagingFD
      }
      fd = FileSystem.open(stagingFD, folder: prefix, name: slot.leaf, flags, 0o666)
      stagingName = .inFolderCopy
    case .existing:
      let number = flatStagingNames.add(1, ordering: .relaxed).newValue
      let name = Self.flatStagingName(number)
      if stagingFD < 0 {
        stagingFD = try state.withLock { (s) throws(OutputError) -> Int32 in
          guard s.phase == .staging else {
            throw OutputError(
              path: display(slot.path), reason: "added after the output was committed or aborted")
          }
          if s.stagingFD < 0 { try createStagingFolder(&s) }
          return s.stagingFD
        }
      }
      fd = openat(stagingFD, name, flags, 0o666)
      stagingName = .flat(number)
    }
    guard fd >= 0 else {
      throw OutputError(path: display(slot.path), reason: SystemError.current.reason)
    }
    return (fd, stagingName)
  }

  /// The path of a staged file inside the staging folder.
  static func stagingPath(
    _ name: StagingName, placement: Placement, folder: String, leaf: String
  ) -> String {
    switch (name, placement) {
    case (.flat(let number), _): flatStagingName(number)
    case (.inFolderCopy, .shadow(_, let prefix)): prefix + "/" + leaf
    case (.inFolderCopy, .existing): layoutPrefix(folder) + "/" + leaf
    }
  }

  /// The folder of the staging area where a file of the existing folder `folder` is staged in
  /// the layout of the site: `next/todos` for `todos`.
  static func layoutPrefix(_ folder: String) -> String {
    folder.isEmpty ? FolderSwap.nextFolder : FolderSwap.nextFolder + "/" + folder
  }

  /// The name of the flat staging file `number`: `f` and the number in base 36.
  static func flatStagingName(_ number: Int) -> String {
    "f" + String(number, radix: 36)
  }

  /// Creates `relative` and its parents inside the staging folder, once.
  func makeStagingFolders(_ relative: String, _ s: inout State) throws(OutputError) {
    guard !s.stagingFolders.contains(relative) else { return }
    let parent = OutputPath.split(relative).folder
    if !parent.isEmpty { try makeStagingFolders(parent, &s) }
    guard mkdirat(s.stagingFD, relative, 0o777) == 0 || errno == EEXIST else {
      throw OutputError(
        path: statePath + "/" + Self.stagingFolder + "/" + relative,
        reason: SystemError.current.reason)
    }
    s.stagingFolders.insert(relative)
  }

  /// Records the size and modification time of a fully written staging file and closes it.
  func finishStagingFile(_ fd: Int32, hash: KeyedHash) throws(SystemError) -> Manifest.Entry {
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw SystemError.current }
    close(fd)
    return Manifest.Entry(
      hash: hash, size: Int(info.st_size), modified: info.modificationNanoseconds)
  }

  func removeStagingFile(_ name: StagingName, _ slot: Slot) {
    let path = Self.stagingPath(
      name, placement: slot.placement, folder: slot.folder, leaf: slot.leaf)
    state.withLock { s in _ = s.stagingFD >= 0 ? unlinkat(s.stagingFD, path, 0) : 0 }
  }

  /// Creates (as needed) the output folder, the state folder and its `staging`.
  func createStagingFolder(_ s: inout State) throws(OutputError) {
    if s.stateFolderFD < 0 { try createStateFolder(&s) }
    let stagingPath = statePath + "/" + Self.stagingFolder
    if !s.createdStateFolder { s.modifiedBeforeStaging = Self.modificationTime(s.stateFolderFD) }
    guard mkdirat(s.stateFolderFD, Self.stagingFolder, 0o777) == 0 || errno == EEXIST else {
      throw OutputError(path: stagingPath, reason: SystemError.current.reason)
    }
    do throws(SystemError) {
      guard let fd = try FileSystem.openDirectory(s.stateFolderFD, Self.stagingFolder) else {
        throw SystemError(code: ENOENT)
      }
      s.stagingFD = fd
    } catch {
      throw OutputError(path: stagingPath, reason: error.reason)
    }
  }

  /// The descriptor of the output folder, creating it (and its parents) when missing.
  func ensureRoot(_ s: inout State) throws(OutputError) -> Int32 {
    if case .open(let fd) = s.folders[""] { return fd }
    var prefix = displayRoot.hasPrefix("/") ? "/" : ""
    for part in displayRoot.split(separator: "/") {
      let parent = prefix.isEmpty ? "." : prefix
      prefix += (prefix.isEmpty || prefix == "/" ? "" : "/") + part
      // Read before the first folder is made in it: an abandoned build puts it back.
      var info = stat()
      let parentModified =
        s.createdRootFolders.isEmpty && stat(parent, &info) == 0 ? info.modificationTime : nil
      if mkdir(prefix, 0o777) == 0 {
        if s.createdRootFolders.isEmpty { s.parentModifiedBeforeStaging = (parent, parentModified) }
        s.createdRootFolders.append(prefix)
      } else if errno != EEXIST {
        throw OutputError(path: prefix, reason: SystemError.current.reason)
      }
    }
    let fd = open(displayRoot, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw OutputError(path: displayRoot, reason: SystemError.current.reason) }
    s.folders[""] = .open(fd)
    try Self.lock(fd, displayRoot)
    return fd
  }
}
