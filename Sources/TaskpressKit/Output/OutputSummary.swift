/// What a commit did to the output folder.
public struct OutputSummary: Sendable, Equatable {
  /// Files written (new or changed).
  public var written: Int
  /// Files that already had the right bytes and were not touched (their mtimes stay).
  public var unchanged: Int
  /// Files of an earlier build that this build no longer produces, now removed.
  public var removed: Int
  /// Whether the previous build was interrupted while writing and this one repaired the folder.
  public var repaired: Bool
  /// The relative paths written, in byte order.
  public var writtenPaths: PathList
  /// The relative paths removed, in byte order.
  public var removedPaths: [String]
  /// Problems that did not stop the build (a stale file that could not be removed), one line
  /// each, e.g. `site/old.html: permission denied`.
  public var warnings: [OutputError]
  /// What `OutputWriter.foundAtFirstBuild` names that this build did not make its own (a file
  /// or folder it wrote, or found with the bytes it would write): left beside the site.
  public var foundBeside: [String] = []
  /// Renames the commit made (a staged folder counts once); tests stop commits part way.
  var commitSteps = 0
  /// Whether the commit published a new folder exchanged with the old one (`FolderSwap`).
  public var swapped = false
}
