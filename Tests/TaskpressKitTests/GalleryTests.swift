import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

/// The possession list in pages (`--gallery-page-size`): `possessions/index.html`, then
/// `possessions/page/2.html`, ..., linked like the index's pages.
@Suite struct GalleryTests {
  /// A possessions database of `count` rows (ids 1 to `count`, named `P1`, ...), every third
  /// with a photo.
  static func possessions(_ site: SiteFixture, count: Int) throws -> String {
    var sql =
      "BEGIN; CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);"
    for id in stride(from: 1, through: count, by: 1) {
      let photo = id % 3 == 1 ? "X'\(SiteBuildTests.png(id))'" : "NULL"
      sql += "INSERT INTO possessions VALUES (\(id), 'P\(id)', 'about \(id)', \(photo));"
    }
    return try site.database("possessions.sqlite", sql + "COMMIT;")
  }

  /// The names of the possessions a gallery page lists, in order.
  static func listed(_ page: String) -> [String] {
    page.components(separatedBy: "<span class=\"name\">").dropFirst().map {
      String($0.prefix { $0 != "<" })
    }
  }

  /// The `<nav class="pagination">` of a page; nil when it has none.
  static func pagination(_ page: String) -> String? {
    guard let start = page.range(of: "<nav class=\"pagination\""),
      let end = page.range(of: "</nav>", range: start.upperBound..<page.endIndex)
    else { return nil }
    return String(page[start.lowerBound..<end.upperBound])
  }

  static func options(possessions: String, pageSize: Int) -> BuildOptions {
    var options = BuildOptions()
    options.possessions = possessions
    options.galleryPageSize = pageSize
    return options
  }

