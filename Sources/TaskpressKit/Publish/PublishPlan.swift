/// What `taskpress publish` uploads and deletes, and in which order, so that a visitor never
/// meets a broken page.
///
/// The files of the site fall in four phases: photos and assets; item pages (`todos/7.html`,
/// `possessions/3.html`, `contacts/2.html`); lists (the index's later pages, the priority and
/// status lists, the possession and contact lists, the board, `changes.html`, `404.html`);
/// and the first page with the feeds, the data copies and the sitemap. The upload goes in steps:
/// first the files the destination does not have, phase by phase, then the files it has with
/// other bytes, phase by phase, then the deletion of the files it has that the site no longer
/// holds. Before the second half, every file a page can link to is there: the new files are
/// reachable only through the first page (a new site) or a replaced page, which come later;
/// a replaced page links only to files of the site, all there by then; nothing is deleted
/// until every page that linked to it is replaced. Interrupted anywhere, the destination is a
/// mix of the old site and the new that links only to files present.
public struct PublishPlan: Sendable, Equatable {
  /// A kind of file, in upload order.
  public enum Phase: Int, Sendable, CaseIterable, Comparable {
    case assets, items, lists, front

    public static func < (a: Phase, b: Phase) -> Bool { a.rawValue < b.rawValue }

    /// Its name in plans and reports.
    public var name: String {
      switch self {
      case .assets: "photos and assets"
      case .items: "item pages"
      case .lists: "lists and board"
      case .front: "first page, feeds, data, sitemap"
      }
    }

    /// Its key in `--report` (`assets`, `items`, `lists`, `front`).
    public var key: String {
      switch self {
      case .assets: "assets"
      case .items: "items"
      case .lists: "lists"
      case .front: "front"
      }
    }
  }

  /// One upload: the files of one phase, new at the destination or replacing what is there.
  public struct Step: Sendable, Equatable {
    public var phase: Phase
    /// Whether the destination has these paths already (with other bytes, or unknown ones).
    public var replacing: Bool
    /// The files, in byte order of their paths.
    public var files: [BuiltSite.File]

    /// How many bytes the files hold.
    public var bytes: Int { files.reduce(0) { $0 + $1.size } }

    /// Its name in plans and reports: `new item pages`, `changed lists and board`.
    public var name: String { (replacing ? "changed " : "new ") + phase.name }

    /// Its key in `--report`: `new-items`, `changed-front`.
    public var key: String { (replacing ? "changed-" : "new-") + phase.key }
  }

  /// The uploads, in order; none is empty.
  public var steps: [Step]
  /// The paths the record has that the site no longer holds, deleted last, in byte order.
  public var deletions: [String]
  /// How many files of the site the destination holds already, with the same bytes.
  public var unchanged: Int

  /// The plan of publishing `site` to a destination where `record` says what taskpress put
  /// there (by content hash), and `present` are further paths found there (a first publish's
  /// listing) whose bytes are not known to be the site's.
  public init(site: [BuiltSite.File], record: PublishRecord, present: Set<String> = []) {
    var buckets: [[BuiltSite.File]] = Array(repeating: [], count: 2 * Phase.allCases.count)
    var unchanged = 0
    var produced = Set<String>()
    produced.reserveCapacity(site.count)
    for file in site {
      produced.insert(file.path)
      let published = record.files[file.path]
      if let published, published.hash == file.hash, published.size == file.size {
        unchanged += 1
        continue
      }
      let replacing = published != nil || present.contains(file.path)
      let phase = Self.phase(of: file.path)
      buckets[(replacing ? Phase.allCases.count : 0) + phase.rawValue].append(file)
    }
    var steps: [Step] = []
    for (index, files) in buckets.enumerated() where !files.isEmpty {
      let phase = Phase.allCases[index % Phase.allCases.count]
      steps.append(Step(phase: phase, replacing: index >= Phase.allCases.count, files: files))
    }
    self.steps = steps
    self.unchanged = unchanged
    deletions = OutputPath.sorted(record.files.keys.filter { !produced.contains($0) })
  }

  /// How many files are uploaded.
  public var uploadCount: Int { steps.reduce(0) { $0 + $1.files.count } }

  /// How many bytes are uploaded.
  public var uploadBytes: Int { steps.reduce(0) { $0 + $1.bytes } }

  /// The folders whose files are pages of one row each.
  static let rowFolders: Set<Substring> = ["todos", "possessions", "contacts"]

  /// The phase of the file at `path` (relative to the site).
  public static func phase(of path: String) -> Phase {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    let isPage = path.hasSuffix(".html") || path.hasSuffix(".htm")
    guard isPage else {
      // Feeds, the sitemap, robots.txt and the data copies are read from the first page or by
      // machines that start at the top; everything else (photos, styles, scripts) is an asset.
      return parts.count == 1 || parts[0] == "data" ? .front : .assets
    }
    if parts.count == 1 {
      return path == "index.html" ? .front : .lists
    }
    if rowFolders.contains(parts[0]), parts[1] != "index.html", parts[1] != "page" {
      return .items
    }
    return .lists
  }
}
