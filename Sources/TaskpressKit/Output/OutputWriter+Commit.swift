#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension OutputWriter {
  /// Publishes the staged files: after this returns, the output folder holds exactly this
  /// build's files (plus the files taskpress did not write).
  ///
  /// Call it once, after every `add` has returned. An interrupt requested before the call
  /// abandons the build (the folder is unchanged); one that arrives during the call is only
  /// seen after it, because the handlers of `SignalGuard` merely set a flag.
  /// - Returns: what changed.
  /// - Throws: `OutputError` when interrupted before starting (nothing changed), or when the
  ///   file system fails during the commit (the marker stays, so the next build repairs).
  public func commit() throws -> OutputSummary {
    let taken = try state.withLock { (s) throws(OutputError) -> Taken in
      guard s.phase == .staging else {
        throw OutputError(path: displayRoot, reason: "the output was already committed or aborted")
      }
      guard s.activeAdds == 0 else {
        throw OutputError(
          path: displayRoot, reason: "commit() was called while files were still being added")
      }
      if !s.clashes.isEmpty { throw clashError(s.clashes) }
      let taken = Taken(
        records: s.records, paths: s.paths, plans: s.plans, shadowRoots: s.shadowRoots,
        carried: s.carried)
      // Moved out, not shared: let go of when the commit returns (a million files' records
      // and path table are about 80 MB), where the state would keep them until the writer goes.
      s.records = RecordTable()
      s.paths = PathTable()
      return taken
    }
    if interrupt.isSet {
      abort()
      throw OutputError(path: displayRoot, reason: OutputError.interrupted)
    }
    state.withLock { $0.phase = .committing }
    do {
      let summary = try publish(taken)
      state.withLock { s in
        s.phase = .finished
        Self.closeAll(&s)
      }
      return summary
    } catch {
      // Leave the marker (if written) so that the next build repairs the folder. Without it,
      // nothing visible changed: remove the staged files now, as `abort()` would (on a full
      // disk they hold the space the user needs back).
      state.withLock { s in
        s.phase = .finished
        if s.stateFolderFD >= 0, FileSystem.statNoFollow(s.stateFolderFD, Self.markerName) == nil {
          FileSystem.removeTree(s.stateFolderFD, Self.stagingFolder)
          unlinkat(s.stateFolderFD, Self.pendingManifestName, 0)
        }
        Self.closeAll(&s)
      }
      throw error
    }
  }

  /// The most files a clash error names before "and N more".
  static let clashesNamed = 10

  /// The error of a build whose files would replace files taskpress did not write: one file
  /// as `add` used to report it, several named together (sorted, the first
  /// `clashesNamed`).
  func clashError(_ clashes: [String]) -> OutputError {
    let sorted = clashes.sorted()
    guard sorted.count > 1 else {
      return OutputError(path: display(sorted[0]), reason: OutputError.notWrittenByUs)
    }
    var names = sorted.prefix(Self.clashesNamed).map { "'\($0)'" }.joined(separator: ", ")
    if sorted.count > Self.clashesNamed { names += " and \(sorted.count - Self.clashesNamed) more" }
    return OutputError(
      path: displayRoot,
      reason: "\(sorted.count) files taskpress would write exist and were not written by it: "
        + "\(names); move them away or delete them")
  }

  /// What the staging phase left for the commit.
  struct Taken {
    var records: RecordTable
    var paths: PathTable
    var plans: [FolderPlan]
    var shadowRoots: [(root: String, name: String)]
    var carried: PathKeys?
  }

  private func publish(_ taken: Taken) throws -> OutputSummary {
    let records = taken.records
    let plans = taken.plans
    // This build's files in byte order (the order of the manifest and of the summary), as
    // their numbers in `records`: 4 bytes a file, their paths and entries read in place.
    var files: [Int32] = []
    var written: [Int32] = []
    var unchanged = 0
    var keptCount = 0
    var usedPlans = [Bool](repeating: false, count: plans.count)
    do {
      var present: [Int32] = []
      present.reserveCapacity(records.count)
      for index in records.indices where !records.isPending(index) {
        present.append(Int32(truncatingIfNeeded: index))
      }
      let order = OutputPath.byteOrder32(present.count) { position, body in
        records.withPath(Int(present[position]), body)
      }
      files.reserveCapacity(order.count)
      written.reserveCapacity(order.count)
      for position in order {
        let position = Int(position)
        let index = Int(present[position])
        files.append(present[position])
        usedPlans[records.plan(index)] = true
        if records.isWritten(index) {
          written.append(present[position])
        } else {
          unchanged += 1
          if records.isKept(index) { keptCount += 1 }
        }
      }
    }
    // The files of the previous build that this one carries over without having added them
    // (`carryOver(_:)`), and those it removes.
    let carried: [Int32]
    let stale: [String]
    if let expected = taken.carried?.count {
      let found = carriedAndStale(taken)
      if found.named != expected {
        // A file the caller kept without rendering it is not in the manifest: the site would
        // lack it. Nothing has changed yet.
        throw OutputError(
          path: statePath,
          reason: "names \(found.named) of the \(expected) kept files this build expected; "
            + "delete the folder '\(statePath)' and build again")
      }
      carried = found.carried
      stale = OutputPath.sorted(found.stale.map { previous.files.path(Int($0)) })
    } else {
      carried = []
      stale = staleFiles(files, kept: keptCount, taken)
    }
    let restamped = state.withLock { $0.restamped }
    let listed = ListedFiles(
      added: files, carried: carried, records: records, previous: previous.files,
      restamped: restamped)
    /// Streams the manifest of `listed` and `folders` to a file descriptor.
    func manifest(_ folders: Set<String>) -> (Int32) throws(SystemError) -> ContentHash {
      { fd throws(SystemError) in
        try Manifest.write(
          count: listed.count, file: { position, body in listed.withFile(position, body) },
          folders: OutputPath.sorted(folders), to: fd)
      }
    }

    // Folders that must exist, and those of them taskpress creates now.
    var needed = Set<String>()
    for (number, plan) in plans.enumerated() where usedPlans[number] {
      var folder = plan.path
      while !folder.isEmpty, needed.insert(folder).inserted {
        folder = OutputPath.split(folder).folder
      }
    }
    for folder in listed.carriedFolders() {
      var folder = folder
      while !folder.isEmpty, needed.insert(folder).inserted {
        folder = OutputPath.split(folder).folder
      }
    }
    var toCreate: [String] = []
    for folder in needed where try self.folder(folder).map({ $0.release() }) == nil {
      toCreate.append(folder)
    }
    toCreate = OutputPath.sorted(toCreate)  // parents before children
    let recordedFolders = previous.folders.union(toCreate)
    var folders = recordedFolders

    var writtenPaths = PathList()
    var writtenBytes = 0
    for number in written { writtenBytes += records.withPath(Int(number)) { $0.count } }
    writtenPaths.reserveCapacity(written.count, bytes: writtenBytes)
    for number in written { records.withPath(Int(number)) { writtenPaths.append(utf8: $0) } }
    var summary = OutputSummary(
      written: written.count, unchanged: unchanged + carried.count, removed: 0, repaired: repairing,
      writtenPaths: writtenPaths, removedPaths: [], warnings: [])
    if !foundAtFirstBuild.isEmpty {
      // What the folder held before its first build, but the names this build's files and
      // folders start with (those files are the site's now: written, or found as they are).
      var ours = Set(needed.map { String($0.prefix { $0 != "/" }) })
      for number in files {
        let name = records.withPath(Int(number)) { path in
          String(decoding: path.prefix { $0 != UInt8(ascii: "/") }, as: UTF8.self)
        }
        ours.insert(name)
      }
      summary.foundBeside = foundAtFirstBuild.filter { !ours.contains($0) }
    }

    if written.isEmpty && stale.isEmpty && !repairing {
      // Nothing visible changes; only the record may (new mtimes, adopted files).
      for folder in OutputPath.sorted(folders.subtracting(needed)).reversed()
      where removeEmptyFolder(folder) {
        folders.remove(folder)
      }
      let same =
        folders == previous.folders && listed.count == previous.files.count
        && !carried.contains(where: { restamped[$0] != nil })
        && files.allSatisfy {
          previous.files[records.path(Int($0))] == records.entry(Int($0))
        }
      var manifestHash = repairing ? nil : previousManifestHash
      if !same || stateFolderExists() {
        let stateFD = try stateFolder()
        try recordKeyIfNew(stateFD)
        if !same {
          manifestHash = try replaceManifest(stateFD, manifest(folders))
        }
        FileSystem.removeTree(stateFD, Self.stagingFolder)
        // The records last, tied to the manifest, under the lock.
        recordStampTime(stateFD, manifest: manifestHash)
        try writeRecords(stateFD, manifest: manifestHash)
      }
      return summary
    }

    let stateFD = try stateFolder()
    // The key the manifest's hashes are made with, before the manifest.
    try recordKeyIfNew(stateFD)
    let swapping = swapsFolder(
      written: written.count, stale: stale.count,
      stagingFD: state.withLock { $0.stagingFD }, stateFD: stateFD)
    // The pending manifest first (a full disk shows here, before anything visible changes; and a
    // killed commit leaves the list of files it may have put in place), then the marker.
    let pendingHash = try Self.writeFile(
      stateFD, Self.pendingManifestName, statePath, manifest(recordedFolders))
    try Self.writeFile(Array("taskpress\n".utf8), stateFD, Self.markerName, statePath)

    var steps = 0
    let stagingFD = state.withLock { $0.stagingFD }
    if swapping {
      // Most files change: the site is published as a new folder, in one exchange.
      try exchangeFolders(
        taken, files: files, written: written, carried: carried, needed: needed,
        stagingFD: stagingFD, stateFD: stateFD, steps: &steps)
      summary.removedPaths = stale
      summary.removed = stale.count
      let manifestHash: ContentHash
      if needed == recordedFolders {
        guard renameat(stateFD, Self.pendingManifestName, stateFD, Self.manifestName) == 0 else {
          throw OutputError(
            path: statePath + "/" + Self.manifestName, reason: SystemError.current.reason)
        }
        manifestHash = pendingHash
      } else {
        // The new folder holds the folders this build needs, no other.
        manifestHash = try replaceManifest(stateFD, manifest(needed))
        unlinkat(stateFD, Self.pendingManifestName, 0)
      }
      FileSystem.removeTree(stateFD, Self.stagingFolder)
      unlinkat(stateFD, Self.markerName, 0)
      recordStampTime(stateFD, manifest: manifestHash)
      try writeRecords(stateFD, manifest: manifestHash)
      summary.commitSteps = steps
      summary.swapped = true
      FolderSwap.freeTrashInBackground(statePath)
      return summary
    }
    // Folders that did not exist were staged whole: one rename each puts them in place.
    let moved = try moveShadowFolders(taken.shadowRoots, stagingFD, steps: &steps)
    let movedRoots = taken.shadowRoots.indices.filter { moved[$0] }.map {
      taken.shadowRoots[$0].root
    }
    // For each folder plan, whether its files went in with a moved folder: looked up per
    // file below without copying the plan's placement (and its prefix) each time.
    let inMovedFolder = plans.map { plan -> Bool in
      if case .shadow(let root, _) = plan.placement { moved[root] } else { false }
    }
    var removedEarly = Set<String>()
    let staleSet = Set(stale)
    for folder in toCreate where !movedRoots.contains(where: { OutputPath.isWithin(folder, $0) }) {
      try createFolder(folder, stale: staleSet, removed: &removedEarly)
    }
    var currentPlan = -1
    var folderRef: FolderRef?
    defer { folderRef?.release() }
    for number in written {
      let index = Int(number)
      // Files of a folder moved in one piece are in place already: their records are not read.
      if inMovedFolder[records.plan(index)] { continue }
      let record = records[index]
      guard case .written(_, let name) = record.staged else { continue }
      let folder = plans[record.plan].path
      if record.plan != currentPlan {
        folderRef?.release()
        folderRef = nil
        currentPlan = record.plan
        folderRef = try self.folder(folder)
      }
      guard let target = folderRef else {
        throw OutputError(path: display(folder), reason: "disappeared during the build")
      }
      if let limit = commitStepLimit, steps >= limit {
        throw OutputError(path: displayRoot, reason: "commit stopped after \(limit) steps")
      }
      let leaf = OutputPath.split(record.path).name
      let staged = Self.stagingPath(
        name, placement: plans[record.plan].placement, folder: folder, leaf: leaf)
      guard renameat(stagingFD, staged, target.fd, leaf) == 0 else {
        throw OutputError(path: display(record.path), reason: SystemError.current.reason)
      }
      steps += 1
    }
    folderRef?.release()
    folderRef = nil

    // Removals come last: until here every old file was still in place.
    var kept: [(path: String, entry: Manifest.Entry)] = []
    for path in stale {
      if removedEarly.contains(path) {
        summary.removedPaths.append(path)
        continue
      }
      switch removeStaleFile(path) {
      case .removed: summary.removedPaths.append(path)
      case .gone: break
      case .failed(let error):
        summary.warnings.append(error)
        if let entry = previous.files[path] { kept.append((path, entry)) }
      }
    }
    summary.removed = summary.removedPaths.count
    for (path, _) in kept {
      var folder = OutputPath.split(path).folder
      while !folder.isEmpty, needed.insert(folder).inserted {
        folder = OutputPath.split(folder).folder
      }
    }
    for folder in OutputPath.sorted(folders.subtracting(needed)).reversed() {
      if removeEmptyFolder(folder) { folders.remove(folder) }
    }

    let manifestHash: ContentHash
    if kept.isEmpty && folders == recordedFolders {
      guard renameat(stateFD, Self.pendingManifestName, stateFD, Self.manifestName) == 0 else {
        throw OutputError(
          path: statePath + "/" + Self.manifestName, reason: SystemError.current.reason)
      }
      manifestHash = pendingHash
    } else {
      // Rare (a stale file could not be removed): the manifest made in memory, as it was.
      let all =
        (0..<listed.count).map { position in
          listed.withFile(position) { (path: String(decoding: $0, as: UTF8.self), entry: $1) }
        } + kept
      let sorted = OutputPath.byteOrder(all.count) { all[$0].path }.map { all[$0] }
      let text = Manifest.text(files: sorted, folders: OutputPath.sorted(folders))
      try Self.writeManifest(text, stateFD, statePath)
      manifestHash = ContentHash(of: text)
      unlinkat(stateFD, Self.pendingManifestName, 0)
    }
    FileSystem.removeTree(stateFD, Self.stagingFolder)
    unlinkat(stateFD, Self.markerName, 0)
    // The records last, tied to the manifest, under the lock.
    recordStampTime(stateFD, manifest: manifestHash)
    try writeRecords(stateFD, manifest: manifestHash)
    summary.commitSteps = steps
    return summary
  }

  /// Writes the manifest `produce` streams into a temporary file of the state folder `stateFD`,
  /// then renames it into place (one step: a build killed at any point leaves the old manifest
  /// or the new one); returns its hash.
  private func replaceManifest(
    _ stateFD: Int32, _ produce: (Int32) throws(SystemError) -> ContentHash
  ) throws(OutputError) -> ContentHash {
    let hash = try Self.writeFile(stateFD, Self.temporaryManifestName, statePath, produce)
    guard renameat(stateFD, Self.temporaryManifestName, stateFD, Self.manifestName) == 0 else {
      throw OutputError(
        path: statePath + "/" + Self.manifestName, reason: SystemError.current.reason)
    }
    return hash
  }

  /// The files of the previous build that this build does not have, in byte order: each path
  /// of the previous manifest looked up among this build's `files`.
  ///
  /// A rebuild that kept most of its files (`keep(_:)`) usually has all of them, and then the
  /// manifest is not gone through: its files that this build has are counted instead (each kept
  /// file is one; the others, few, are looked up), and none is stale when the count is the
  /// manifest's. Otherwise, and when few were kept, every path is looked up as above.
  private func staleFiles(_ files: [Int32], kept: Int, _ taken: Taken) -> [String] {
    guard !previous.files.isEmpty else { return [] }
    let records = taken.records
    if kept >= files.count - kept {
      var known = kept
      for number in files where !records.isKept(Int(number)) {
        if previous.files[records.path(Int(number))] != nil { known += 1 }
      }
      if known == previous.files.count { return [] }
    }
    return OutputPath.sorted(
      previous.files.paths.filter {
        taken.paths.number(of: $0, hash: PathTable.hash(of: $0), records: records) == nil
      })
  }

  /// Renames each staged folder (see `createStagingFile`) onto its place when nothing stands
  /// there; returns, for each of `roots`, whether it was moved. A folder not moved is published
  /// file by file.
  private func moveShadowFolders(
    _ roots: [(root: String, name: String)], _ stagingFD: Int32, steps: inout Int
  ) throws(OutputError) -> [Bool] {
    var moved = [Bool](repeating: false, count: roots.count)
    for number in OutputPath.byteOrder(roots.count, { roots[$0].root }) {
      let (root, name) = roots[number]
      let (parentPath, leaf) = OutputPath.split(root)
      guard let parent = try folderOrRoot(parentPath) else { continue }
      defer { parent.release() }
      guard FileSystem.statNoFollow(parent.fd, leaf) == nil else { continue }
      if let limit = commitStepLimit, steps >= limit {
        throw OutputError(path: displayRoot, reason: "commit stopped after \(limit) steps")
      }
      guard renameat(stagingFD, name, parent.fd, leaf) == 0 else {
        throw OutputError(path: display(root), reason: SystemError.current.reason)
      }
      steps += 1
      moved[number] = true
      state.withLock { s in
        for key in s.folders.keys where OutputPath.isWithin(key, root) && s.folders[key] == .missing
        {
          s.folders[key] = nil
        }
      }
    }
    return moved
  }

  /// The folder `relative` of the output, or the output folder itself (created if need be)
  /// for `""`; nil when the folder does not exist.
  private func folderOrRoot(_ relative: String) throws(OutputError) -> FolderRef? {
    guard relative.isEmpty else { return try folder(relative) }
    return try state.withLock { (s) throws(OutputError) in
      FolderRef(fd: try ensureRoot(&s), owned: false)
    }
  }

  private func stateFolderExists() -> Bool {
    state.withLock { $0.stateFolderFD >= 0 }
  }

  /// Writes `hashKey` into the state folder when this build made it, atomically (a temporary
  /// file, then a rename), before any manifest whose hashes it made.
  private func recordKeyIfNew(_ stateFD: Int32) throws(OutputError) {
    guard hashKeyIsNew else { return }
    let temporary = HashKey.fileName + ".tmp"
    try Self.writeFile(hashKey.bytes, stateFD, temporary, statePath)
    guard renameat(stateFD, temporary, stateFD, HashKey.fileName) == 0 else {
      throw OutputError(
        path: statePath + "/" + HashKey.fileName, reason: SystemError.current.reason)
    }
  }

  /// The descriptor of the state folder, creating it when needed.
  private func stateFolder() throws(OutputError) -> Int32 {
    try state.withLock { (s) throws(OutputError) -> Int32 in
      if s.stateFolderFD < 0 { try createStateFolder(&s) }
      return s.stateFolderFD
    }
  }

  /// Creates the folder `relative` (its parent exists by now). A stale file of the previous
  /// build standing in its place is removed first.
  private func createFolder(_ relative: String, stale: Set<String>, removed: inout Set<String>)
    throws(OutputError)
  {
    let (parentPath, name) = OutputPath.split(relative)
    guard let parent = try folderOrRoot(parentPath) else {
      throw OutputError(path: display(parentPath), reason: "disappeared during the build")
    }
    defer { parent.release() }
    if mkdirat(parent.fd, name, 0o777) != 0 {
      let error = SystemError.current
      guard error.code == EEXIST, let info = FileSystem.statNoFollow(parent.fd, name) else {
        throw OutputError(path: display(relative), reason: error.reason)
      }
      if info.isSymbolicLink {
        throw OutputError(path: display(relative), reason: OutputError.symbolicLink)
      }
      if !info.isDirectory {
        guard stale.contains(relative), unlinkat(parent.fd, name, 0) == 0,
          mkdirat(parent.fd, name, 0o777) == 0
        else {
          throw OutputError(
            path: display(relative),
            reason: "is a file where taskpress needs a folder; move it away or delete it")
        }
        removed.insert(relative)
      }
    }
    state.withLock { s in
      if s.folders[relative] == .missing { s.folders[relative] = nil }
    }
  }

  private enum Removal {
    case removed
    case gone
    case failed(OutputError)
  }

  /// Removes a file the previous build wrote; never follows a link, never removes a folder.
  private func removeStaleFile(_ path: String) -> Removal {
    let (folder, name) = OutputPath.split(path)
    let parentRef: FolderRef?
    do {
      parentRef = try self.folder(folder)
    } catch {
      // A link or a file now stands where the folder was: what is there is not ours.
      return .gone
    }
    guard let parent = parentRef else { return .gone }
    defer { parent.release() }
    guard let info = FileSystem.statNoFollow(parent.fd, name), info.isRegularFile else {
      return .gone
    }
    if unlinkat(parent.fd, name, 0) == 0 { return .removed }
    let error = SystemError.current
    if error.code == ENOENT { return .gone }
    return .failed(OutputError(path: display(path), reason: error.reason))
  }

  /// Removes a folder taskpress created when it is empty; true when it no longer exists.
  private func removeEmptyFolder(_ relative: String) -> Bool {
    let (parentPath, name) = OutputPath.split(relative)
    guard let parent = try? folder(parentPath) else { return true }
    defer { parent.release() }
    guard let info = FileSystem.statNoFollow(parent.fd, name) else { return true }
    guard info.isDirectory else { return true }
    guard unlinkat(parent.fd, name, AT_REMOVEDIR) == 0 else { return false }
    state.withLock { s in
      if case .open(let fd) = s.folders[relative] {
        close(fd)
        s.cachedDescriptors -= 1
      }
      s.folders[relative] = .missing
    }
    return true
  }
}
