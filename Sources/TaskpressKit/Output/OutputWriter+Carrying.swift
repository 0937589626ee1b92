import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension OutputWriter {
  // MARK: - Carrying files over without naming them

  /// The files of the previous build that are no longer as it left them: not a regular file
  /// (a link, a folder, gone), with another size, or whose stamp does not match
  /// (`FileStamp`) and whose bytes have not the recorded keyed hash. One `stat` per file, on
  /// two threads for a large site; a file is read only when its stamp does not match (a site
  /// restored by `cp -r`), and then stamped again at the commit. Every file when the
  /// previous commit was interrupted (`repairing`): then none can be trusted.
  public func previousFilesChanged() -> [String] {
    guard !repairing else { return previous.files.paths }
    return previousFiles(notAsLeft: .all).map(previous.files.path)
  }

  /// Keeps at the commit, as they are, the files of the previous build that `carried` names
  /// (the writer takes each path's key and looks it up), and that no call of `add` or `keep`
  /// named (those count as added): like files kept with `keep(_:)`, they count as unchanged and
  /// stay in the manifest with their entries, but without a claim, a `stat` or a record each,
  /// which a site of 100,000 pages of which a few changed spends most of a `keep` of each on.
  ///
  /// The caller vouches for their bytes, and has checked that each file is still as the
  /// previous build left it (`previousFilesChanged()`): the writer does not look at them again.
  /// Nothing is carried over while repairing. Call it before `commit()`; a later call replaces
  /// an earlier one.
  ///
  /// The commit checks that each key names a file of the previous build (carried over, or
  /// added), and otherwise fails before anything changes (a file the caller did not add is not
  /// the last build's: the site would lack it).
  public func carryOver(_ carried: PathKeys) {
    guard !repairing else { return }
    state.withLock { $0.carried = carried }
  }

  /// How far `previousFiles(notAsLeft:)` looks.
  enum Scan {
    /// To the first file that is not as left.
    case first
    /// Every file.
    case all
  }

  /// The numbers, in the previous manifest, of its files that are not as the previous build
  /// left them (see `previousFilesChanged()`), in order; with `.first`, at most one of them.
  /// Every file when the output folder cannot be opened.
  func previousFiles(notAsLeft scan: Scan) -> [Int] {
    let files = previous.files
    guard !files.isEmpty else { return [] }
    let rootFD: Int32? = state.withLock { state in
      if case .open(let fd) = state.folders[""] { return fd }
      return nil
    }
    guard let rootFD else { return Array(files.indices) }
    // Two threads for a large site: the `stat`s are most of a rebuild with nothing changed.
    let threads = files.count >= 4096 ? 2 : 1
    let found = Mutex<[Int]>([])
    let stop = Atomic<Bool>(false)
    DispatchQueue.concurrentPerform(iterations: threads) { part in
      let range = (files.count * part / threads)..<(files.count * (part + 1) / threads)
      var changed: [Int] = []
      for index in range {
        if scan == .first, stop.load(ordering: .relaxed) { break }
        var info = stat()
        let entry = files.entry(index)
        guard files.withCPath(index, { fstatat(rootFD, $0, &info, AT_SYMLINK_NOFOLLOW) }) == 0,
          info.isRegularFile, Int(info.st_size) == entry.size,
          stampMatches(info, entry) || restampPrevious(rootFD, index)
        else {
          changed.append(index)
          if scan == .first {
            stop.store(true, ordering: .relaxed)
            break
          }
          continue
        }
      }
      if !changed.isEmpty { found.withLock { $0 += changed } }
    }
    let all = found.withLock { $0 }.sorted()
    return scan == .first ? Array(all.prefix(1)) : all
  }

  /// The files of the previous manifest that the commit of `taken` carries over
  /// (`carryOver(_:)`) and those it removes, each as their numbers in that manifest in its
  /// order; a file of `taken` is neither. Without `taken.carried`, none is carried over.
  /// `named`: how many files of the previous manifest `taken.carried` names, carried or added.
  func carriedAndStale(_ taken: Taken) -> (carried: [Int32], stale: [Int32], named: Int) {
    let files = previous.files
    let records = taken.records
    // The previous build's files that this one added (a few, in a rebuild that carries over).
    var addedFiles = [Bool](repeating: false, count: files.count)
    for index in records.indices where !records.isPending(index) {
      if let number = records.withPath(index, files.number(ofBytes:)) { addedFiles[number] = true }
    }
    let added = addedFiles
    let carriedKeys = taken.carried
    // The files added that the keys name too (added wins): named all the same.
    var namedAdded = 0
    if let carriedKeys {
      for index in added.indices where added[index] {
        if files.withPath(index, carriedKeys.contains(path:)) { namedAdded += 1 }
      }
    }
    // Each path's key is taken and looked up: on two threads for a large site, each taking
    // half the files.
    let threads = files.count >= 4096 ? 2 : 1
    let parts = Mutex([(carried: [Int32], stale: [Int32])](repeating: ([], []), count: threads))
    DispatchQueue.concurrentPerform(iterations: threads) { part in
      var carried: [Int32] = []
      var stale: [Int32] = []
      for index in (files.count * part / threads)..<(files.count * (part + 1) / threads)
      where !added[index] {
        if files.withPath(index, { carriedKeys?.contains(path: $0) ?? false }) {
          carried.append(Int32(truncatingIfNeeded: index))
        } else {
          stale.append(Int32(truncatingIfNeeded: index))
        }
      }
      parts.withLock { $0[part] = (carried, stale) }
    }
    let found = parts.withLock { $0 }
    let carried = found.flatMap(\.carried)
    return (carried, found.flatMap(\.stale), carried.count + namedAdded)
  }
}

