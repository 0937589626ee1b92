/// What a build did, for the summary line and `--report`.
public struct BuildSummary: Sendable, Equatable {
  /// Files written because they are new or changed.
  public var written = 0
  /// Files whose bytes were already on disk, left untouched.
  public var unchanged = 0
  /// Files of an earlier build that this build no longer produces.
  public var removed = 0
  /// Pages rendered (HTML files, changed or not).
  public var pages = 0
  /// Distinct photos in the site.
  public var photos = 0
  /// Warnings about the data.
  public var warnings = 0
  /// Wall-clock seconds the build took.
  public var seconds = 0.0
  /// Whether an interrupted earlier build was repaired.
  public var repaired = false
  /// Renames the commit made; tests stop commits part way through.
  var commitSteps = 0

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

  /// The summary as the JSON `--report` writes.
  public var json: String {
    """
    {
      "written": \(written),
      "unchanged": \(unchanged),
      "removed": \(removed),
      "pages": \(pages),
      "photos": \(photos),
      "warnings": \(warnings),
      "repaired": \(repaired),
      "seconds": \((seconds * 1000).rounded() / 1000)
    }

    """
  }
}
