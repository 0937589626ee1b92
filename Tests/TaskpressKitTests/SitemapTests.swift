import Foundation
import Testing

@testable import TaskpressKit

@Suite struct SitemapTests {
  /// The absolute URL of every page file in the site (each `.html` but `404.html`).
  static func pageURLs(_ site: SiteFixture, base: String, pretty: Bool) throws -> [String] {
    var urls: [String] = []
    let walker = FileManager.default.enumerator(atPath: site.output)
    while let path = walker?.nextObject() as? String {
      guard path.hasSuffix(".html"), path != "404.html" else { continue }
      var url = path
      if pretty, url == "index.html" || url.hasSuffix("/index.html") {
        url.removeLast("index.html".count)
      } else if url == "index.html" {
        url = ""
      }
      urls.append(base + url)
    }
    return urls
  }

  /// The `<loc>`s of an XML file, in order.
  static func locs(_ xml: String) -> [String] {
    xml.components(separatedBy: "<loc>").dropFirst().compactMap {
      $0.components(separatedBy: "</loc>").first
    }
  }

  /// Every URL the sitemap lists, and the number of URLs and bytes of each of its files.
  static func listed(_ site: SiteFixture, base: String) throws -> (
    urls: [String], files: [String: (urls: Int, bytes: Int)]
  ) {
    let top = try site.page("sitemap.xml")
    var names = ["sitemap.xml"]
    if top.contains("<sitemapindex") {
      names = locs(top).map { String($0.dropFirst(base.count)) }
      #expect(locs(top).allSatisfy { $0.hasPrefix(base) })
    }
    var urls: [String] = []
    var files: [String: (urls: Int, bytes: Int)] = [:]
    for name in names {
      let xml = try site.page(name)
      #expect(xml.contains("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"))
      let these = locs(xml)
      urls += these
      files[name] = (these.count, xml.utf8.count)
    }
    return (urls, files)
  }

  func todos(_ count: Int) -> String {
    todoTable
      + (1...count).map { "INSERT INTO todo VALUES (\($0), 'to-do \($0)', \($0 % 3), \($0 % 2));" }
      .joined()
  }

  @Test("a site over the limit gets a sitemap index; every page listed once, no file over it")
  func split() throws {
    for pretty in [false, true] {
      let site = try SiteFixture()
      var options = BuildOptions()
      options.todos = try site.database("todo.sqlite", todos(40))
      options.pageSize = 10
      options.prettyURLs = pretty
      options.baseURL = "https://example.org/tasks"
      options.sitemapLimits = SitemapLimits(urls: 7, bytes: 1 << 20)
      try site.build(options)
      let base = "https://example.org/tasks/"
      let (urls, files) = try Self.listed(site, base: base)
      let pages = try Self.pageURLs(site, base: base, pretty: pretty)
      #expect(try site.page("sitemap.xml").contains("<sitemapindex"))
      #expect(files.count > 5)
      #expect(files.values.allSatisfy { $0.urls <= 7 })
      #expect(urls.count == Set(urls).count, "a URL listed twice")
      #expect(Set(urls) == Set(pages))
      #expect(urls.count == pages.count)
      #expect(site.exists("sitemap-1.xml"))
      #expect(
        try site.page("robots.txt")
          == "User-agent: *\nAllow: /\n\nSitemap: https://example.org/tasks/sitemap.xml\n")

      // Back under the limit: one file again, and the indexed files are gone.
      options.sitemapLimits = .standard
      try site.build(options)
      let again = try Self.listed(site, base: base)
      #expect(again.files.keys.sorted() == ["sitemap.xml"])
      #expect(Set(again.urls) == Set(pages))
      #expect(!site.exists("sitemap-1.xml"))
    }
  }

  @Test("the byte limit splits too, and no file is over it")
  func bytes() throws {
    let site = try SiteFixture()
    var options = BuildOptions()
    options.todos = try site.database("todo.sqlite", todos(12))
    options.baseURL = "https://example.org/"
    options.sitemapLimits = SitemapLimits(urls: 50_000, bytes: 400)
    try site.build(options)
    let (urls, files) = try Self.listed(site, base: "https://example.org/")
    #expect(files.count > 3)
    #expect(files.values.allSatisfy { $0.bytes <= 400 })
    #expect(Set(urls) == Set(try Self.pageURLs(site, base: "https://example.org/", pretty: false)))
  }

  @Test("files cut at exactly the limits, in order")
  func cuts() {
    let urls = (1...10).map { "https://x.org/todos/\($0).html" }
    let files = Sitemap.files(
      urls: urls, baseURL: "https://x.org", limits: SitemapLimits(urls: 5, bytes: 1 << 20))
    #expect(files.map(\.path) == ["sitemap.xml", "sitemap-1.xml", "sitemap-2.xml"])
    let index = String(decoding: files[0].bytes, as: UTF8.self)
    #expect(
      Self.locs(index) == ["https://x.org/sitemap-1.xml", "https://x.org/sitemap-2.xml"])
    #expect(Self.locs(String(decoding: files[1].bytes, as: UTF8.self)) == Array(urls[0..<5]))
    #expect(Self.locs(String(decoding: files[2].bytes, as: UTF8.self)) == Array(urls[5...]))
    // At the limit: one file.
    let one = Sitemap.files(
      urls: urls, baseURL: "https://x.org", limits: SitemapLimits(urls: 10, bytes: 1 << 20))
    #expect(one.map(\.path) == ["sitemap.xml"])
    #expect(one[0].bytes == Sitemap.urlset(urls[...]))
    // A URL longer than the byte limit still gets a file of its own.
    let long = Sitemap.files(
      urls: urls, baseURL: "https://x.org", limits: SitemapLimits(urls: 10, bytes: 10))
    #expect(long.count == 11)
  }

  @Test("robots.txt: the sitemap with --base-url, none without, Disallow with --noindex")
  func robots() throws {
    let site = try SiteFixture()
    var options = BuildOptions()
    options.todos = try site.database("todo.sqlite", todos(2))
    try site.build(options)
    #expect(!site.exists("robots.txt"))
    options.noindex = true
    options.baseURL = "https://example.org/"
    try site.build(options)
    #expect(try site.page("robots.txt") == "User-agent: *\nDisallow: /\n")
  }
}
