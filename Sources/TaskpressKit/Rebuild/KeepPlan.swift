/// Which pages a rebuild renders, which it keeps and which it carries over, and why: a value
/// made of what the last build left (`LastPages`) and the rebuild switches, with no file read
/// and no writer.
///
/// A page whose fresh fingerprint is the one the last build recorded for its file is not
/// rendered. With the keys of the last build's files that are not as it left them
/// (`RenderPaths.carryOver`), such a page is carried over with the others
/// (`OutputWriter.carryOver(_:)`) unless its file is among those; without, it is kept if the
/// writer finds its file as that build left it (`OutputWriter.keep`), else rendered. With
/// `RenderPaths.dependents`, the rows the last build recorded and no file changed, the pages
/// that show to-dos and no changed row (`PageFingerprints.pages(showingChangesSince:)`) are not
/// staged at all: they are carried over unlooked at.
///
/// The plain twin, `renderEverything`, renders every page: it is the plan of a build without
/// `RenderPaths.incremental`, and of a rebuild that finds nothing recorded.
struct KeepPlan: Sendable {
  /// What a rebuild does with a page.
  enum Decision: Sendable, Equatable {
    /// Rendered and handed to the writer.
    case render
    /// Kept as it is if the writer finds its file as the last build left it
    /// (`OutputWriter.keep`), else rendered.
    case keep
    /// Left to the writer with the other pages carried over (`OutputWriter.carryOver(_:)`):
    /// its file is known to be as the last build left it.
    case carry
  }

  /// The fingerprints the last build recorded; nil: every page is rendered.
  let recorded: FingerprintRecord?
  /// The keys (`FingerprintRecord.key`) of the last build's files that are not as it left
  /// them, when the pages kept are carried over; nil: each is kept on its own.
  let changedFiles: Set<UInt64>?
  /// The pages that show to-dos and may have changed, when the others that show to-dos are
  /// known not to have (`RenderPaths.dependents`); nil: every page is staged.
  let looked: Set<SitePlan.Page>?

  /// The plain twin: every page rendered.
  static let renderEverything = KeepPlan(recorded: nil, changedFiles: nil, looked: nil)

  /// The plan of a rebuild that found `recorded`, with `changedFiles` when the pages are
  /// carried over and `looked` when only those pages are staged among those that show to-dos.
  ///
  /// `changedFiles` counts only with `recorded`, and `looked` only with no changed file: a
  /// file not as it was left could be any page's.
  init(recorded: FingerprintRecord?, changedFiles: Set<UInt64>?, looked: Set<SitePlan.Page>?) {
    self.recorded = recorded
    self.changedFiles = recorded == nil ? nil : changedFiles
    self.looked = self.changedFiles?.isEmpty == true ? looked : nil
  }

  /// The plan of a build with `paths`, of `pages`, given what the last build left (`last`)
  /// and this build's fingerprints: `renderEverything` without `RenderPaths.incremental` or
  /// without recorded fingerprints.
  ///
  /// The pages that show to-dos are narrowed to those that show a changed row only when the
  /// record is of this build's pages (the layout is the recorded one, and so is the count of
  /// pages fingerprinted).
  init(
    last: LastPages, pages: SitePlan.PageList, fingerprints: PageFingerprints, paths: RenderPaths
  ) {
    guard paths.contains(.incremental), let recorded = last.fingerprints else {
      self = .renderEverything
      return
    }
    let changedFiles = paths.contains(.carryOver) ? last.changedFiles : nil
    let looked =
      changedFiles?.isEmpty == true && paths.contains(.dependents)
        && recorded.count == pages.count(where: PageFingerprints.hasFingerprint)
      ? last.rows.flatMap(fingerprints.pages(showingChangesSince:)) : nil
    self.init(recorded: recorded, changedFiles: changedFiles, looked: looked)
  }

  /// Whether the pages kept are carried over as a whole (else each is kept on its own).
  var carries: Bool { changedFiles != nil }

  /// Whether only `looked` is staged among the pages that show to-dos: the pages carried over
  /// are then every recorded one but those rendered.
  var narrows: Bool { looked != nil }

  /// The record this build's fingerprints update in place, when not every page is
  /// fingerprinted (`narrows`); else nil, and the record is made of this build's alone.
  var basis: FingerprintRecord? { narrows ? recorded : nil }

  /// Whether `page` is staged (fingerprinted, and rendered or kept); a page not staged is
  /// carried over unlooked at.
  func stages(_ page: SitePlan.Page) -> Bool {
    guard let looked else { return true }
    return !PageFingerprints.showsTodoRowsOnly(page) || looked.contains(page)
  }

  /// What to do with the page whose file's key is `key` (`FingerprintRecord.key`) and whose
  /// fresh fingerprint is `fingerprint` (nil: the page has none, and is rendered).
  func decision(key: UInt64, fingerprint: KeyedHash?) -> Decision {
    guard let recorded, let fingerprint, recorded[key: key] == fingerprint else { return .render }
    guard let changedFiles else { return .keep }
    return changedFiles.contains(key) ? .render : .carry
  }

  /// What to do with the page of `file` whose fresh fingerprint is `fingerprint`.
  func decision(file: String, fingerprint: KeyedHash?) -> Decision {
    decision(key: FingerprintRecord.key(file), fingerprint: fingerprint)
  }

  /// The keys of the files the writer carries over, when the plan `carries`: with `narrows`,
  /// every recorded key but `rendered` (the keys of the staged pages with a fingerprint that
  /// were rendered), as the pages are those the record was made of; else `carried` (the keys
  /// of the pages decided `.carry`). Nil when the plan does not carry.
  func carriedKeys(carried: [UInt64], rendered: [UInt64]) -> [UInt64]? {
    guard carries, let recorded else { return nil }
    guard narrows else { return carried }
    let rendered = Set(rendered)
    return recorded.keys.filter { !rendered.contains($0) }
  }
}
