#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension OutputWriter {
  // MARK: - Adding files

  /// Adds the file `path` (relative to the output folder, `/`-separated) with `bytes`.
  ///
  /// Safe to call from several threads at once.
  /// - Throws: `OutputError` naming the file: an invalid or repeated path, a symbolic link on
  ///   the way, a file in the way that taskpress did not write, a full disk, an interrupt.
  public func add(_ path: String, bytes: [UInt8]) throws {
    try add(path, bytes: bytes, hash: nil)
  }

  /// Adds the file `path` with the bytes in `buffer`, which need stay valid only until this
  /// returns (a renderer's buffer, reused for the next page); see ``add(_:bytes:)``.
  public func add(_ path: String, contentsOf buffer: UnsafeRawBufferPointer) throws {
    let slot = try reserve(path)
    do {
      record(slot, try stage(slot, buffer, hash: hashKey.hash(buffer)))
    } catch {
      release(slot)
      throw error
    }
  }

  /// Adds the files `paths` whose bytes are in `contents`, one after another: file `i` ends at
  /// `ends[i]` (pages rendered into one buffer, which need stay valid only until this returns);
  /// see ``add(_:bytes:)``. The same as adding them one by one, with two locks for all of them
  /// instead of two for each: their paths are claimed together, then recorded together once
  /// written.
  ///
  /// When a file fails, those before it stay added and the error names the file.
  public func add(_ paths: [String], contents: UnsafeRawBufferPointer, ends: [Int]) throws {
    precondition(ends.count == paths.count, "one end for each path")
    let slots = try reserve(paths)
    var staged: [Staged] = []
    staged.reserveCapacity(slots.count)
    do {
      var start = 0
      for index in slots.indices {
        if interrupt.isSet {
          throw OutputError(path: displayRoot, reason: OutputError.interrupted)
        }
        let buffer = UnsafeRawBufferPointer(rebasing: contents[start..<ends[index]])
        start = ends[index]
        staged.append(try stage(slots[index], buffer, hash: hashKey.hash(buffer)))
      }
    } catch {
      record(slots[..<staged.count], staged)
      release(slots[staged.count...])
      throw error
    }
    record(slots[...], staged)
  }

  /// Adds the file `path` with `bytes`, whose keyed hash (under `hashKey`) the caller may have
  /// made already; see ``add(_:bytes:)``.
  public func add(_ path: String, bytes: [UInt8], hash: KeyedHash?) throws {
    let slot = try reserve(path)
    do {
      let staged = try bytes.withUnsafeBytes {
        try stage(slot, $0, hash: hash ?? hashKey.hash($0))
      }
      record(slot, staged)
    } catch {
      release(slot)
      throw error
    }
  }

  /// Opens the file `path` to be given in pieces, so that a large file (a data copy of a
  /// million to-dos) never has to be in memory at once: write its bytes into the returned file
  /// (`StreamedFile.write`), then hand it back with `add(_:)`. A file let go of before it is
  /// handed back (the code writing it threw) leaves nothing staged and its path free; the build
  /// fails or aborts as with any other error.
  ///
  /// Memory use is bounded by the pieces' sizes, not the file size. When the bytes turn out to
  /// be those already on disk, nothing is written. See ``add(_:bytes:)`` for the errors.
  public func openFile(_ path: String) throws -> StreamedFile {
    // Should the file fail to open, it is given up as it goes (`StreamedFile.deinit`): the
    // path is given back there.
    try StreamedFile(writer: self, slot: try reserve(path))
  }

  /// Adds `file`, opened by ``openFile(_:)`` and written: the file with the bytes written into
  /// it. When this fails, the file is given up (nothing of it staged, its path free).
  public func add(_ file: StreamedFile) throws {
    guard file.isOpen else {
      throw OutputError(path: display(file.slot.path), reason: "was added twice in one build")
    }
    do {
      record(file.slot, try file.finish())
    } catch {
      file.discard()
      release(file.slot)
      throw error
    }
  }

  /// A file being added, from `reserve` to `record` or `release`: where it is and how its
  /// folder is staged.
  struct Slot {
    var path: String
    var folder: String
    var leaf: String
    /// Its place in `State.records`.
    var index: Int
    /// Its folder's place in `State.plans`.
    var plan: Int
    var placement: Placement
    /// The staging folder's descriptor, or -1 when it was not open yet.
    var stagingFD: Int32
  }

  /// Checks `path`, claims it for this build (an error when it was added already), and finds
  /// how its folder is staged; see `reserve(_:)` for several.
  private func reserve(_ path: String) throws -> Slot {
    try reserve([path])[0]
  }

  /// Checks `paths`, claims them for this build (an error when one was added already, by
  /// another call or by this one), and finds how their folders are staged: one lock for all
  /// that, once the folders are known. Nothing is claimed when one fails.
  func reserve(_ paths: [String]) throws -> [Slot] {
    var slots: [Slot] = []
    var hashes: [UInt32] = []
    slots.reserveCapacity(paths.count)
    hashes.reserveCapacity(paths.count)
    for path in paths {
      if let problem = OutputPath.problem(path) {
        throw OutputError(path: displayRoot + "/" + path, reason: problem)
      }
      let (folder, leaf) = OutputPath.split(path)
      slots.append(
        Slot(
          path: path, folder: folder, leaf: leaf, index: -1, plan: -1,
          placement: .existing(fd: -1), stagingFD: -1))
      hashes.append(PathTable.hash(of: path))
    }
    if interrupt.isSet { throw OutputError(path: displayRoot, reason: OutputError.interrupted) }
    guard !slots.isEmpty else { return slots }
    try state.withLock { (s) throws(OutputError) in
      guard s.phase == .staging else {
        throw OutputError(
          path: display(slots[0].path), reason: "added after the output was committed or aborted")
      }
      let first = s.records.count
      for index in slots.indices {
        let path = slots[index].path
        if s.paths.insert(path, hash: hashes[index], number: first + index, records: s.records)
          != nil
        {
          // Give back what this call claimed.
          for claimed in 0..<index {
            s.paths.remove(slots[claimed].path, hash: hashes[claimed], records: s.records)
          }
          s.records.removeLast(index)
          throw OutputError(path: display(path), reason: "was added twice in one build")
        }
        s.records.append(Record(path: path, plan: -1, staged: .pending))
        slots[index].index = first + index
      }
      s.activeAdds += slots.count
      // The files of one call are mostly in one folder: its plan is looked up once.
      var known: (folder: String, plan: Int?)?
      for index in slots.indices {
        if known?.folder != slots[index].folder {
          known = (slots[index].folder, s.plan(of: slots[index].folder))
        }
        if let plan = known?.plan {
          slots[index].plan = plan
          slots[index].placement = s.plans[plan].placement
        }
        slots[index].stagingFD = s.stagingFD
      }
    }
    // A folder no file was added to yet: decided now, once for the files of this call in it.
    var planned: (folder: String, plan: (Int, Placement, stagingFD: Int32))?
    for index in slots.indices where slots[index].plan < 0 {
      if planned?.folder != slots[index].folder {
        do {
          planned = (slots[index].folder, try plan(for: slots[index].folder, slots[index].path))
        } catch {
          release(slots[...])
          throw error
        }
      }
      if let plan = planned?.plan {
        (slots[index].plan, slots[index].placement, slots[index].stagingFD) = plan
      }
    }
    return slots
  }

  private func record(_ slot: Slot, _ staged: Staged) {
    record(CollectionOfOne(slot), CollectionOfOne(staged))
  }

  /// Records what was staged for each of `slots`, under one lock; `kept` when they are files
  /// of the manifest kept without their bytes.
  func record(
    _ slots: some Collection<Slot>, _ staged: some Collection<Staged>, kept: Bool = false
  ) {
    guard !slots.isEmpty else { return }
    state.withLock { s in
      s.activeAdds -= slots.count
      if s.phase == .staging {
        for (slot, staged) in zip(slots, staged) {
          s.records.set(slot.index, staged: staged, plan: slot.plan, kept: kept)
        }
      } else {
        // An abort raced with this add; the staging folder is already gone.
        Self.closeIfIdle(&s)
      }
    }
  }

  private func release(_ slot: Slot) {
    release(CollectionOfOne(slot))
  }

  /// Gives back the paths of `slots`, claimed but not staged, under one lock.
  func release(_ slots: some Collection<Slot>) {
    guard !slots.isEmpty else { return }
    state.withLock { s in
      s.activeAdds -= slots.count
      if s.phase == .staging {
        for slot in slots {
          s.paths.remove(slot.path, hash: PathTable.hash(of: slot.path), records: s.records)
        }
      } else {
        Self.closeIfIdle(&s)
      }
    }
  }

  /// Decides, at its first file, how the files of `folder` are staged: flat when the folder
  /// exists, else in a copy of the outermost missing folder on its way (see
  /// `createStagingFile`), whose staging folders are made now. `path` is the file, for errors.
  private func plan(for folder: String, _ path: String) throws(OutputError) -> (
    Int, Placement, stagingFD: Int32
  ) {
    // Walk the folders on the way, outermost first, until one is missing.
    var shadow: (root: String, rest: String)?
    var cachedFD: Int32 = -1
    if folder.isEmpty {
      if let ref = try self.folder("") { cachedFD = ref.owned ? -1 : ref.fd }
    } else {
      var prefix = ""
      var remainder = Substring(folder)
      while !remainder.isEmpty {
        let part = remainder.prefix { $0 != "/" }
        remainder = remainder.dropFirst(part.count).drop { $0 == "/" }
        prefix = prefix.isEmpty ? String(part) : prefix + "/" + part
        guard let ref = try self.folder(prefix) else {
          shadow = (prefix, String(remainder))
          break
        }
        if remainder.isEmpty && !ref.owned { cachedFD = ref.fd }
        ref.release()
      }
    }
    return try state.withLock { (s) throws(OutputError) -> (Int, Placement, stagingFD: Int32) in
      if let known = s.plan(of: folder) {
        // Another thread got here first.
        return (known, s.plans[known].placement, s.stagingFD)
      }
      guard s.phase == .staging else {
        throw OutputError(
          path: display(path), reason: "added after the output was committed or aborted")
      }
      var placement = Placement.existing(fd: cachedFD)
      if let shadow {
        if s.stagingFD < 0 { try createStagingFolder(&s) }
        let root: Int
        if let known = s.shadowRootIndex[shadow.root] {
          root = known
        } else {
          root = s.shadowRoots.count
          s.shadowRoots.append((shadow.root, "d" + String(root + 1, radix: 36)))
          s.shadowRootIndex[shadow.root] = root
        }
        let name = s.shadowRoots[root].name
        let prefix = shadow.rest.isEmpty ? name : name + "/" + shadow.rest
        try makeStagingFolders(prefix, &s)
        placement = .shadow(root: root, prefix: prefix)
      }
      let plan = s.plans.count
      s.plans.append(FolderPlan(path: folder, placement: placement))
      s.planIndex[folder] = plan
      return (plan, placement, s.stagingFD)
    }
  }
}