  @Test("40 possessions, 18 a page: three pages that link first, middle and last as the index's do")
  func pages() throws {
    let site = try SiteFixture()
    var options = Self.options(possessions: try Self.possessions(site, count: 40), pageSize: 18)
    options.todos = try site.database("todo.sqlite", todoTable)
    try site.build(options)
    let first = try site.page("possessions/index.html")
    let middle = try site.page("possessions/page/2.html")
    let last = try site.page("possessions/page/3.html")
    #expect(!site.exists("possessions/page/4.html"))
    #expect(!site.exists("possessions/page/1.html"))
    #expect(Self.listed(first) == (1...18).map { "P\($0)" })
    #expect(Self.listed(middle) == (19...36).map { "P\($0)" })
    #expect(Self.listed(last) == (37...40).map { "P\($0)" })
    #expect(
      Self.pagination(first) == """
        <nav class="pagination" aria-label="Pagination">
        <p>Page 1 of 3 · <a rel="next" href="../possessions/page/2.html">Next →</a></p>
        <p class="pages"><a href="index.html" aria-current="page">1</a> <a href="../possessions/page/2.html">2</a> <a href="../possessions/page/3.html">3</a> </p>
        </nav>
        """)
    #expect(
      Self.pagination(middle) == """
        <nav class="pagination" aria-label="Pagination">
        <p>Page 2 of 3 · <a rel="prev" href="../../possessions/index.html">← Previous</a> · <a rel="next" href="3.html">Next →</a></p>
        <p class="pages"><a href="../../possessions/index.html">1</a> <a href="2.html" aria-current="page">2</a> <a href="3.html">3</a> </p>
        </nav>
        """)
    #expect(
      Self.pagination(last) == """
        <nav class="pagination" aria-label="Pagination">
        <p>Page 3 of 3 · <a rel="prev" href="2.html">← Previous</a></p>
        <p class="pages"><a href="../../possessions/index.html">1</a> <a href="2.html">2</a> <a href="3.html" aria-current="page">3</a> </p>
        </nav>
        """)
    #expect(middle.contains("<title>Possessions · Page 2 · Task report</title>"))
    #expect(first.contains("<title>Possessions · Task report</title>"))
    // A later page's links to possessions, photos and the rest of the site are from its folder.
    #expect(middle.contains("<a href=\"../../possessions/19.html\">"))
    #expect(middle.contains("src=\"../../photos/"))
    #expect(middle.contains("href=\"../../assets/style.css\""))
    #expect(
      middle.contains(
        "<a href=\"../../possessions/index.html\" aria-current=\"page\">Possessions</a>"))
    // The other pages' navigation still goes to the first page.
    for (page, link) in [
      ("index.html", "possessions/index.html"),
      ("possessions/40.html", "index.html\" aria-current=\"page"),
      ("404.html", "possessions/index.html"), ("changes.html", "possessions/index.html"),
    ] {
      #expect(try site.page(page).contains("<a href=\"\(link)\">Possessions</a>"), "\(page)")
    }
    let problems = try LinkChecker.check(site: site.output)
    #expect(problems.broken.isEmpty && problems.links > 0, "\(problems.broken)")
  }

  @Test("with pretty URLs the later pages are folders: possessions/page/2/")
  func prettyPages() throws {
    let site = try SiteFixture()
    var options = Self.options(possessions: try Self.possessions(site, count: 7), pageSize: 3)
    options.prettyURLs = true
    options.baseURL = "https://example.org/s/"
    try site.build(options)
    let middle = try site.page("possessions/page/2/index.html")
    #expect(Self.listed(middle) == ["P4", "P5", "P6"])
    #expect(middle.contains("<a rel=\"prev\" href=\"../../../possessions/\">← Previous</a>"))
    #expect(
      middle.contains("<a rel=\"next\" href=\"../../../possessions/page/3/\">Next →</a>"))
    #expect(
      middle.contains(
        "<link rel=\"canonical\" href=\"https://example.org/s/possessions/page/2/\">"))
    #expect(Self.listed(try site.page("possessions/page/3/index.html")) == ["P7"])
    let sitemap = try site.page("sitemap.xml")
    #expect(
      sitemap.contains(
        """
          <url><loc>https://example.org/s/possessions/</loc></url>
          <url><loc>https://example.org/s/possessions/page/2/</loc></url>
          <url><loc>https://example.org/s/possessions/page/3/</loc></url>
          <url><loc>https://example.org/s/possessions/1/</loc></url>

        """))
    // The front page repeats the first page, and is not listed twice.
    #expect(!sitemap.contains("<loc>https://example.org/s/</loc>"))
    let problems = try LinkChecker.check(site: site.output)
    #expect(problems.broken.isEmpty && problems.links > 0, "\(problems.broken)")
  }

  @Test("a site of possessions only shows the first page, with its photos, on its front page")
  func frontPage() throws {
    let site = try SiteFixture()
    let options = Self.options(possessions: try Self.possessions(site, count: 5), pageSize: 2)
    try site.build(options)
    let front = try site.page("index.html")
    #expect(Self.listed(front) == ["P1", "P2"])
    #expect(front.contains("<a rel=\"next\" href=\"possessions/page/2.html\">Next →</a>"))
    #expect(front.contains("<img src=\"photos/"), "the front page shows the photos")
    #expect(!front.contains("no-photo\" aria-hidden=\"true\">?</span>\n<span class=\"name\">P1<"))
    let first = try site.page("possessions/index.html")
    #expect(first.contains("<img src=\"../photos/"))
    #expect(Self.listed(try site.page("possessions/page/3.html")) == ["P5"])
    let problems = try LinkChecker.check(site: site.output)
    #expect(problems.broken.isEmpty && problems.links > 0, "\(problems.broken)")
  }

  @Test(
    "page size 0, a size larger than the count, and an empty table: one page, no pagination",
    arguments: [(12, 0), (12, 13), (12, 12), (0, 18)])
  func onePage(count: Int, pageSize: Int) throws {
    let site = try SiteFixture()
    let options = Self.options(
      possessions: try Self.possessions(site, count: count), pageSize: pageSize)
    try site.build(options)
    let first = try site.page("possessions/index.html")
    #expect(Self.listed(first) == (0..<count).map { "P\($0 + 1)" })
    #expect(Self.pagination(first) == nil)
    #expect(!site.exists("possessions/page"))
    #expect(first.contains("<p class=\"empty\">") == (count == 0))
  }

  @Test("a rebuild with fewer pages removes the pages it no longer makes")
  func fewerPages() throws {
    let site = try SiteFixture()
    var options = Self.options(possessions: try Self.possessions(site, count: 40), pageSize: 10)
    try site.build(options)
    #expect(site.exists("possessions/page/4.html"))
    options.galleryPageSize = 20
    let summary = try site.build(options)
    #expect(site.exists("possessions/page/2.html"))
    #expect(!site.exists("possessions/page/3.html"))
    #expect(!site.exists("possessions/page/4.html"))
    #expect(
      summary.removedPaths.sorted() == ["possessions/page/3.html", "possessions/page/4.html"])
    #expect(Self.listed(try site.page("possessions/page/2.html")) == (21...40).map { "P\($0)" })
    options.galleryPageSize = 0
    try site.build(options)
    #expect(!site.exists("possessions/page"), "the emptied folder goes too")
  }

  @Test("the plan: page names, files and the possessions on each page")
  func plan() {
    var data = SiteData()
    data.hasPossessions = true
    data.possessions = (1...7).map { Possession(id: $0, name: "p", description: "", photo: nil) }
    for prettyURLs in [false, true] {
      let plan = SitePlan(
        data: data, pageSize: 100, routes: Routes(prettyURLs: prettyURLs), galleryPageSize: 3)
      #expect(plan.galleryPageCount == 3)
      #expect(
        Array(plan.pages.prefix(4)) == [
          .possessionsFront, .possessions(1), .possessions(2), .possessions(3),
        ])
      #expect(plan.possessionPositions(onGalleryPage: 3) == 6..<7)
      #expect(plan.galleryPage(ofPossessionAt: 6) == 3)
      #expect(
        plan.file(of: .possessions(2))
          == (prettyURLs ? "possessions/page/2/index.html" : "possessions/page/2.html"))
      #expect(plan.file(of: .possessions(1)) == "possessions/index.html")
    }
    let one = SitePlan(data: data, pageSize: 100, routes: Routes(prettyURLs: false))
    #expect(one.galleryPageCount == 1)
    #expect(one.possessionPositions(onGalleryPage: 1) == 0..<7)
    data.possessions = []
    let empty = SitePlan(
      data: data, pageSize: 100, routes: Routes(prettyURLs: false), galleryPageSize: 3)
    #expect(empty.galleryPageCount == 1)
    #expect(empty.possessionPositions(onGalleryPage: 1) == 0..<0)
  }
}
