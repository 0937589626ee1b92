extension OutputWriter {
  /// Makes room for the records of about `files` files (of `pathBytes` bytes of paths in all)
  /// before they are added: a large site's records then never grow by copying themselves
  /// (twice the memory for a moment, each time). A guess too small or too large only costs
  /// that.
  public func reserveCapacity(files: Int, pathBytes: Int) {
    state.withLock { s in
      s.records.reserveCapacity(files, pathBytes: pathBytes)
      s.paths.reserveCapacity(files)
    }
  }

  /// The files added to a build, in the order `add` was called (`State.records`), packed in a
  /// few arrays: the paths' bytes one after the other, and each file's folder plan, what was
  /// staged and its manifest entry as plain numbers. About 45 bytes and the path a file, where
  /// a `[Record]` took over 120 (a record of 72 bytes and its path as a `String` of its own):
  /// a site of a million files keeps a million of them until the commit.
  ///
  /// A file is read and written as a `Record`; the commit and the path table read paths in
  /// place (`withPath`, `hasPath`) without making a `String` of each.
  struct RecordTable {
    /// The paths, one after the other; path `i` ends at `pathEnds[i]`.
    private var pathBytes: [UInt8] = []
    private var pathEnds: [UInt32] = []
    private var plans: [Int32] = []
    private var kinds: [Kind] = []
    /// Of a staged file (else 0): its manifest entry, and the number of its flat staging name.
    private var hashes: [KeyedHash] = []
    private var sizes: [Int] = []
    private var modified: [Int64] = []
    private var flatNames: [UInt32] = []

    private enum Kind: UInt8 {
      /// `kept` is unchanged and kept without its bytes (`keep(_:)`): a file of the manifest.
      case pending, unchanged, kept, writtenFlat, writtenInFolderCopy
    }

    init() {}

    /// How many files.
    var count: Int { pathEnds.count }

    var indices: Range<Int> { 0..<count }

    /// Adds `record` at the end.
    mutating func append(_ record: Record) {
      var path = record.path
      path.withUTF8 { pathBytes.append(contentsOf: $0) }
      precondition(pathBytes.count <= Int(UInt32.max), "more than 4 GB of paths in one build")
      pathEnds.append(UInt32(pathBytes.count))
      plans.append(0)
      kinds.append(.pending)
      hashes.append(.zero)
      sizes.append(0)
      modified.append(0)
      flatNames.append(0)
      set(count - 1, staged: record.staged, plan: record.plan)
    }

    /// Makes room for `files` in all, so that the arrays are not copied to grow.
    mutating func reserveCapacity(_ files: Int, pathBytes bytes: Int) {
      pathBytes.reserveCapacity(bytes)
      pathEnds.reserveCapacity(files)
      plans.reserveCapacity(files)
      kinds.reserveCapacity(files)
      hashes.reserveCapacity(files)
      sizes.reserveCapacity(files)
      modified.reserveCapacity(files)
      flatNames.reserveCapacity(files)
    }

    /// Removes the last `n` files.
    mutating func removeLast(_ n: Int) {
      guard n > 0 else { return }
      pathBytes.removeLast(pathBytes.count - (count > n ? Int(pathEnds[count - n - 1]) : 0))
      pathEnds.removeLast(n)
      plans.removeLast(n)
      kinds.removeLast(n)
      hashes.removeLast(n)
      sizes.removeLast(n)
      modified.removeLast(n)
      flatNames.removeLast(n)
    }

    /// The file at `index`.
    subscript(index: Int) -> Record {
      Record(path: path(index), plan: plan(index), staged: staged(index))
    }

    /// Records what was staged for the file at `index`, and its folder's plan; `kept` for an
    /// unchanged file kept without its bytes.
    mutating func set(_ index: Int, staged: Staged, plan: Int, kept: Bool = false) {
      plans[index] = Int32(truncatingIfNeeded: plan)
      switch staged {
      case .pending:
        kinds[index] = .pending
        store(index, Manifest.Entry(hash: .zero, size: 0, modified: 0))
        flatNames[index] = 0
      case .unchanged(let entry):
        kinds[index] = kept ? .kept : .unchanged
        store(index, entry)
        flatNames[index] = 0
      case .written(let entry, .flat(let number)):
        precondition(number >= 0 && number <= Int(UInt32.max), "more than 2^32 staged files")
        kinds[index] = .writtenFlat
        store(index, entry)
        flatNames[index] = UInt32(number)
      case .written(let entry, .inFolderCopy):
        kinds[index] = .writtenInFolderCopy
        store(index, entry)
        flatNames[index] = 0
      }
    }

    private mutating func store(_ index: Int, _ entry: Manifest.Entry) {
      hashes[index] = entry.hash
      sizes[index] = entry.size
      modified[index] = entry.modified
    }

    /// The path of the file at `index`.
    func path(_ index: Int) -> String {
      withPath(index) { String(decoding: $0, as: UTF8.self) }
    }

    /// Hands the UTF-8 bytes of the path of the file at `index` to `body`.
    func withPath<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
      let start = index == 0 ? 0 : Int(pathEnds[index - 1])
      return pathBytes.withUnsafeBufferPointer {
        body(UnsafeBufferPointer(rebasing: $0[start..<Int(pathEnds[index])]))
      }
    }

    /// Whether the file at `index` has the path `path`.
    func hasPath(_ index: Int, _ path: String) -> Bool {
      var path = path
      return path.withUTF8 { wanted in withPath(index) { $0.elementsEqual(wanted) } }
    }

    /// The folder plan of the file at `index` (its place in `State.plans`).
    func plan(_ index: Int) -> Int { Int(plans[index]) }

    /// Whether the file at `index` is still being added.
    func isPending(_ index: Int) -> Bool { kinds[index] == .pending }

    /// Whether the file at `index` was kept without its bytes: it is in the previous manifest.
    func isKept(_ index: Int) -> Bool { kinds[index] == .kept }

    /// Whether the file at `index` was written to the staging area (not found unchanged).
    func isWritten(_ index: Int) -> Bool {
      kinds[index] == .writtenFlat || kinds[index] == .writtenInFolderCopy
    }

    /// What was staged for the file at `index`.
    func staged(_ index: Int) -> Staged {
      switch kinds[index] {
      case .pending: .pending
      case .unchanged, .kept: .unchanged(entry(index))
      case .writtenFlat: .written(entry(index), stagingName: .flat(Int(flatNames[index])))
      case .writtenInFolderCopy: .written(entry(index), stagingName: .inFolderCopy)
      }
    }

    /// The manifest entry of the file at `index`, once it is staged.
    func entry(_ index: Int) -> Manifest.Entry {
      Manifest.Entry(
        hash: hashes[index], size: sizes[index], modified: modified[index])
    }
  }
}
