import Glibc
import Synchronization

/// Writes a generated site into an output folder safely, in two phases.
///
/// **Stage.** `add` takes each file by relative path (from any number of threads at once). A
/// file whose bytes are already on disk is "unchanged" and is not touched; any other is written
/// to `.taskpress/staging/` inside the output folder (the same file system, so moving it into
/// place later is an atomic rename). Nothing in the site changes during this phase, and any
/// problem (a symbolic link on the way, a file taskpress did not write in the way, a full disk)
/// is reported here. `abort()` (or releasing the writer without committing) removes the staging
/// area and leaves the folder exactly as it was.
///
/// **Commit.** `commit()` writes the marker `.taskpress/commit-in-progress`, creates folders,
/// renames each staged file onto its path (no reader ever sees half a file), removes the files
/// the previous build wrote that this one did not produce, removes the folders it had created
/// that are now empty, records what it wrote in `.taskpress/manifest`, and removes the marker.
/// A build killed during the commit leaves the marker behind: the next writer then trusts no
/// recorded hash, compares bytes, and reports `repaired`.
///
/// Files taskpress did not write (a `CNAME`, `.git/`, a hand-made page) are never touched and a
/// symbolic link inside the output folder is never followed.
public final class OutputWriter: @unchecked Sendable {
  // `@unchecked`: the mutable state lives in `state`, behind a mutex (and one atomic counter);
  // the other stored properties are set in `init` and only read afterwards.

  /// The output folder as given.
  public let root: String
  /// Whether the previous build was interrupted while writing (its marker was found), so this
  /// build verifies every file and repairs the folder.
  public let repairing: Bool

  let displayRoot: String
  let interrupt: InterruptFlag
  /// The files and folders the previous build(s) wrote: they belong to taskpress.
  let previous: Manifest
  /// The hash of `.taskpress/manifest` as the previous build left it; nil when there is none.
  public let previousManifestHash: ContentHash?

  /// Stops the commit after this many renames, as if the process had been killed (tests only).
  var commitStepLimit: Int?

  static let stagingFolder = "staging"
  static let manifestName = "manifest"
  static let pendingManifestName = "manifest.new"
  static let temporaryManifestName = "manifest.tmp"
  static let markerName = "commit-in-progress"
  static let maximumCachedFolders = 256
  static let chunkSize = 1 << 16

  enum Phase {
    case staging
    case committing
    case finished
  }

  enum Folder: Equatable {
    case open(Int32)
    case missing
  }

  enum Staged {
    case pending
    case unchanged(Manifest.Entry)
    case written(Manifest.Entry, stagingName: StagingName)
  }

  /// Where a file is staged, in the staging folder.
  enum StagingName {
    /// Flat, under this name (`f17`).
    case flat(String)
    /// In the copy of its folder, under its own name: `prefix/leaf` of its placement's
    /// `shadow(root:prefix:)`, spelled out only when needed.
    case inFolderCopy
  }

  /// A file added to this build.
  struct Record {
    var path: String
    /// Its folder's place in `State.plans`.
    var plan: Int
    var staged: Staged
  }

  /// How the files of one folder of the site are staged, decided at its first file.
  enum Placement {
    /// The folder exists: a file is compared with the one there, and staged flat (`f17`).
    /// `fd` is the writer's cached descriptor of the folder, or -1 when it must be opened.
    case existing(fd: Int32)
    /// The folder does not exist yet: its files are staged in the staging folder `prefix`,
    /// inside the copy of the folder `shadowRoots[root]`.
    case shadow(root: Int, prefix: String)
  }

  struct FolderPlan {
    /// The folder, relative to the output folder (`""` for the output folder itself).
    var path: String
    var placement: Placement
  }

