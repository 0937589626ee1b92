#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: - Publishing a new folder (`FolderSwap`)

extension OutputWriter {
  /// Whether this commit, which writes `written` files and removes `stale` files of the last
  /// build, publishes the site as a new folder exchanged with the output folder: when
  /// `folderSwap` allows it and the folder is one that can be exchanged whole. Not when the
  /// folder is repaired, is a link, a mount point or on another file system than its state
  /// folder, holds anything the last build did not write, or the file system cannot exchange
  /// folders: then the commit replaces file by file.
  func swapsFolder(written: Int, stale: Int, stagingFD: Int32, stateFD: Int32) -> Bool {
    switch folderSwap {
    case .never: return false
    case .auto:
      guard
        FolderSwap.shouldSwap(previous: previous.files.count, rewritten: written, removed: stale)
      else { return false }
    case .always: break
    }
    guard !repairing, !previous.files.isEmpty, stagingFD >= 0, stateFD >= 0 else { return false }
    let leaf = OutputPath.split(displayRoot).name
    guard !leaf.isEmpty, leaf != ".", leaf != ".." else { return false }
    guard case .open(let rootFD) = state.withLock({ $0.folders[""] }) else { return false }
    var named = stat()
    var opened = stat()
    var parent = stat()
    var stateInfo = stat()
    guard lstat(displayRoot, &named) == 0, named.isDirectory, fstat(rootFD, &opened) == 0,
      named.st_dev == opened.st_dev, named.st_ino == opened.st_ino,
      stat(stateParent.isEmpty ? "." : stateParent, &parent) == 0, parent.st_dev == opened.st_dev,
      fstat(stateFD, &stateInfo) == 0, stateInfo.st_dev == opened.st_dev
    else { return false }
    return FolderSwap.exchangeWorks(in: stagingFD)
      && FolderSwap.holdsOnlySiteFiles(rootFD, previous: previous)
  }

