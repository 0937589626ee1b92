/// What the build that wrote the site left for the next one to keep its pages by: the
/// fingerprints and rows it recorded, and which of its files are no longer as it left them.
/// `KeepPlan` decides from it which pages are rendered, kept or carried over.
///
/// A build that reads its sources looks at these while it reads them
/// (`RenderPaths.earlyFileCheck`): the `stat` of every file is most of the work, and the
/// reading leaves a core free for it. Without, it looks when the pages are staged. Either way
/// the pages are staged from the same values.
struct LastPages: Sendable {
  /// The recorded fingerprints (`RenderPaths.incremental`).
  var fingerprints: FingerprintRecord?
  /// The recorded rows, with the fingerprints (`RenderPaths.dependents`).
  var rows: RowRecord?
  /// The keys (`FingerprintRecord.key`) of the last build's files that are not as it left
  /// them, when its pages are carried over (`RenderPaths.carryOver`, with the fingerprints);
  /// else nil.
  var changedFiles: Set<UInt64>?

  /// Nothing recorded: every page rendered.
  init() {}

  /// Takes what the last build recorded beside the manifest of `writer`'s folder (`records`,
  /// read for this build by `LastBuild`), for a build with `paths`, and checks its files when
  /// they are carried over.
  init(_ records: LastRecords, writer: OutputWriter, paths: RenderPaths) {
    guard paths.contains(.incremental) else { return }
    let recorded = records.pages(rows: paths.contains(.dependents))
    guard let fingerprints = recorded.fingerprints else { return }
    self.fingerprints = fingerprints
    rows = recorded.rows
    if paths.contains(.carryOver) {
      changedFiles = Set(
        writer.previousFilesChanged().map(PathKeys.Keying.fingerprintRecord.key(of:)))
    }
  }
}