  struct State {
    var phase = Phase.staging
    /// The files added, in the order `add` was called; `paths` finds one by path.
    var records: [Record] = []
    var paths = PathTable()
    /// The folders files were added to; `planIndex` finds one by path.
    var plans: [FolderPlan] = []
    var planIndex: [String: Int] = [:]
    /// Open descriptors of folders of the output (`""` is the output folder itself).
    var folders: [String: Folder] = [:]
    var cachedDescriptors = 0
    var stateFolderFD: Int32 = -1
    var stagingFD: Int32 = -1
    /// Folders on the way to the output folder that this writer created, outermost first.
    var createdRootFolders: [String] = []
    var createdStateFolder = false
    /// The modification time of the folder that staging changed first (the output folder when
    /// `.taskpress` was made, else `.taskpress`), put back when the build is abandoned.
    var modifiedBeforeStaging: timespec?
    /// The folder the first of `createdRootFolders` was made in, and its modification time
    /// before: put back when the build is abandoned.
    var parentModifiedBeforeStaging: (path: String, time: timespec?)?
    /// Calls of `add` in progress: descriptors are closed only when none is.
    var activeAdds = 0
    var closed = false
    /// Folders of the site that do not exist yet, each staged whole as a folder of the staging
    /// area (`d1`, `d2`, ...) that the commit renames into place in one step.
    var shadowRoots: [(root: String, name: String)] = []
    var shadowRootIndex: [String: Int] = [:]
    /// Folders made inside the staging area, relative to it.
    var stagingFolders: Set<String> = []
    /// The hash of the manifest the commit left (written or kept), once it has finished:
    /// `recordInputs` ties its record to it without reading the manifest back.
    var committedManifestHash: ContentHash?

    /// The place in `plans` of `folder`'s plan, if it has one. A site has a few folders, and
    /// comparing their names is cheaper than hashing one (this is asked for every file).
    func plan(of folder: String) -> Int? {
      guard plans.count <= 16 else { return planIndex[folder] }
      return plans.firstIndex { $0.path == folder }
    }
  }

  let state: Mutex<State>
  /// The number of the last file staged flat (named `f` and the number in base 36).
  let flatStagingNames = Atomic<Int>(0)

  private static let ignoreFileSizeSignal: Void = {
    // With SIGXFSZ ignored, a write past `ulimit -f` fails with EFBIG instead of killing us.
    signal(SIGXFSZ, SIG_IGN)
  }()