extension OutputWriter {
  /// The files a commit records in its manifest, in byte order: those added to the build
  /// (numbers in its records) merged with those carried over (numbers in the previous manifest).
  struct ListedFiles {
    private let records: RecordTable
    private let previous: Manifest.Files
    /// Each file in order: a number in `records`, or `~n` (below zero) for number `n` of
    /// `previous`. Without files carried over, the added files' numbers as they were given.
    private let order: [Int32]
    /// The files carried over, in byte order.
    private let carried: [Int32]

    /// The files `added` (numbers in `records`, in byte order of their paths) and `carried`
    /// (numbers in `previous`, none of them the path of an added file; in any order).
    /// Entries of carried files stamped again (`OutputWriter.restampPrevious`), by number.
    private let restamped: [Int32: Manifest.Entry]

    init(
      added: [Int32], carried: [Int32], records: RecordTable, previous: Manifest.Files,
      restamped: [Int32: Manifest.Entry] = [:]
    ) {
      self.records = records
      self.previous = previous
      self.restamped = restamped
      guard !carried.isEmpty else {
        order = added
        self.carried = []
        return
      }
      // A manifest is written in byte order, and so read: the carried files are in that order
      // unless the manifest was made otherwise (then they are sorted).
      var sortedCarried = carried
      let inOrder = zip(carried, carried.dropFirst()).allSatisfy { first, second in
        previous.withPath(Int(first)) { a in
          previous.withPath(Int(second)) { b in a.lexicographicallyPrecedes(b) }
        }
      }
      if !inOrder {
        sortedCarried = OutputPath.byteOrder32(carried.count) { position, body in
          previous.withPath(Int(carried[position]), body)
        }.map { carried[Int($0)] }
      }
      self.carried = sortedCarried
      var merged: [Int32] = []
      merged.reserveCapacity(added.count + carried.count)
      var next = 0
      for number in sortedCarried {
        previous.withPath(Int(number)) { path in
          while next < added.count,
            records.withPath(Int(added[next]), { $0.lexicographicallyPrecedes(path) })
          {
            merged.append(added[next])
            next += 1
          }
        }
        merged.append(~number)
      }
      merged += added[next...]
      order = merged
    }

    /// How many files.
    var count: Int { order.count }

    /// Calls `body` with the path's UTF-8 bytes and the manifest entry of the file at
    /// `position`.
    func withFile<R>(
      _ position: Int, _ body: (UnsafeBufferPointer<UInt8>, Manifest.Entry) -> R
    ) -> R {
      let number = Int(order[position])
      if number >= 0 {
        return records.withPath(number) { body($0, records.entry(number)) }
      }
      let entry = restamped[Int32(truncatingIfNeeded: ~number)] ?? previous.entry(~number)
      return previous.withPath(~number) { body($0, entry) }
    }

    /// The folders of the files carried over (`""` for the output folder's own), each once.
    func carriedFolders() -> Set<String> {
      var folders = Set<String>()
      var last: [UInt8]?
      for number in carried {
        previous.withPath(Int(number)) { path in
          let end = path.lastIndex(of: UInt8(ascii: "/")) ?? path.startIndex
          let folder = UnsafeBufferPointer(rebasing: path[path.startIndex..<end])
          guard last.map({ !$0.elementsEqual(folder) }) ?? true else { return }
          last = Array(folder)
          folders.insert(String(decoding: folder, as: UTF8.self))
        }
      }
      return folders
    }
  }
}
