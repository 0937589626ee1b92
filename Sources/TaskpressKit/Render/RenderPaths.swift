import Foundation

/// The fast paths of page rendering, each of which can be switched off on its own: without
/// any of them a page is rendered the plain way (`ReferenceRenderer`), and the differential
/// tests build the same sites with every combination that matters and compare the bytes.
///
/// Set for a build by `BuildOptions.renderPaths`; the CLI reads `TASKPRESS_RENDER` (see
/// ``init(parsing:)``), for tests and debugging.
public struct RenderPaths: OptionSet, Sendable, Hashable, CustomStringConvertible {
  public let rawValue: Int

  public init(rawValue: Int) {
    self.rawValue = rawValue
  }

  /// Pages whose Markdown differs only in its values share one cmark parse
  /// (`MarkdownSharing`); off, cmark renders every page's Markdown.
  public static let markdownSharing = RenderPaths(rawValue: 1 << 0)
  /// The parts of a layout and body that show only `site`, `labels` and the folder's links are
  /// rendered once per folder (`SpecializedTemplates`); off, every page renders them.
  public static let specializedTemplates = RenderPaths(rawValue: 1 << 1)
  /// A render thread moves one set of to-do page values from page to page
  /// (`ReusedPageValues`) and keeps the last page's templates; off, each page's values are made
  /// afresh.
  public static let reusedValues = RenderPaths(rawValue: 1 << 2)
  /// A row's text and links are written into the page without making a string for them
  /// (`MustacheObject.text(forKey:_:)`); off, every value is made.
  public static let textHandover = RenderPaths(rawValue: 1 << 3)
  /// Pages go to the output writer 64 at a time (two locks per batch); off, one at a time.
  public static let batches = RenderPaths(rawValue: 1 << 4)
  /// A rebuild whose inputs are provably those of the last build (`InputsRecord`) reports the
  /// warnings recorded by the build that read the databases, without reading them again; off,
  /// such a rebuild reads the databases for their warnings.
  public static let recordedWarnings = RenderPaths(rawValue: 1 << 5)
  /// The to-dos' data copies go to the output 64 KiB at a time as they are written
  /// (`OutputWriter.openFile(_:)`); off, each is made whole in memory, then added.
  public static let streamedData = RenderPaths(rawValue: 1 << 6)
  /// A rebuild renders only the pages whose fingerprint (`PageFingerprints`) differs from the
  /// one recorded by the build that wrote the site, and keeps the others' files; off, every
  /// page is rendered and compared with the file on disk.
  public static let incremental = RenderPaths(rawValue: 1 << 7)
  /// The previous build's data copies, when they are in the form taskpress writes them, are
  /// read by `DataCopyReader` in one pass; off, `JSONDecoder` reads them.
  public static let copyReader = RenderPaths(rawValue: 1 << 8)
  /// The rows of the previous build and this one, both in key order, are paired for the
  /// changes in one walk (`ChangeDiff.pair`); off, by a dictionary of the previous rows.
  public static let keyOrderDiff = RenderPaths(rawValue: 1 << 9)

