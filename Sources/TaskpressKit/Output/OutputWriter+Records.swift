#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension OutputWriter {
  // MARK: - The records of the state folder (`StateRecords`)

  /// Hands the writer the records the commit writes into the state folder, tied to the
  /// manifest it leaves, before the folder's lock is released. Call it before `commit()`; a
  /// writer given none leaves the records there as they are (those of another manifest are
  /// ignored by the next build).
  func setRecords(_ records: StateRecords) {
    state.withLock { $0.stateRecords = records }
  }

  /// The record `name` as the previous build's commit left it for the manifest on disk; nil when
  /// there is none, or it is not of the records in force (`recordsHeader`). Bytes only: what
  /// they say is read by `LastRecords`, the one reader of the records.
  func previousRecord(_ name: String) -> [UInt8]? {
    let stateFD = state.withLock { $0.stateFolderFD }
    guard recordsHeader != nil, stateFD >= 0, let bytes = Self.readStateFile(stateFD, name)
    else { return nil }
    return StateRecords.body(bytes, header: recordsHeader)
  }

  /// Writes the records handed to `setRecords`, each a temporary file renamed into place, then
  /// the index naming them (`StateRecords`), tied to the manifest of `manifest` that the commit
  /// just left: called by the commit, under the folder's lock. A record that cannot be written
  /// removes the index, so that no record is trusted (the next build only does more work).
  /// `recordStepLimit` stops it as if the process had been killed (tests only).
  func writeRecords(_ stateFD: Int32, manifest: ContentHash?) throws(OutputError) {
    guard let records = state.withLock({ $0.stateRecords.take() }) else { return }
    guard let manifest else {
      unlinkat(stateFD, StateRecords.indexName, 0)
      return
    }
    let header = StateRecords.header(
      manifest: manifest, generation: UInt64.random(in: 1...UInt64.max))
    var steps = 0
    func step(_ name: String) throws(OutputError) {
      if let limit = recordStepLimit, steps >= limit {
        throw OutputError(path: statePath, reason: "commit stopped after \(limit) records")
      }
      steps += 1
      recordWritten?(name)
    }
    var files = records.files
    // The copy's identity, taken now: no other build can replace the copy before the unlock.
    // Written in place of the record's zeros as the file is written: a million rows' record is
    // not copied to set it.
    var identity: [UInt64]?
    if let copy = records.todoCopy {
      identity = TodoCopyRecord.identity(ofFile: display(copy.path))
    }
    let copyPosition = files.count
    if let copy = records.todoCopy, identity != nil {
      files.append((TodoCopyRecord.fileName, copy.bytes))
    } else {
      files.append((TodoCopyRecord.fileName, nil))
    }
    for (position, (name, bytes)) in files.enumerated() {
      try step(name)
      guard let bytes else {
        unlinkat(stateFD, name, 0)
        continue
      }
      let patch = position == copyPosition ? identity : nil
      guard replaceStateFile(stateFD, name, header: header, bytes, identity: patch) else {
        unlinkat(stateFD, StateRecords.indexName, 0)
        return
      }
    }
    try step(StateRecords.indexName)
    if !replaceStateFile(stateFD, StateRecords.indexName, header) {
      unlinkat(stateFD, StateRecords.indexName, 0)
    }
  }

  /// Writes `bytes` as the state file `name`, atomically (a temporary file, then a rename); false
  /// when that fails.
  func replaceStateFile(_ stateFD: Int32, _ name: String, _ bytes: [UInt8]) -> Bool {
    replaceStateFile(stateFD, name, header: [], bytes, identity: nil)
  }

  /// Writes `header` then `bytes` as the state file `name`, as `replaceStateFile(_:_:_:)` does,
  /// without joining them in memory; with `identity`, `bytes` are a `TodoCopyRecord` written
  /// with that identity (`TodoCopyRecord.withIdentity`).
  func replaceStateFile(
    _ stateFD: Int32, _ name: String, header: [UInt8], _ bytes: [UInt8], identity: [UInt64]?
  ) -> Bool {
    let temporary = name + ".tmp"
    do {
      try Self.writeFile(stateFD, temporary, statePath) { (fd) throws(SystemError) in
        try FileSystem.writeAll(fd, header)
        if let identity {
          try TodoCopyRecord.withIdentity(identity, of: bytes) { (part) throws(SystemError) in
            try FileSystem.writeAll(fd, part)
          }
        } else {
          try FileSystem.writeAll(fd, bytes)
        }
      }
      guard renameat(stateFD, temporary, stateFD, name) == 0 else {
        unlinkat(stateFD, temporary, 0)
        return false
      }
      return true
    } catch {
      unlinkat(stateFD, temporary, 0)
      return false
    }
  }
}
