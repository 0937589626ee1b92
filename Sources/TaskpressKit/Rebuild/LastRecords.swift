/// The records the last build's commit left in the state folder for the manifest on disk
/// (`StateRecords`): the inputs, the photos, the pages' fingerprints, the rows and the social
/// card. The one reader of them: read after the output folder is locked and its manifest
/// loaded, each under the header of the records in force (`OutputWriter.recordsHeader`), so
/// that a record of another manifest, or of a commit stopped among its record writes, is never
/// taken (nil: the plain path runs). `LastBuild` makes it once (`LastBuild.load(from:)`) and the
/// build's parts take what it read from there.
///
/// The inputs record, which decides whether the build stops early, is read at once. The others,
/// larger (the fingerprints of a million pages are 16 MB) and needed only by a build that goes
/// on, are each read when their one user asks (`photos()`: the photos' thread, `pages(_:)`:
/// `LastPages`, `card()`: the social card), and not held here. The to-dos' copy record and the
/// snapshots are read with the previous build's data (`LastBuild`), under the same header.
struct LastRecords: Sendable {
  /// The header of the records in force for the manifest on disk; nil when none is.
  let header: [UInt8]?
  /// What the last build recorded of its inputs (`InputsRecord`).
  let inputs: InputsRecord?
  private let writer: OutputWriter?

  /// Nothing recorded.
  init() {
    header = nil
    inputs = nil
    writer = nil
  }

  /// Reads the records of `writer`'s folder, locked and its manifest loaded.
  init(writer: OutputWriter) {
    self.writer = writer
    header = writer.recordsHeader
    inputs = writer.previousRecord(OutputWriter.inputsName)
      .flatMap { InputsRecord(String(decoding: $0, as: UTF8.self)) }
  }

  /// The photos' record (`PhotoRecord`).
  func photos() -> PhotoRecord? {
    writer?.previousRecord(PhotoRecord.fileName).flatMap(PhotoRecord.init(bytes:))
  }

  /// The pages' fingerprints, and with `rows`, the rows' record, which is of use only with
  /// them (`LastPages`).
  func pages(rows: Bool) -> (fingerprints: FingerprintRecord?, rows: RowRecord?) {
    guard
      let fingerprints = writer?.previousRecord(FingerprintRecord.fileName)
        .flatMap(FingerprintRecord.init(bytes:))
    else { return (nil, nil) }
    guard rows else { return (fingerprints, nil) }
    return (
      fingerprints, writer?.previousRecord(RowRecord.fileName).flatMap(RowRecord.init(bytes:))
    )
  }

  /// The search index's record (`SearchRecord`).
  func search() -> SearchRecord? {
    writer?.previousRecord(SearchRecord.fileName).flatMap(SearchRecord.init(bytes:))
  }

  /// The social card's record (`Build.cardRecordBytes`).
  func card() -> [UInt8]? {
    writer?.previousRecord(Build.cardRecordName)
  }

  /// The inputs key the state folder of the output folder `output` holds, read before the folder
  /// is locked, on purpose: without the lock, nor the check that the record belongs to the
  /// manifest there, it is only a guess, by which a build decides what to start reading early
  /// (`Build.BuildRun.init(opening:)`). The build decides whether it stops by the record read
  /// under the lock (`inputs`), never by this. Nil when there is none.
  static func unverifiedInputsKey(ofOutput output: String) -> String? {
    guard let bytes = OutputWriter.unverifiedStateFile(OutputWriter.inputsName, ofOutput: output),
      let newline = bytes.firstIndex(of: UInt8(ascii: "\n"))
    else { return nil }
    return InputsRecord.key(of: String(decoding: bytes[(newline + 1)...], as: UTF8.self))
  }
}