  /// A rebuild whose photos key (`Build.photosKey`) is the last build's publishes the photos
  /// that build recorded (`PhotoRecord`), keeping their files, without reading a photo; off,
  /// every photo is read, named by its content and published again.
  public static let recordedPhotos = RenderPaths(rawValue: 1 << 10)
  /// A rebuild compares the previous build's to-dos with this build's as soon as they are
  /// read, and lets go of the previous rows before the plan and the pages are made
  /// (`ChangeDiff.comparingTodos`); off, they are compared with the other sources after the
  /// pages.
  public static let earlyTodoDiff = RenderPaths(rawValue: 1 << 11)
  /// An incremental rebuild leaves the pages it does not render to the writer as a whole
  /// (`OutputWriter.carryOver(_:)`), after one `stat` of every file of the last build
  /// (`OutputWriter.previousFilesChanged()`); off, it keeps each page's file on its own
  /// (`OutputWriter.keep(_:)`), with a claim and a `stat` each.
  public static let carryOver = RenderPaths(rawValue: 1 << 12)
  /// An incremental rebuild that carries pages over and finds no file of the last build
  /// changed compares the to-dos' rows with those that build recorded (`RowRecord`), and makes
  /// the fingerprints of only the pages that show a changed row: the other pages that show
  /// to-dos keep their recorded fingerprints, unlooked at, and are carried over
  /// (`PageFingerprints.pages(showingChangesSince:)`); off, every page's fingerprint is made and
  /// compared.
  public static let dependents = RenderPaths(rawValue: 1 << 13)
  /// A rebuild that reads its sources reads the last build's records and checks its files
  /// (`LastPages`: a `stat` of each) on a thread of its own while it reads them; off, it does
  /// so once the sources are read and planned, when it stages the pages.
  public static let earlyFileCheck = RenderPaths(rawValue: 1 << 14)
  /// A rebuild whose `data/todos.json` is still the file the last build recorded
  /// (`TodoCopyRecord`: its identity, and each row's pk and hash) reads from it only the rows
  /// whose hash changed, for the record of changes (`TodoCopy.differingRows`); off, or with more
  /// than `TodoCopy.rowLimit` of them, it reads the whole copy.
  public static let recordedCopy = RenderPaths(rawValue: 1 << 15)
  /// A rebuild whose social card's SVG is the one the last build rendered (`card` in the state
  /// folder: its keyed hash and the libvips version) keeps `cards/summary.png` as that build
  /// left it, without rendering it; off, the card is rendered every build (and written only
  /// when its bytes changed).
  public static let recordedCard = RenderPaths(rawValue: 1 << 16)
  /// The photos' work is handed out in pieces (a group of photos read, named and published; a
  /// photo decoded) that the page threads take before their next page and while they wait for
  /// the photos (`StagingState.helpWithPhotos`): the photos get every core first; off, the
  /// photos are published by a thread of their own (the photos to decode on up to `--jobs`
  /// threads) beside the pages.
  public static let sharedPhotoWork = RenderPaths(rawValue: 1 << 17)
  /// A rebuild keeps each search shard (`SearchIndex`) whose rows hash as the last build
  /// recorded them (`SearchRecord`, `search` in the state folder) and whose file is as that build
  /// left it, with its recorded count and bitmap, and makes only the other shards from their
  /// rows; off, every shard is made from its rows (and written only when its bytes changed).
  public static let recordedSearch = RenderPaths(rawValue: 1 << 18)
  /// Every fast path: what a build uses.
  public static let all: RenderPaths = [
    .markdownSharing, .specializedTemplates, .reusedValues, .textHandover, .batches,
    .recordedWarnings, .streamedData, .incremental, .copyReader, .keyOrderDiff, .recordedPhotos,
    .earlyTodoDiff, .carryOver, .dependents, .earlyFileCheck, .recordedCopy, .recordedCard,
    .sharedPhotoWork, .recordedSearch,
  ]
  /// No fast path: every page through `ReferenceRenderer`, one at a time.
  public static let reference: RenderPaths = []

  /// What each flag needs to do anything: without it, the flag's code is never reached. A flag
  /// not here needs nothing. `init(parsing:)` gives only sets in which every flag has what it
  /// needs (`unmetRequirements` is empty).
  public static let requires: [RenderPaths: RenderPaths] = [
    // Only pages kept by their recorded fingerprints are carried over.
    .carryOver: .incremental,
    // Only a rebuild that carries pages over looks for the pages that show a changed row.
    .dependents: .carryOver,
    // What is checked early (`LastPages`) is read only with the recorded fingerprints.
    .earlyFileCheck: .incremental,
    // The rows that differ are read from the recorded copy only when the to-dos are compared
    // as soon as they are read; else the whole copy is read, as without the flag.
    .recordedCopy: .earlyTodoDiff,
  ]