  /// Puts this build's files in a new folder, `next` in the staging folder (the folders first,
  /// the staged folders moved in, each staged file renamed there, each file kept or carried
  /// over hard-linked from the output folder), exchanges it with the output folder, and moves
  /// the old one into the state folder's `trash/`. Until the exchange the output folder is as
  /// the last build left it.
  func exchangeFolders(
    _ taken: Taken, files: [Int32], written: [Int32], carried: [Int32], needed: Set<String>,
    stagingFD: Int32, stateFD: Int32, steps: inout Int
  ) throws(OutputError) {
    let records = taken.records
    let plans = taken.plans
    let nextPath = statePath + "/" + Self.stagingFolder + "/" + FolderSwap.nextFolder
    // No more than two copies of the site on the disk: old sites still in the trash are freed
    // before a new one is made.
    FolderSwap.freeTrash(inStateFolder: stateFD)
    // Made by the staging of the files of the folders that exist, in their layout.
    guard mkdirat(stagingFD, FolderSwap.nextFolder, 0o777) == 0 || errno == EEXIST else {
      throw OutputError(path: nextPath, reason: SystemError.current.reason)
    }
    let nextFD: Int32
    do throws(SystemError) {
      guard let fd = try FileSystem.openDirectory(stagingFD, FolderSwap.nextFolder) else {
        throw SystemError(code: ENOENT)
      }
      nextFD = fd
    } catch {
      throw OutputError(path: nextPath, reason: error.reason)
    }
    // The new folder is this build's as soon as it is in place: locked before, like the old.
    // It takes the old folder's permissions.
    var rootInfo = stat()
    if case .open(let rootFD) = state.withLock({ $0.folders[""] }), fstat(rootFD, &rootInfo) == 0 {
      fchmod(nextFD, rootInfo.st_mode & 0o7777)
    }
    var nextFolders: [String: Int32] = ["": nextFD]
    var exchanged = false
    defer {
      for (folder, fd) in nextFolders where !(folder.isEmpty && exchanged) { close(fd) }
    }
    flock(nextFD, LOCK_EX | LOCK_NB)

    func step() throws(OutputError) {
      if let limit = commitStepLimit, steps >= limit {
        throw OutputError(path: displayRoot, reason: "commit stopped after \(limit) steps")
      }
      steps += 1
    }
    func nextFolder(_ folder: String) throws(OutputError) -> Int32 {
      if let fd = nextFolders[folder] { return fd }
      let (parentPath, name) = OutputPath.split(folder)
      let parent = try nextFolder(parentPath)
      do throws(SystemError) {
        guard let fd = try FileSystem.openDirectory(parent, name) else {
          throw SystemError(code: ENOENT)
        }
        nextFolders[folder] = fd
        return fd
      } catch {
        throw OutputError(path: nextPath + "/" + folder, reason: error.reason)
      }
    }

    // The folders, parents first; those inside a staged folder come with it.
    let shadowRoots = taken.shadowRoots.map(\.root)
    for folder in OutputPath.sorted(Array(needed))
    where !shadowRoots.contains(where: { OutputPath.isWithin(folder, $0) }) {
      let (parentPath, name) = OutputPath.split(folder)
      guard mkdirat(try nextFolder(parentPath), name, 0o777) == 0 || errno == EEXIST else {
        throw OutputError(path: nextPath + "/" + folder, reason: SystemError.current.reason)
      }
    }
    for (root, name) in taken.shadowRoots {
      try step()
      let (parentPath, leaf) = OutputPath.split(root)
      guard renameat(stagingFD, name, try nextFolder(parentPath), leaf) == 0 else {
        throw OutputError(path: display(root), reason: SystemError.current.reason)
      }
    }
    // The files written: in place already when staged in the layout of the site (`next/`),
    // else (staged flat) renamed there.
    for number in written {
      let record = records[Int(number)]
      let placement = plans[record.plan].placement
      if case .shadow = placement { continue }
      guard case .written(_, .flat(let flat)) = record.staged else { continue }
      try step()
      let (folder, leaf) = OutputPath.split(record.path)
      guard
        renameat(stagingFD, Self.flatStagingName(flat), try nextFolder(folder), leaf) == 0
      else {
        throw OutputError(path: display(record.path), reason: SystemError.current.reason)
      }
    }
    // The files kept as they are, and those carried over: linked, not copied.
    func link(_ path: String) throws(OutputError) {
      try step()
      let (folder, leaf) = OutputPath.split(path)
      guard let old = try self.folder(folder) else {
        throw OutputError(path: display(folder), reason: "disappeared during the build")
      }
      defer { old.release() }
      guard linkat(old.fd, leaf, try nextFolder(folder), leaf, 0) == 0 else {
        throw OutputError(path: display(path), reason: SystemError.current.reason)
      }
    }
    for number in files where !records.isWritten(Int(number)) {
      try link(records.path(Int(number)))
    }
    for number in carried {
      try link(previous.files.path(Int(number)))
    }

    // An interrupt that arrives now is seen after the commit, as during any commit.
    beforeExchange?()
    try step()
    let failure = FolderSwap.exchange(stagingFD, FolderSwap.nextFolder, AT_FDCWD, displayRoot)
    guard failure == 0 else {
      unlinkat(stateFD, Self.markerName, 0)
      unlinkat(stateFD, Self.pendingManifestName, 0)
      throw OutputError(
        path: displayRoot,
        reason: "could not be exchanged with the new site (\(SystemError(code: failure).reason)); "
          + "nothing changed; build again with TASKPRESS_SWAP=never to replace file by file")
    }
    exchanged = true
    // The writer's folders are the new ones from now on; the old folder's lock goes with it.
    state.withLock { s in
      for case .open(let fd) in s.folders.values { close(fd) }
      s.folders = ["": .open(nextFD)]
      s.cachedDescriptors = 0
    }
    // The old site into the trash, freed after the commit.
    if mkdirat(stateFD, FolderSwap.trashFolder, 0o777) == 0 || errno == EEXIST {
      let name = FolderSwap.trashFolder + "/site-\(getpid())-\(UInt32.random(in: .min ... .max))"
      renameat(stagingFD, FolderSwap.nextFolder, stateFD, name)
    }
  }
}
