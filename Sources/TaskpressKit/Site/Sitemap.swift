import Mustache

/// The sitemap protocol's limits on one file (sitemaps.org): 50,000 URLs and 50 MB
/// (52,428,800 bytes) uncompressed.
public struct SitemapLimits: Sendable, Equatable {
  /// URLs per file at most.
  public var urls: Int
  /// Bytes per file at most.
  public var bytes: Int

  /// The protocol's limits.
  public static let standard = SitemapLimits(urls: 50_000, bytes: 52_428_800)

  /// Limits of `urls` URLs and `bytes` bytes per file (both at least 1).
  public init(urls: Int, bytes: Int) {
    self.urls = max(1, urls)
    self.bytes = max(1, bytes)
  }
}

extension SitePlan {
  /// The absolute URL of every page but the 404 page, in plan order, then those of `adding`
  /// (pages planned later); a front page that repeats the possession or contact list is listed
  /// once, as that list.
  func sitemapURLs(baseURL: String, adding: [Page] = []) -> [String] {
    var urls: [String] = []
    urls.reserveCapacity(pages.count + adding.count)
    for page in pages + adding
    where page != .notFound && page != .possessionsFront && page != .contactsFront {
      urls.append(routes.absolute(name(of: page), baseURL: baseURL))
    }
    return urls
  }

  /// `sitemap.xml` and, for a site over `limits`, the files it indexes: one `<urlset>` in
  /// `sitemap.xml` when every URL fits in one file; else `sitemap-1.xml`, `sitemap-2.xml`, ...
  /// each within `limits`, and `sitemap.xml` a `<sitemapindex>` over them.
  func sitemapFiles(
    baseURL: String, adding: [Page] = [], limits: SitemapLimits = .standard
  ) -> [(path: String, bytes: [UInt8])] {
    Sitemap.files(
      urls: sitemapURLs(baseURL: baseURL, adding: adding), baseURL: baseURL, limits: limits)
  }
}

/// The sitemap files' bytes.
enum Sitemap {
  static let header = """
    <?xml version="1.0" encoding="UTF-8"?>
    <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">

    """
  static let footer = "</urlset>\n"

  /// One URL's line in a `<urlset>`.
  static func entry(_ url: String) -> String {
    "  <url><loc>\(Escaping.html.escape(url))</loc></url>\n"
  }

  /// A `<urlset>` of `urls`.
  static func urlset(_ urls: ArraySlice<String>) -> [UInt8] {
    var xml = header
    for url in urls { xml += entry(url) }
    xml += footer
    return Array(xml.utf8)
  }

  /// The files of `urls` (see ``SitePlan/sitemapFiles(baseURL:adding:limits:)``).
  static func files(urls: [String], baseURL: String, limits: SitemapLimits)
    -> [(path: String, bytes: [UInt8])]
  {
    // Cut the URLs into runs that each fit one file, in order.
    let frame = header.utf8.count + footer.utf8.count
    var runs: [Range<Int>] = []
    var start = 0
    var size = frame
    for (index, url) in urls.enumerated() {
      let length = entry(url).utf8.count
      if index > start, index - start >= limits.urls || size + length > limits.bytes {
        runs.append(start..<index)
        start = index
        size = frame
      }
      size += length
    }
    runs.append(start..<urls.count)
    if runs.count == 1 {
      return [("sitemap.xml", urlset(urls[...]))]
    }
    var base = baseURL
    if !base.hasSuffix("/") { base += "/" }
    var index = """
      <?xml version="1.0" encoding="UTF-8"?>
      <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">

      """
    var files: [(path: String, bytes: [UInt8])] = []
    for (number, run) in runs.enumerated() {
      let path = "sitemap-\(number + 1).xml"
      index += "  <sitemap><loc>\(Escaping.html.escape(base + path))</loc></sitemap>\n"
      files.append((path, urlset(urls[run])))
    }
    index += "</sitemapindex>\n"
    return [("sitemap.xml", Array(index.utf8))] + files
  }

  /// `robots.txt` of a site published at `baseURL`: every page allowed, and where its sitemap
  /// is.
  static func robots(baseURL: String) -> [UInt8] {
    var base = baseURL
    if !base.hasSuffix("/") { base += "/" }
    return Array("User-agent: *\nAllow: /\n\nSitemap: \(base)sitemap.xml\n".utf8)
  }
}