  /// This set with what each of its flags requires (`requires`), and what that requires.
  public var withRequirements: RenderPaths {
    var paths = self
    while true {
      var needed = paths
      for (flag, needs) in Self.requires where paths.contains(flag) { needed.formUnion(needs) }
      if needed == paths { return paths }
      paths = needed
    }
  }

  /// This set without the flags that lack what they require (`requires`), and without those
  /// that require them.
  public var withoutUnmetRequirements: RenderPaths {
    var paths = self
    while true {
      var kept = paths
      for (flag, needs) in Self.requires where !paths.isSuperset(of: needs) { kept.remove(flag) }
      if kept == paths { return paths }
      paths = kept
    }
  }

  /// The flags of this set that lack something they require, in the order of ``names``, each
  /// with the names of what it lacks: `dependents needs carry-over`.
  public var unmetRequirements: [String] {
    Self.names.compactMap { name, flag in
      guard contains(flag), let needs = Self.requires[flag], !isSuperset(of: needs) else {
        return nil
      }
      return name + " needs " + needs.subtracting(self).description
    }
  }

  /// The names `TASKPRESS_RENDER` uses, in the order of the flags.
  static let names: [(String, RenderPaths)] = [
    ("markdown-sharing", .markdownSharing), ("specialized-templates", .specializedTemplates),
    ("reused-values", .reusedValues), ("text-handover", .textHandover), ("batches", .batches),
    ("recorded-warnings", .recordedWarnings), ("streamed-data", .streamedData),
    ("incremental", .incremental), ("copy-reader", .copyReader), ("key-order-diff", .keyOrderDiff),
    ("recorded-photos", .recordedPhotos), ("early-todo-diff", .earlyTodoDiff),
    ("carry-over", .carryOver), ("dependents", .dependents),
    ("early-file-check", .earlyFileCheck), ("recorded-copy", .recordedCopy),
    ("recorded-card", .recordedCard), ("shared-photo-work", .sharedPhotoWork),
    ("recorded-search", .recordedSearch),
  ]

  /// Parses `TASKPRESS_RENDER`: `reference` (no fast path), `all`, or a comma-separated list of
  /// `no-NAME` (every fast path but those) or of `NAME` (only those), with the names of
  /// ``names``: `no-markdown-sharing,no-batches`. A flag named brings what it requires
  /// (`requires`: `dependents` is `incremental,carry-over,dependents`), and a flag left out
  /// takes out those that require it (`no-incremental` leaves out `carry-over`, `dependents`
  /// and `early-file-check` too, which would do nothing without it).
  ///
  /// - Throws: a message naming the word it does not know and the words it knows.
  public init(parsing text: String) throws(RenderPathsError) {
    let words = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    if words == ["reference"] {
      self = .reference
      return
    }
    if words.isEmpty || words == ["all"] {
      self = .all
      return
    }
    let removing = words.allSatisfy { $0.hasPrefix("no-") }
    var paths: RenderPaths = removing ? .all : []
    for word in words {
      let name = removing ? String(word.dropFirst(3)) : word
      guard let (_, path) = Self.names.first(where: { $0.0 == name }) else {
        let known = Self.names.map(\.0).joined(separator: ", ")
        throw RenderPathsError(
          "TASKPRESS_RENDER: unknown fast path '\(word)'; expected 'reference', 'all', or a "
            + "comma-separated list of NAME or of no-NAME, where NAME is one of: \(known)")
      }
      if removing { paths.remove(path) } else { paths.insert(path) }
    }
    self = removing ? paths.withoutUnmetRequirements : paths.withRequirements
  }

  /// `reference`, `all`, or the names of the paths in use, comma-separated.
  public var description: String {
    if self == .reference { return "reference" }
    if self == .all { return "all" }
    return Self.names.filter { contains($0.1) }.map(\.0).joined(separator: ",")
  }
}

/// A `TASKPRESS_RENDER` value that names no fast path.
public struct RenderPathsError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String

  init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}
