/// What a build did, for the summary line and `--report`.
public struct BuildSummary: Sendable, Equatable {
  /// Files written because they are new or changed.
  public var written = 0
  /// Files whose bytes were already on disk, left untouched.
  public var unchanged = 0
  /// Files of an earlier build that this build no longer produces.
  public var removed = 0
  /// Pages in the site (HTML files, changed or not).
  public var pages = 0
  /// Pages this build rendered: all of them in a first build; in a rebuild, those whose
  /// inputs changed (the others' files are kept; see `PageFingerprints`).
  public var rendered = 0
  /// Distinct photos in the site.
  public var photos = 0
  /// Warnings about the data.
  public var warnings = 0
  /// Wall-clock seconds the build took.
  public var seconds = 0.0
  /// Whether an interrupted earlier build was repaired.
  public var repaired = false
  /// What a first build found in the output folder that taskpress did not write and left
  /// beside the site (sorted): not the files it found with the bytes it would write.
  public var foundAtFirstBuild: [String] = []
  /// When each phase of the build ended, in seconds since it started: `read` (the sources),
  /// `render` (photos, pages and data copies staged), `commit`.
  public var phases: [Phase] = []
  /// The files written, relative to the output folder, in byte order.
  public var writtenPaths = PathList()
  /// The files removed, relative to the output folder, in byte order.
  public var removedPaths: [String] = []
  /// Problems that did not stop the build (a stale file that could not be removed).
  public var outputProblems: [OutputError] = []
  /// Renames the commit made; tests stop commits part way through.
  var commitSteps = 0
  /// Photos decoded to make their renditions (those whose renditions were found in the site
  /// already are not).
  public var photosDecoded = 0
  /// The search index's shards made from their rows (the others were kept as the last build
  /// left them, `RenderPaths.recordedSearch`).
  var searchShardsMade = 0
  /// Whether the social card was rendered (not kept as the last build left it).
  public var socialCardRendered = false
  /// Files of the last build read again and compared by their keyed hash because their stamp
  /// could not be trusted (restored with new times, touched, or written within a tick of the
  /// last build's stamps); 0 when every file was as its stamp says.
  public var filesRehashed = 0
  /// Wall seconds the photos took, from their start (once the possessions were read) to the
  /// last one published; 0 when none was (the benchmark's photo phase).
  public var photoSeconds = 0.0
  /// Whether the build read the databases (a rebuild with nothing changed reports the warnings
  /// recorded by the last build that did instead).
  var sourcesRead = false

  /// The end of one phase of a build.
  public struct Phase: Sendable, Equatable {
    /// `read`, `render` or `commit`.
    public var name: String
    /// Seconds from the start of the build to the end of this phase.
    public var seconds: Double

    /// Creates a phase.
    public init(_ name: String, _ seconds: Double) {
      self.name = name
      self.seconds = seconds
    }
  }

  /// An empty summary.
  public init() {}

  /// The summary as the one line the CLI prints.
  public var line: String {
    var parts = [
      "\(written) written", "\(unchanged) unchanged", "\(removed) removed",
      "\(photos) \(photos == 1 ? "photo" : "photos")",
      "\(warnings) \(warnings == 1 ? "warning" : "warnings")",
    ]
    if repaired { parts.append("repaired") }
    let seconds = (self.seconds * 100).rounded() / 100
    return parts.joined(separator: ", ") + " in \(seconds) s"
  }

  private var phaseList: String {
    guard !phases.isEmpty else { return "" }
    let entries = phases.map { "\n    \"\($0.name)\": \(Self.milliseconds($0.seconds))" }
    return entries.joined(separator: ",") + "\n  "
  }

  private static func milliseconds(_ seconds: Double) -> Double {
    (seconds * 1000).rounded() / 1000
  }

  /// The summary as the JSON `--report` writes.
  public var json: String {
    """
    {
      "written": \(written),
      "unchanged": \(unchanged),
      "removed": \(removed),
      "pages": \(pages),
      "rendered": \(rendered),
      "photos": \(photos),
      "warnings": \(warnings),
      "repaired": \(repaired),
      "seconds": \(Self.milliseconds(seconds)),
      "phases": {\(phaseList)}
    }

    """
  }
}
