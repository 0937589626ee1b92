/// Everything `taskpress build` needs to know, after flags and `taskpress.json` are merged.
public struct BuildOptions: Sendable, Equatable {
  /// The labels' language.
  public enum Locale: String, Sendable, CaseIterable {
    case en
    case ja
  }

  /// The to-do database (`todo` table).
  public var todos: String?
  /// The possessions database (`possessions` table).
  public var possessions: String?
  /// The contacts database (`contacts` table).
  public var contacts: String?
  /// The tables, columns and rows to read where a database does not follow the usual schema.
  public var mapping = SourceMappings()
  /// A folder whose templates override the built-in theme file by file.
  public var templates: String?
  /// The folder the site is written to.
  public var output: String = "site"
  /// The absolute URL the site is published at; adds canonical links and `sitemap.xml`.
  public var baseURL: String?
  /// The language of the labels.
  public var locale: Locale = .en
  /// To-dos per index page; 0 puts them all on one page.
  public var pageSize: Int = 100
  /// Writes `todos/3/index.html` instead of `todos/3.html` and links to folders.
  public var prettyURLs: Bool = false
  /// Pages rendered at once; `nil` means one per core.
  public var jobs: Int?
  /// Makes every warning fatal.
  public var strict: Bool = false
  /// Prints errors only.
  public var quiet: Bool = false
  /// A JSON file to write the build summary to.
  public var report: String?
  /// Photos with more pixels than this are a warning and are not decoded.
  public var maxPhotoPixels: Int = 200_000_000
  /// Publishes photos' EXIF, XMP and IPTC metadata (GPS positions, camera) as stored.
  public var keepPhotoMetadata: Bool = false
  /// The fast paths pages are rendered with (every one but in tests and debugging, where
  /// `TASKPRESS_RENDER` chooses; see ``RenderPaths``).
  public var renderPaths: RenderPaths = .all

  /// Options with every default.
  public init() {}
}
