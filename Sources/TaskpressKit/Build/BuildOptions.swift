/// Everything `taskpress build` needs to know, after flags and `taskpress.json` are merged.
public struct BuildOptions: Sendable, Equatable {
  /// The labels' language: a BCP 47 language tag (`en`, `ja`, `de`, `pt-BR`) that has a table
  /// of labels, built in or in the theme's `labels.json`; it is also the pages' `<html lang>`.
  public struct Locale: RawRepresentable, Sendable, Hashable {
    /// The tag as given.
    public let rawValue: String

    /// A tag of letters and digits in parts of 1 to 8 separated by `-`, the first of 2 or 3
    /// letters (`en`, `de-CH`, `zh-Hant-TW`); nil for anything else.
    public init?(rawValue: String) {
      let parts = rawValue.split(separator: "-", omittingEmptySubsequences: false)
      guard let first = parts.first, (2...3).contains(first.count),
        first.allSatisfy({ $0.isASCII && $0.isLetter }),
        parts.allSatisfy({
          (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        })
      else { return nil }
      self.rawValue = rawValue
    }

    private init(known: String) {
      rawValue = known
    }

    /// English, the default.
    public static let en = Locale(known: "en")
    /// Japanese.
    public static let ja = Locale(known: "ja")
  }

  /// The to-do database (`todo` table).
  public var todos: String?
  /// The possessions database (`possessions` table).
  public var possessions: String?
  /// The folder that possessions' photos stored as paths are relative to (`--photo-folder`);
  /// nil for the possessions database's folder.
  public var photoFolder: String?
  /// The contacts database (`contacts` table).
  public var contacts: String?
  /// The tables, columns and rows to read where a database does not follow the usual schema.
  public var mapping = SourceMappings()
  /// How long one read of a source's `query` may run before the build stops with an error.
  public var queryTimeout: Duration = SourceQuery.defaultTimeout
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
  /// Possessions per page of the possession list; 0 puts them all on one page. The default
  /// keeps the first screenful of a gallery of phone photos to some 330 KB (`Docs/photos.md`),
  /// and is a multiple of the columns the theme's gallery has at a phone's and a laptop's width
  /// (2, 3 and 6).
  public var galleryPageSize: Int = 18
  /// Cards each board column shows at most; the rest are on the status's list. At least 1.
  public var boardLimit: Int = 50
  /// Writes `todos/3/index.html` instead of `todos/3.html` and links to folders.
  public var prettyURLs: Bool = false
  /// Pages rendered at once; `nil` means one per core.
  public var jobs: Int?
  /// Makes every warning fatal.
  public var strict: Bool = false
  /// Prints errors only.
  public var quiet: Bool = false
  /// Prints every warning on its own line (`--warnings all`) instead of the first ten of each
  /// kind and a line for the rest.
  public var allWarnings: Bool = false
  /// A JSON file to write the build summary to.
  public var report: String?
  /// The site's title; nil uses the label `siteTitle` of the locale.
  public var title: String?
  /// The sources whose JSON and CSV copies are published in `data/`: the to-dos and the
  /// possessions; the contacts (names, addresses, phone numbers) only when asked for.
  public var dataCopies: Set<DataSource> = [.todos, .possessions]
  /// A robots `noindex` meta on every page, and a `robots.txt` that asks crawlers to stay out.
  public var noindex = false
  /// The site-wide search (`--search all`): a field in every page's header and its index in
  /// `search/` (`Docs/search.md`); `--search none` leaves both out.
  public var search = true
  /// Starts each CSV copy with a UTF-8 byte order mark, so that Excel reads it as UTF-8.
  public var csvByteOrderMark = false
  /// A copy of the last published site to compare with (its `data/` copies and history); nil
  /// compares with the site in `output`.
  public var previous: String?
  /// The date this build records when it changed something (``BuildDate``, normalized); nil
  /// takes `SOURCE_DATE_EPOCH`, else the time of the build.
  public var date: String?
  /// How many builds the history of changes keeps.
  public var historyLimit = 100
  /// The database fields whose text is Markdown, rendered inline where HTML pages show them
  /// (`textHTML`, `titleHTML`, `descriptionHTML`); none by default: the text is shown as stored.
  public var markdown: Set<MarkdownField> = []
  /// URLs and bytes per sitemap file at most: the protocol's, lowered only by tests.
  var sitemapLimits = SitemapLimits.standard

  /// A source whose data copies can be published.
  public enum DataSource: String, Sendable, CaseIterable {
    case todos
    case possessions
    case contacts
  }
  /// A database field that `markdown` can declare Markdown.
  public enum MarkdownField: String, Sendable, CaseIterable {
    case todoText = "todos.text"
    case possessionDescription = "possessions.description"
  }
  /// Photos with more pixels than this are a warning and are not decoded.
  public var maxPhotoPixels: Int = 200_000_000
  /// Publishes photos' EXIF, XMP and IPTC metadata (GPS positions, camera) as stored.
  public var keepPhotoMetadata: Bool = false
  /// The formats of photos' renditions (`--photo-formats`): WebP always, and AVIF beside it
  /// when asked for and libvips can encode it (else a warning).
  public var photoFormats: [PhotoFormat] = [.webp]
  /// A format of photos' renditions.
  public enum PhotoFormat: String, Sendable, CaseIterable {
    case webp
    case avif
  }
  /// The static host whose limits the site is checked against after the build (`--host`);
  /// it changes no byte of the site.
  public var host: String?
  /// A folder outside the site where photos' renditions are kept across builds and checkouts
  /// (`--photo-cache`); none by default.
  public var photoCache: String?
  /// The most bytes the photo cache holds; the entries used least recently go first.
  public var photoCacheSize: Int = 1 << 30
  /// The fast paths pages are rendered with (every one but in tests and debugging, where
  /// `TASKPRESS_RENDER` chooses; see ``RenderPaths``). Whatever set is given, the build's has
  /// every requirement met: a flag that lacks what it requires (`RenderPaths.requires`) is left
  /// out, as `TASKPRESS_RENDER`'s `no-NAME` leaves it out, and so are those that require it.
  public var renderPaths: RenderPaths = .all {
    didSet {
      let met = renderPaths.withoutUnmetRequirements
      if met != renderPaths { renderPaths = met }
    }
  }
  /// When the commit may publish a rebuild that changes most files as a new folder exchanged
  /// with the output folder (`FolderSwap`; `TASKPRESS_SWAP` for the CLI): the same bytes
  /// either way, `never` being the plain path.
  public var folderSwap: FolderSwap.Mode = .auto

  /// Options with every default.
  public init() {}
}