  /// Opens the output folder `root` (which need not exist yet), reads what the previous build
  /// wrote, and notices when that build was interrupted while writing.
  ///
  /// - Parameters:
  ///   - root: the output folder, e.g. `site`.
  ///   - interrupt: polled by `add` and `commit`; see `InterruptFlag`.
  /// - Throws: `OutputError` when `root` is a file, is locked by another build, or its
  ///   `.taskpress` state cannot be read.
  public init(root: String, interrupt: InterruptFlag = .process) throws {
    Self.ignoreFileSizeSignal
    self.root = root
    var trimmed = Substring(root)
    while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    displayRoot = trimmed.isEmpty ? "." : String(trimmed)
    self.interrupt = interrupt

    var initial = State()
    var info = stat()
    if stat(displayRoot, &info) != 0 {
      let error = SystemError.current
      guard error.code == ENOENT else {
        throw OutputError(path: displayRoot, reason: error.reason)
      }
      initial.folders[""] = .missing
      previous = Manifest()
      previousManifestHash = nil
      repairing = false
      state = Mutex(initial)
      return
    }
    guard info.isDirectory else {
      throw OutputError(
        path: displayRoot,
        reason: info.isRegularFile
          ? "output path is a file, not a folder" : "output path is not a folder")
    }
    let rootFD = open(displayRoot, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard rootFD >= 0 else {
      throw OutputError(path: displayRoot, reason: SystemError.current.reason)
    }
    initial.folders[""] = .open(rootFD)
    do {
      try Self.lock(rootFD, displayRoot)
      let loaded = try Self.loadState(rootFD, displayRoot)
      previous = loaded.manifest
      previousManifestHash = loaded.manifestHash
      repairing = loaded.repairing
      initial.stateFolderFD = loaded.stateFolderFD
    } catch {
      close(rootFD)
      throw error
    }
    state = Mutex(initial)
  }

  deinit {
    abort()
  }

  /// Takes an exclusive lock on the output folder: two builds writing one folder would mix.
  static func lock(_ rootFD: Int32, _ displayRoot: String) throws(OutputError) {
    guard flock(rootFD, LOCK_EX | LOCK_NB) == 0 else {
      let error = SystemError.current
      if error.code == EWOULDBLOCK {
        throw OutputError(
          path: displayRoot,
          reason: "another taskpress build is writing to this folder; wait for it to finish")
      }
      throw OutputError(path: displayRoot, reason: error.reason)
    }
  }

  /// Reads `.taskpress/`: the manifest, the marker of an interrupted commit; cleans leftovers.
  private static func loadState(_ rootFD: Int32, _ displayRoot: String) throws(OutputError) -> (
    manifest: Manifest, manifestHash: ContentHash?, repairing: Bool, stateFolderFD: Int32
  ) {
    let statePath = displayRoot + "/" + OutputPath.stateFolder
    let folderFD: Int32
    do throws(SystemError) {
      guard let fd = try FileSystem.openDirectory(rootFD, OutputPath.stateFolder) else {
        return (Manifest(), nil, false, -1)
      }
      folderFD = fd
    } catch {
      throw OutputError(path: statePath, reason: error.reason)
    }
    do throws(OutputError) {
      let repairing = FileSystem.statNoFollow(folderFD, markerName) != nil
      var manifestHash: ContentHash?
      var manifest =
        try readManifest(folderFD, manifestName, statePath) { manifestHash = ContentHash(of: $0) }
        ?? Manifest()
      if repairing {
        // The interrupted commit may have put any file of its own manifest in place: all of
        // them belong to taskpress. Keep that knowledge before anything else happens.
        if let pending = try readManifest(folderFD, pendingManifestName, statePath) {
          manifest.files.merge(pending.files) { _, new in new }
          manifest.folders.formUnion(pending.folders)
          try writeManifest(manifest, folderFD, statePath)
        }
      }
      unlinkat(folderFD, pendingManifestName, 0)
      unlinkat(folderFD, temporaryManifestName, 0)
      FileSystem.removeTree(folderFD, stagingFolder)
      return (manifest, repairing ? nil : manifestHash, repairing, folderFD)
    } catch {
      close(folderFD)
      throw error
    }
  }

  static func readManifest(
    _ folderFD: Int32, _ name: String, _ statePath: String,
    bytesRead: ([UInt8]) -> Void = { _ in }
  ) throws(OutputError) -> Manifest? {
    let path = statePath + "/" + name
    let fd = openat(folderFD, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      let error = SystemError.current
      if error.code == ENOENT { return nil }
      throw OutputError(path: path, reason: error.reason)
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      throw OutputError(path: path, reason: SystemError.current.reason)
    }
    let bytes: [UInt8]
    do throws(SystemError) {
      bytes = try FileSystem.readAll(fd, expected: Int(info.st_size))
    } catch {
      throw OutputError(path: path, reason: error.reason)
    }
    bytesRead(bytes)
    guard let manifest = Manifest(parsing: bytes) else {
      throw OutputError(
        path: path,
        reason: "is damaged; delete the folder '\(statePath)' and build again (taskpress will then "
          + "only replace files that differ)")
    }
    return manifest
  }

  /// Writes `manifest` as `.taskpress/manifest` atomically (temporary file, then rename).
  static func writeManifest(_ manifest: Manifest, _ folderFD: Int32, _ statePath: String)
    throws(OutputError)
  {
    try writeManifest(manifest.serialized(), folderFD, statePath)
  }

  /// Writes the manifest text `bytes` as `.taskpress/manifest` atomically.
  static func writeManifest(_ bytes: [UInt8], _ folderFD: Int32, _ statePath: String)
    throws(OutputError)
  {
    try writeFile(bytes, folderFD, temporaryManifestName, statePath)
    guard renameat(folderFD, temporaryManifestName, folderFD, manifestName) == 0 else {
      throw OutputError(path: statePath + "/" + manifestName, reason: SystemError.current.reason)
    }
  }

  /// Creates or truncates `name` in `folderFD` with `bytes`.
  static func writeFile(_ bytes: [UInt8], _ folderFD: Int32, _ name: String, _ statePath: String)
    throws(OutputError)
  {
    let path = statePath + "/" + name
    let fd = openat(folderFD, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o666)
    guard fd >= 0 else { throw OutputError(path: path, reason: SystemError.current.reason) }
    do throws(SystemError) {
      try FileSystem.writeAll(fd, bytes)
    } catch {
      close(fd)
      unlinkat(folderFD, name, 0)
      throw OutputError(path: path, reason: error.reason)
    }
    close(fd)
  }

  // MARK: - Paths

  /// The path of `relative` as the user would type it, e.g. `site/todos/3.html`.
  func display(_ relative: String) -> String {
    if relative.isEmpty { return displayRoot }
    return displayRoot == "/" ? "/" + relative : displayRoot + "/" + relative
  }

  // MARK: - Staging

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
      record(slot, try stage(slot, buffer, hash: ContentHash(of: buffer)))
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
        staged.append(try stage(slots[index], buffer, hash: ContentHash(of: buffer)))
      }
    } catch {
      record(slots[..<staged.count], staged)
      release(slots[staged.count...])
      throw error
    }
    record(slots[...], staged)
  }

  /// Adds the file `path` with `bytes`, whose `ContentHash` the caller has already made (a
  /// photo named by its hash); see ``add(_:bytes:)``.
  public func add(_ path: String, bytes: [UInt8], hash: ContentHash?) throws {
    let slot = try reserve(path)
    do {
      let staged = try bytes.withUnsafeBytes {
        try stage(slot, $0, hash: hash ?? ContentHash(of: $0))
      }
      record(slot, staged)
    } catch {
      release(slot)
      throw error
    }
  }

  /// Adds the file `path` whose bytes `produce` writes to a `ChunkSink` in pieces, so that a
  /// large file (a photo streamed from a database) never has to be in memory at once.
  ///
  /// Memory use is bounded by the chunk sizes, not the file size. When the bytes turn out to be
  /// those already on disk, nothing is written.
  public func add(_ path: String, streaming produce: (ChunkSink) throws -> Void) throws {
    let slot = try reserve(path)
    var sink: ChunkSink?
    do {
      let opened = try ChunkSink(writer: self, slot: slot)
      sink = opened
      try produce(opened)
      record(slot, try opened.finish())
    } catch {
      sink?.discard()
      release(slot)
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
  private func reserve(_ paths: [String]) throws -> [Slot] {
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

  /// Records what was staged for each of `slots`, under one lock.
  private func record(_ slots: some Collection<Slot>, _ staged: some Collection<Staged>) {
    guard !slots.isEmpty else { return }
    state.withLock { s in
      s.activeAdds -= slots.count
      if s.phase == .staging {
        for (slot, staged) in zip(slots, staged) {
          s.records[slot.index].staged = staged
          s.records[slot.index].plan = slot.plan
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
  private func release(_ slots: some Collection<Slot>) {
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

  /// Decides whether `bytes` differ from what is at the slot's path and, when they do, stages
  /// them.
  private func stage(_ slot: Slot, _ bytes: UnsafeRawBufferPointer, hash: ContentHash) throws
    -> Staged
  {
    let path = slot.path
    if let existing = try existingTarget(slot) {
      defer { existing.folder.release() }
      let info = existing.info
      let size = Int(info.st_size)
      let known = previous.files[path]
      if let known, !repairing, known.hash == hash, known.size == bytes.count, size == bytes.count,
        known.modified == info.modificationNanoseconds
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
      if known == nil { throw OutputError(path: display(path), reason: OutputError.notWrittenByUs) }
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
    case .existing:
      let name = "f" + String(flatStagingNames.add(1, ordering: .relaxed).newValue, radix: 36)
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
      stagingName = .flat(name)
    }
    guard fd >= 0 else {
      throw OutputError(path: display(slot.path), reason: SystemError.current.reason)
    }
    return (fd, stagingName)
  }

  /// The path of a staged file inside the staging folder.
  static func stagingPath(_ name: StagingName, placement: Placement, leaf: String) -> String {
    switch (name, placement) {
    case (.flat(let name), _): name
    case (.inFolderCopy, .shadow(_, let prefix)): prefix + "/" + leaf
    case (.inFolderCopy, .existing): leaf  // not made: such a folder's files are staged flat
    }
  }

  /// Creates `relative` and its parents inside the staging folder, once.
  private func makeStagingFolders(_ relative: String, _ s: inout State) throws(OutputError) {
    guard !s.stagingFolders.contains(relative) else { return }
    let parent = OutputPath.split(relative).folder
    if !parent.isEmpty { try makeStagingFolders(parent, &s) }
    guard mkdirat(s.stagingFD, relative, 0o777) == 0 || errno == EEXIST else {
      throw OutputError(
        path: display(OutputPath.stateFolder + "/" + Self.stagingFolder + "/" + relative),
        reason: SystemError.current.reason)
    }
    s.stagingFolders.insert(relative)
  }

  /// Records the size and modification time of a fully written staging file and closes it.
  func finishStagingFile(_ fd: Int32, hash: ContentHash) throws(SystemError) -> Manifest.Entry {
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw SystemError.current }
    close(fd)
    return Manifest.Entry(
      hash: hash, size: Int(info.st_size), modified: info.modificationNanoseconds)
  }

  func removeStagingFile(_ name: StagingName, _ slot: Slot) {
    let path = Self.stagingPath(name, placement: slot.placement, leaf: slot.leaf)
    state.withLock { s in _ = s.stagingFD >= 0 ? unlinkat(s.stagingFD, path, 0) : 0 }
  }

  /// Creates (as needed) the output folder, `.taskpress` and `.taskpress/staging`.
  private func createStagingFolder(_ s: inout State) throws(OutputError) {
    let rootFD = try ensureRoot(&s)
    let statePath = display(OutputPath.stateFolder)
    if s.stateFolderFD < 0 {
      let rootModified = Self.modificationTime(rootFD)
      if mkdirat(rootFD, OutputPath.stateFolder, 0o777) == 0 {
        s.modifiedBeforeStaging = rootModified
        s.createdStateFolder = true
      } else if errno != EEXIST {
        throw OutputError(path: statePath, reason: SystemError.current.reason)
      }
      do throws(SystemError) {
        guard let fd = try FileSystem.openDirectory(rootFD, OutputPath.stateFolder) else {
          throw SystemError(code: ENOENT)
        }
        s.stateFolderFD = fd
      } catch {
        throw OutputError(path: statePath, reason: error.reason)
      }
    }
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
        s.createdRootFolders.isEmpty && stat(parent, &info) == 0 ? info.st_mtim : nil
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
        if s.createdStateFolder, case .open(let rootFD) = s.folders[""] {
          unlinkat(rootFD, OutputPath.stateFolder, AT_REMOVEDIR)
          Self.setModificationTime(rootFD, s.modifiedBeforeStaging)
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
  private static func modificationTime(_ fd: Int32) -> timespec? {
    var info = stat()
    return fstat(fd, &info) == 0 ? info.st_mtim : nil
  }

  /// Puts back a folder's modification time (its access time stays as it is): an abandoned
  /// build leaves no trace, not even in the time of the folder it staged in.
  private static func setModificationTime(_ fd: Int32, _ time: timespec?) {
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
