import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a generated site into an output folder safely, in two phases.
///
/// **Stage.** `add` takes each file by relative path (from any number of threads at once). A
/// file whose bytes are already on disk is "unchanged" and is not touched; any other is written
/// to the `staging/` folder of taskpress's state folder, which lives beside the output folder
/// (`.site.taskpress/` for `site/`; see `stateFolder(ofOutput:)`): the same file system, so moving
/// a file into place later is an atomic rename, and outside the site, so no sync, upload or web
/// server of the output folder ever sees it. Nothing in the site changes during this phase, and any
/// problem (a symbolic link on the way, a file taskpress did not write in the way, a full disk)
/// is reported here. `abort()` (or releasing the writer without committing) removes the staging
/// area and leaves the folder exactly as it was.
///
/// **Commit.** `commit()` writes the marker `commit-in-progress` in the state folder, creates folders,
/// renames each staged file onto its path (no reader ever sees half a file), removes the files
/// the previous build wrote that this one did not produce, removes the folders it had created
/// that are now empty, records what it wrote in the state folder's `manifest`, and removes the
/// marker.
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
  /// What the output folder held that taskpress did not write, sorted, when this is its first
  /// build there (no manifest) and it was not empty: left as it is, but worth a note.
  public let foundAtFirstBuild: [String]

  let displayRoot: String
  /// taskpress's state folder, beside the output folder, as the user would type it.
  public let statePath: String
  /// The folder that holds the output folder and the state folder.
  let stateParent: String
  let interrupt: InterruptFlag
  /// The files and folders the previous build(s) wrote: they belong to taskpress.
  let previous: Manifest
  /// The hash of the manifest as the previous build left it; nil when there is none.
  public let previousManifestHash: ContentHash?
  /// The output folder's key (`HashKey`), read from the state folder; a new one when there is
  /// none or it is damaged (`hashKeyIsNew`), which the commit records before the manifest.
  public let hashKey: HashKey
  /// Whether `hashKey` was made by this build: then nothing the last build recorded is
  /// trusted (`previousManifestHash` is nil, so no record beside the manifest is read).
  public let hashKeyIsNew: Bool
  /// When the last build recorded the stamps of its manifest's files (`stampedFileName`, tied
  /// to that manifest): before it last looked at any of them. Nil when there is no such record:
  /// then no file is trusted by its stamp, and each is read and compared by its keyed hash.
  let stampedAt: Int64?
  /// When this build opened the folder, before it looked at any file: what a build that stops
  /// without a commit records as `stampedAt` for the next build (`recordIntactFiles`).
  let openedAt: Int64
  /// The count behind `filesRehashed`.
  let rehashedFiles = Atomic<Int>(0)

  /// The header of the records the previous build's commit left (`StateRecords`), when they
  /// are of the manifest on disk; nil when none is trusted.
  let recordsHeader: [UInt8]?

  /// Stops the commit after this many renames, as if the process had been killed (tests only).
  var commitStepLimit: Int?
  /// Stops the commit after this many records written (`writeRecords`), as if the process had
  /// been killed (tests only).
  var recordStepLimit: Int?
  /// Called by the commit before it writes each record, with its name (tests only).
  var recordWritten: ((String) -> Void)?
  /// When the commit may publish the site as a new folder exchanged with the output folder
  /// (`FolderSwap`); `never` is the plain path, every file replaced in place.
  var folderSwap = FolderSwap.Mode.auto
  /// Called by a commit that exchanges folders just before the exchange (tests only).
  var beforeExchange: (() -> Void)?

  static let stagingFolder = "staging"
  static let manifestName = "manifest"
  static let pendingManifestName = "manifest.new"
  static let temporaryManifestName = "manifest.tmp"
  static let markerName = "commit-in-progress"
  /// The state file of `stampedAt`.
  static let stampedFileName = "stamped"
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
    /// Flat, under `f` and this number in base 36 (`f17`).
    case flat(Int)
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
    var records = RecordTable()
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
    /// The modification time of the folder that staging changed first (the folder holding the
    /// output folder when the state folder was made, else the state folder), put back when the
    /// build is abandoned.
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
    /// Which files of the previous manifest the commit keeps without their having been added
    /// (`carryOver(_:)`); nil when none.
    var carried: PathKeys?
    /// Files added where a file taskpress did not write stands: the commit refuses them all.
    var clashes: [String] = []
    /// Files of the previous manifest whose stamp did not match but whose bytes did (read and
    /// compared by their keyed hash): their entries with the stamp they have now, by number.
    var restamped: [Int32: Manifest.Entry] = [:]
    /// The records the commit writes (`setRecords`); nil when none was handed to it.
    var stateRecords: StateRecords?

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
  /// wrote, and notices when that build was interrupted while writing: `lock(root:interrupt:)`,
  /// then `init(loading:)`.
  ///
  /// - Parameters:
  ///   - root: the output folder, e.g. `site`.
  ///   - interrupt: polled by `add` and `commit`; see `InterruptFlag`.
  /// - Throws: `OutputError` when `root` is a file, is locked by another build, or its
  ///   state cannot be read.
  public convenience init(root: String, interrupt: InterruptFlag = .process) throws {
    try self.init(loading: Self.lock(root: root, interrupt: interrupt))
  }

  /// The first step of opening the output folder `root`: made when missing (with the folders on
  /// its way), opened, locked for this build (no other build can change it from then on),
  /// checked writable, and its state folder found; its manifest is not read yet. What reads the
  /// previous site can start once this returns, beside `init(loading:)`, which reads it.
  ///
  /// - Throws: `OutputError` when `root` is a file, is locked by another build, or it or its
  ///   state folder cannot be written; nothing is left locked or made then.
  public static func lock(root: String, interrupt: InterruptFlag = .process) throws -> Locked {
    Self.ignoreFileSizeSignal
    let openedAt = FileStamp.now()
    let displayRoot = Self.trimmed(root)
    let (stateParent, statePath) = try Self.stateLocation(ofOutput: displayRoot)
    var initial = State()
    // A missing output folder is made (with the folders on its way) and locked before
    // anything else is written or removed: of two first builds at once, one makes it and
    // locks it, and the other finds it locked. The folders made are removed if the build is
    // abandoned.
    let (rootFD, created) = try Self.openLocked(displayRoot, &initial)
    initial.folders[""] = .open(rootFD)
    do {
      if created {
        // The state of an output folder that was gone describes nothing: a fresh start.
        FileSystem.removeTree(AT_FDCWD, statePath)
      }
      try Self.checkWritable(displayRoot, stateParent: stateParent, statePath: statePath)
      try Self.adoptOldState(rootFD, displayRoot, statePath)
    } catch {
      Self.release(rootFD, initial)
      throw error
    }
    return Locked(
      opened: Locked.Opened(
        root: root, displayRoot: displayRoot, stateParent: stateParent, statePath: statePath,
        interrupt: interrupt, openedAt: openedAt, rootFD: rootFD, created: created,
        initial: initial))
  }

  /// The second step of opening an output folder (after `lock(root:interrupt:)`): reads what the
  /// previous build wrote, and notices when that build was interrupted while writing.
  ///
  /// - Throws: `OutputError` when the folder's state cannot be read; the folder is then
  ///   unlocked, and the folders `lock` made are removed.
  public init(loading locked: consuming Locked) throws {
    // Taken out: the handle, now empty, releases nothing when it goes. (A handle is consumed
    // here, so it is never found empty.)
    guard let opened = locked.opened.take() else {
      throw OutputError(path: ".", reason: "the output folder was already opened")
    }
    openedAt = opened.openedAt
    root = opened.root
    displayRoot = opened.displayRoot
    stateParent = opened.stateParent
    statePath = opened.statePath
    interrupt = opened.interrupt
    let rootFD = opened.rootFD
    let created = opened.created
    var initial = opened.initial
    do {
      let loaded = try Self.loadState(statePath)
      previous = loaded.manifest
      repairing = loaded.repairing
      if let key = loaded.key {
        hashKey = key
        hashKeyIsNew = false
        previousManifestHash = loaded.manifestHash
      } else {
        // A key missing or damaged: a new one, and the plain path (no record trusted).
        hashKey = HashKey.random()
        hashKeyIsNew = true
        previousManifestHash = nil
      }
      initial.stateFolderFD = loaded.stateFolderFD
      stampedAt = Self.recordedStampTime(loaded.stateFolderFD, tiedTo: previousManifestHash)
      recordsHeader = StateRecords.trustedHeader(
        loaded.stateFolderFD, manifest: previousManifestHash)
      foundAtFirstBuild =
        created || loaded.manifestHash != nil || loaded.repairing
        ? [] : ((try? FileSystem.listDirectory(rootFD)) ?? []).sorted()
    } catch {
      Self.release(rootFD, initial)
      throw error
    }
    state = Mutex(initial)
  }

  /// An output folder opened and locked for one build (`lock(root:interrupt:)`), whose state
  /// is not read yet: `init(loading:)` takes it. Let go of unused, it unlocks the folder and
  /// removes the folders `lock` made, as an abandoned build does.
  public struct Locked: ~Copyable {
    struct Opened {
      var root: String
      var displayRoot: String
      var stateParent: String
      var statePath: String
      var interrupt: InterruptFlag
      var openedAt: Int64
      var rootFD: Int32
      var created: Bool
      var initial: State
    }

    /// Nil once `init(loading:)` took it.
    var opened: Opened?

    deinit {
      guard let opened else { return }
      OutputWriter.release(opened.rootFD, opened.initial)
      if let (parent, time) = opened.initial.parentModifiedBeforeStaging,
        let first = opened.initial.createdRootFolders.first, access(first, F_OK) != 0
      {
        let parentFD = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if parentFD >= 0 {
          OutputWriter.setModificationTime(parentFD, time)
          close(parentFD)
        }
      }
    }
  }

  /// Undoes `openLocked` for a folder that was not opened after all: removes the folders made
  /// on the way (innermost first; a folder holding anything stays) and unlocks it.
  private static func release(_ rootFD: Int32, _ initial: State) {
    for folder in initial.createdRootFolders.reversed() { rmdir(folder) }
    close(rootFD)
  }

  deinit {
    abort()
  }

  /// Opens the output folder `displayRoot` and locks it, making it (and the folders on its way,
  /// recorded in `s.createdRootFolders`) when it does not exist. Returns its descriptor and
  /// whether the folder itself was made here. A folder removed or replaced between its opening
  /// and its locking (by a build that made it and was abandoned) is opened again.
  static func openLocked(_ displayRoot: String, _ s: inout State) throws(OutputError) -> (
    Int32, created: Bool
  ) {
    var attempts = 0
    while true {
      attempts += 1
      var info = stat()
      var created = false
      if stat(displayRoot, &info) != 0 {
        let error = SystemError.current
        guard error.code == ENOENT else {
          throw OutputError(path: displayRoot, reason: error.reason)
        }
        created = try makeRootFolders(displayRoot, &s)
      } else if !info.isDirectory {
        throw OutputError(
          path: displayRoot,
          reason: info.isRegularFile
            ? "output path is a file, not a folder" : "output path is not a folder")
      }
      let rootFD = open(displayRoot, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      guard rootFD >= 0 else {
        let error = SystemError.current
        if error.code == ENOENT, attempts < 100 { continue }
        throw OutputError(path: displayRoot, reason: error.reason)
      }
      do throws(OutputError) {
        try lock(rootFD, displayRoot)
      } catch {
        close(rootFD)
        // The folder is the other build's now: this one leaves it alone.
        s.createdRootFolders = []
        s.parentModifiedBeforeStaging = nil
        throw error
      }
      // Locked: is the path still this folder?
      var opened = stat()
      var now = stat()
      if fstat(rootFD, &opened) == 0, stat(displayRoot, &now) == 0,
        opened.st_dev == now.st_dev, opened.st_ino == now.st_ino
      {
        return (rootFD, created)
      }
      close(rootFD)
      guard attempts < 100 else {
        throw OutputError(
          path: displayRoot, reason: "kept being removed or replaced while taskpress opened it")
      }
    }
  }

  /// Makes the output folder `displayRoot` and the missing folders on its way, outermost
  /// first, recording them in `s` (for `abort`, with the modification time of the folder the
  /// first was made in). Returns whether the output folder itself was made here (false when
  /// another program made it first).
  static func makeRootFolders(_ displayRoot: String, _ s: inout State) throws(OutputError)
    -> Bool
  {
    var prefix = displayRoot.hasPrefix("/") ? "/" : ""
    var madeLast = false
    for part in displayRoot.split(separator: "/") {
      let parent = prefix.isEmpty ? "." : prefix
      prefix += (prefix.isEmpty || prefix == "/" ? "" : "/") + part
      var info = stat()
      let parentModified =
        s.createdRootFolders.isEmpty && stat(parent, &info) == 0 ? info.modificationTime : nil
      if mkdir(prefix, 0o777) == 0 {
        if s.createdRootFolders.isEmpty { s.parentModifiedBeforeStaging = (parent, parentModified) }
        s.createdRootFolders.append(prefix)
        madeLast = true
      } else if errno == EEXIST {
        madeLast = false
      } else {
        throw OutputError(path: prefix, reason: SystemError.current.reason)
      }
    }
    return madeLast
  }

  /// Fails, naming the folder the user gave, when the output folder cannot be written, or its
  /// state folder (beside it) is missing and cannot be made: found before anything is staged,
  /// not as a failure of the staging area or halfway through the commit.
  static func checkWritable(_ displayRoot: String, stateParent: String, statePath: String)
    throws(OutputError)
  {
    if access(displayRoot, W_OK) != 0 {
      throw OutputError(
        path: displayRoot,
        reason: "cannot be written (\(SystemError.current.reason)); make it writable or choose "
          + "another --output")
    }
    if access(statePath, F_OK) != 0, access(stateParent.isEmpty ? "." : stateParent, W_OK) != 0 {
      throw OutputError(
        path: displayRoot,
        reason: "taskpress keeps its state beside this folder, in '\(statePath)', which cannot be "
          + "made (\(SystemError.current.reason)); make '\(stateParent)' writable or choose "
          + "another --output")
    }
  }

  /// How many times `lock` asks again, 20 ms apart, for a lock found held.
  static let lockAttempts = 25

  /// Takes an exclusive lock on the output folder: two builds writing one folder would mix.
  ///
  /// A lock found held is asked for again a few times over about half a second before the
  /// build gives up: a process another thread of this program starts (`serve`'s rebuilds, the
  /// remover of an old site) holds a copy of every descriptor open at that moment until it
  /// runs its program, so a folder an earlier build of this process has just let go of can
  /// stay locked for that long.
  static func lock(_ rootFD: Int32, _ displayRoot: String) throws(OutputError) {
    var attempts = 0
    while flock(rootFD, LOCK_EX | LOCK_NB) != 0 {
      let error = SystemError.current
      if error.code == EWOULDBLOCK, attempts < lockAttempts {
        attempts += 1
        usleep(20_000)
        continue
      }
      if error.code == EWOULDBLOCK {
        throw OutputError(
          path: displayRoot,
          reason: "another taskpress build is writing to this folder; wait for it to finish")
      }
      throw OutputError(path: displayRoot, reason: error.reason)
    }
  }

  /// Reads the state folder: the manifest, the marker of an interrupted commit; cleans leftovers.
  private static func loadState(_ statePath: String) throws(OutputError) -> (
    manifest: Manifest, manifestHash: ContentHash?, repairing: Bool, stateFolderFD: Int32,
    key: HashKey?
  ) {
    let folderFD: Int32
    do throws(SystemError) {
      guard let fd = try FileSystem.openDirectory(AT_FDCWD, statePath) else {
        return (Manifest(), nil, false, -1, nil)
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
          manifest.files.merge(pending.files)
          manifest.folders.formUnion(pending.folders)
          try writeManifest(manifest, folderFD, statePath)
        }
      }
      unlinkat(folderFD, pendingManifestName, 0)
      unlinkat(folderFD, temporaryManifestName, 0)
      FileSystem.removeTree(folderFD, stagingFolder)
      // Old sites a swap left (their remover may still be running): freed in the background,
      // not in this build's way; a build that exchanges folders frees them first.
      if FileSystem.statNoFollow(folderFD, FolderSwap.trashFolder) != nil {
        FolderSwap.freeTrashInBackground(statePath)
      }
      let key = readStateFile(folderFD, HashKey.fileName).flatMap(HashKey.init(bytes:))
      return (manifest, repairing ? nil : manifestHash, repairing, folderFD, key)
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

  /// Writes `manifest` as the state folder's `manifest` atomically (temporary file, then rename).
  static func writeManifest(_ manifest: Manifest, _ folderFD: Int32, _ statePath: String)
    throws(OutputError)
  {
    try writeManifest(manifest.serialized(), folderFD, statePath)
  }

  /// Writes the manifest text `bytes` as the state folder's `manifest` atomically.
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

  /// Creates or truncates `name` in `folderFD` with what `produce` writes to its descriptor
  /// (a manifest streamed, `Manifest.write`), and returns what `produce` returns.
  static func writeFile<R>(
    _ folderFD: Int32, _ name: String, _ statePath: String,
    _ produce: (Int32) throws(SystemError) -> R
  ) throws(OutputError) -> R {
    let path = statePath + "/" + name
    let fd = openat(folderFD, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o666)
    guard fd >= 0 else { throw OutputError(path: path, reason: SystemError.current.reason) }
    let result: R
    do throws(SystemError) {
      result = try produce(fd)
    } catch {
      close(fd)
      unlinkat(folderFD, name, 0)
      throw OutputError(path: path, reason: error.reason)
    }
    close(fd)
    return result
  }

  // MARK: - Paths

  /// The path of `relative` as the user would type it, e.g. `site/todos/3.html`.
  func display(_ relative: String) -> String {
    if relative.isEmpty { return displayRoot }
    return displayRoot == "/" ? "/" + relative : displayRoot + "/" + relative
  }
}
