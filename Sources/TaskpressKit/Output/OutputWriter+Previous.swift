import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension OutputWriter {
  /// How many files the previous build wrote.
  public var previousFileCount: Int { previous.files.count }

  /// Whether every file the previous build wrote is still there as it left it: a regular file
  /// (not a link) whose stamp matches (`FileStamp`), or whose bytes have the recorded keyed
  /// hash and whose modification time is the recorded one (one read and in memory, where the
  /// stamp is unsure: a file written within a tick of the last build's start, or touched). One
  /// `stat` per file. A file whose modification time moved (a site restored by `cp -r`) is not
  /// intact here: the build that follows records it stamped again.
  public func previousFilesAreIntact() -> Bool {
    guard !repairing, !previous.files.isEmpty else { return false }
    guard previousFiles(notAsLeft: .first).isEmpty else { return false }
    let restamped = state.withLock { $0.restamped }
    return restamped.allSatisfy { previous.files.entry(Int($0.key)) == $0.value }
  }

  /// Records that every file of the manifest on disk was found as left by this build
  /// (`previousFilesAreIntact()` was true), so that the next build trusts the stamps of those
  /// it had to read: `stampedAt` becomes this build's start, tied to the same manifest. For a
  /// build that stops there without a commit.
  public func recordIntactFiles() {
    guard !repairing, let manifestHash = previousManifestHash else { return }
    recordStateFile(
      Self.stampedFileName, Array((manifestHash.hex + "\n" + String(openedAt)).utf8))
  }

  /// The state file `name` of the output folder `output` as it stands, read before the folder
  /// is opened and locked, and without the check that it belongs to the manifest there: only
  /// for a guess (`LastRecords.unverifiedInputsKey(ofOutput:)`), never for what a build keeps.
  /// Nil when there is none.
  static func unverifiedStateFile(_ name: String, ofOutput output: String) -> [UInt8]? {
    guard let statePath = stateFolder(ofOutput: output) else { return nil }
    let stateFD = open(statePath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard stateFD >= 0 else { return nil }
    defer { close(stateFD) }
    return readSmallFile(stateFD, name)
  }

  /// The key in the state folder of the output folder `output` as it stands, read before the
  /// folder is opened and locked: only for a guess, as `unverifiedStateFile(_:ofOutput:)`. Nil
  /// when there is none.
  public static func unverifiedKey(ofOutput output: String) -> HashKey? {
    unverifiedStateFile(HashKey.fileName, ofOutput: output).flatMap(HashKey.init(bytes:))
  }

  /// Records `inputs` for the manifest on disk, for a build that stops without a commit (the
  /// folder is locked): under the header of the records in force, or, when none is, a new one
  /// whose index names this record alone. Best effort: without the record the next build only
  /// does more work.
  public func recordInputs(_ inputs: String) {
    let stateFD = state.withLock { $0.stateFolderFD }
    guard !repairing, stateFD >= 0, let manifestHash = previousManifestHash else { return }
    let bytes = Array(inputs.utf8)
    if let recordsHeader {
      _ = replaceStateFile(stateFD, Self.inputsName, recordsHeader + bytes)
      return
    }
    let header = StateRecords.header(
      manifest: manifestHash, generation: UInt64.random(in: 1...UInt64.max))
    if !replaceStateFile(stateFD, Self.inputsName, header + bytes)
      || !replaceStateFile(stateFD, StateRecords.indexName, header)
    {
      unlinkat(stateFD, StateRecords.indexName, 0)
    }
  }

  private static func readSmallFile(_ folderFD: Int32, _ name: String) -> [UInt8]? {
    let fd = openat(folderFD, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_size < 1 << 28 else { return nil }
    return try? FileSystem.readAll(fd, expected: Int(info.st_size))
  }

  static let inputsName = "inputs"
}
