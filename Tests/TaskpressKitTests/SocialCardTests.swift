import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressKit

/// The social card (`cards/summary.png`, `og:image` / `twitter:card`): made with `--base-url`
/// only, a valid 1200 x 630 PNG without metadata, the same bytes for the same summary (kept,
/// not rendered again, by a rebuild whose summary did not change; made the same by a cold
/// build) and other bytes when a count changes.
@Suite struct SocialCardTests {
  static let base = "https://example.org/tasks"
  static let image = base + "/cards/summary.png"
  /// The pages that point at the card.
  static let pages = ["index.html", "board.html", "changes.html"]

  static func todos(completing complete: Set<Int> = [2, 4]) -> String {
    todoTable
      + (1...12).map {
        "INSERT INTO todo VALUES (\($0), 'to-do \($0)', \($0 % 3 + 1), \(complete.contains($0) ? 1 : 0));"
      }.joined()
  }

  /// A site of 12 to-dos built with `--base-url` (unless `baseURL` is nil) on a fixed date.
  static func options(_ site: SiteFixture, baseURL: String? = base) throws -> BuildOptions {
    var options = BuildOptions()
    options.todos = try site.database("todo.sqlite", todos())
    // Dated back, so that a rebuild with nothing changed may stop early (Tests/README.md).
    try FileTimes.settle(try #require(options.todos))
    options.baseURL = baseURL
    options.date = "2026-12-01"
    return options
  }

  func bytes(_ site: SiteFixture, _ path: String = SocialCard.path) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(filePath: site.output + "/" + path)))
  }

  /// The file's inode and modification time: the same when a build left it alone.
  func identity(_ site: SiteFixture) throws -> [Int] {
    let attributes = try FileManager.default.attributesOfItem(
      atPath: site.output + "/" + SocialCard.path)
    let modified = try #require(attributes[.modificationDate] as? Date)
    return [
      try #require(attributes[.systemFileNumber] as? Int),
      Int(modified.timeIntervalSince1970 * 1_000_000_000),
    ]
  }

  /// The PNG chunks of `png`, in order, after checking the signature.
  static func chunks(_ png: [UInt8]) throws -> [(kind: String, data: ArraySlice<UInt8>)] {
    try #require(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    var found: [(String, ArraySlice<UInt8>)] = []
    var at = 8
    while at + 12 <= png.count {
      let length = png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
      let kind = String(decoding: png[at + 4..<at + 8], as: UTF8.self)
      try #require(at + 12 + length <= png.count, "chunk \(kind) runs past the end")
      found.append((kind, png[at + 8..<at + 8 + length]))
      at += 12 + length
    }
    #expect(at == png.count)
    return found
  }

  @Test(
    "with --base-url: a 1200 x 630 PNG (IHDR), no metadata chunk, and og/twitter meta on three pages"
  )
  func cardAndMeta() throws {
    let site = try SiteFixture()
    let summary = try site.build(try Self.options(site))
    #expect(summary.socialCardRendered)
    let chunks = try Self.chunks(try bytes(site))
    let header = try #require(chunks.first)
    #expect(header.kind == "IHDR" && header.data.count == 13)
    let number = { (at: Int) in header.data.dropFirst(at).prefix(4).reduce(0) { $0 << 8 | Int($1) }
    }
    #expect(number(0) == 1200 && number(4) == 630)
    // 8-bit RGB, not interlaced.
    #expect(Array(header.data.suffix(5)) == [8, 2, 0, 0, 0])
    #expect(chunks.last?.kind == "IEND")
    let kinds = Set(chunks.map(\.kind))
    #expect(kinds.isDisjoint(with: ["tEXt", "zTXt", "iTXt", "tIME", "eXIf", "iCCP"]), "\(kinds)")
    for page in Self.pages {
      let html = try site.page(page)
      #expect(html.contains("<meta property=\"og:image\" content=\"\(Self.image)\">"), "\(page)")
      #expect(html.contains("<meta name=\"twitter:card\" content=\"summary_large_image\">"))
      #expect(html.contains("<meta property=\"og:image:width\" content=\"1200\">"))
      #expect(html.contains("<meta property=\"og:image:height\" content=\"630\">"))
      #expect(html.contains("<meta property=\"og:title\" content=\""), "\(page)")
      #expect(
        html.contains("<meta property=\"og:description\" content=\"2 of 12 complete (16%)\">"),
        "\(page)")
      // In the head, before the body.
      let head = try #require(html.components(separatedBy: "</head>").first)
      #expect(head.contains("og:image"), "\(page)")
    }
    for page in ["todos/1.html", "page/2.html", "status/in-progress/index.html", "404.html"]
    where site.exists(page) {
      #expect(try !site.page(page).contains("og:image"), "\(page)")
    }
  }

  @Test("without --base-url: no card, no og:image or twitter:card, no record")
  func absentWithoutBaseURL() throws {
    let site = try SiteFixture()
    let summary = try site.build(try Self.options(site, baseURL: nil))
    #expect(!summary.socialCardRendered)
    #expect(!site.exists(SocialCard.path) && !site.exists("cards"))
    for page in Self.pages {
      let html = try site.page(page)
      #expect(!html.contains("og:") && !html.contains("twitter:"), "\(page)")
    }
    // A site that had a card loses it, and its meta, when --base-url goes.
    let withCard = try SiteFixture()
    var options = try Self.options(withCard)
    try withCard.build(options)
    #expect(withCard.exists(SocialCard.path))
    options.baseURL = nil
    let rebuilt = try withCard.build(options)
    #expect(!withCard.exists(SocialCard.path))
    #expect(rebuilt.removedPaths.contains(SocialCard.path))
    #expect(try !withCard.page("board.html").contains("og:image"))
  }

  @Test(
    "a rebuild whose summary did not change keeps the card unrendered and unwritten, with and without the record",
    arguments: [RenderPaths.all, RenderPaths.all.subtracting(.recordedCard)])
  func rebuildKeeps(paths: RenderPaths) throws {
    let site = try SiteFixture()
    var options = try Self.options(site)
    options.renderPaths = paths
    try site.build(options)
    let first = try bytes(site)
    let before = try identity(site)
    // Other pages, the same summary: every page is rendered again, the card is not.
    options.pageSize = 5
    let rebuilt = try site.build(options)
    #expect(rebuilt.written > 0)
    #expect(rebuilt.socialCardRendered == !paths.contains(.recordedCard))
    #expect(!rebuilt.writtenPaths.contains(SocialCard.path))
    #expect(try bytes(site) == first)
    #expect(try identity(site) == before)
    // Nothing changed at all: the build stops early and the card stays.
    let unchanged = try site.build(options)
    #expect(unchanged.written == 0 && !unchanged.socialCardRendered)
    #expect(try identity(site) == before)
  }

  @Test("a cold build of the same inputs gives the same bytes; a changed count changes them")
  func sameBytesAndChanges() throws {
    let site = try SiteFixture()
    let options = try Self.options(site)
    try site.build(options)
    let first = try bytes(site)
    // The same inputs into a new folder.
    let cold = try SiteFixture()
    var coldOptions = options
    coldOptions.output = cold.output
    try cold.build(coldOptions)
    #expect(try bytes(cold) == first)
    // A to-do completed: the counts, the progress and the trend differ.
    let connection = try Database.openWritableForTesting(at: try #require(options.todos))
    try connection.execute("UPDATE todo SET complete = 1 WHERE pk = 7;")
    let rebuilt = try site.build(options)
    #expect(rebuilt.socialCardRendered)
    #expect(rebuilt.writtenPaths.contains(SocialCard.path))
    let changed = try bytes(site)
    #expect(changed != first)
    #expect(try Self.chunks(changed).count > 2)
    #expect(try site.page("index.html").contains("content=\"3 of 12 complete (25%)\""))
    // Completed again in the database: back to the first counts, but not to the first card
    // (the trend has a point more).
    try connection.execute("UPDATE todo SET complete = 0 WHERE pk = 7;")
    let back = try site.build(options)
    #expect(back.socialCardRendered)
    #expect(try bytes(site) != changed && bytes(site) != first)
  }

  @Test("the card's SVG escapes and strips what the title holds; librsvg renders it")
  func hostileTitle() throws {
    let summary = SocialCard.Summary(
      title: "<script>alert(1)</script> & \"quotes\" 'and' \u{1}\u{7F}\nline ]]> <!-- x",
      open: 3, complete: 1,
      trend: [
        TrendPoint(date: nil, open: 4, complete: 0), TrendPoint(date: nil, open: 3, complete: 1),
      ],
      openLabel: "<b>open</b>", completeLabel: "done & dusted", progressSummary: "1 of 4 <i>",
      trendTitle: "Trend")
    let svg = SocialCard.svg(summary)
    #expect(!svg.contains("<script") && !svg.contains("<b>") && !svg.contains("<i>"))
    #expect(!svg.contains("<!--") && !svg.contains("\u{1}") && !svg.contains("\u{7F}"))
    #expect(svg.contains("&lt;script&gt;"))
    #expect(
      svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1200\" height=\"630\""))
    #expect(SocialCard.svg(summary) == svg)
    if let reason = Vips.svgUnavailable {
      try TestEnvironment.skip("libvips cannot render SVG here: \(reason)")
    }
    let image = try Vips.png(fromSVG: Array(svg.utf8))
    #expect(image.width == 1200 && image.height == 630)
    #expect(try Vips.png(fromSVG: Array(svg.utf8)).bytes == image.bytes)
    // A title too long for the card ends in an ellipsis.
    var long = summary
    long.title = String(repeating: "long ", count: 20)
    #expect(SocialCard.svg(long).contains("\u{2026}</text>"))
  }

  @Test("where libvips cannot render SVG: a warning naming --base-url and the reason, no card")
  func unavailable() throws {
    var options = BuildOptions()
    options.todos = "todo.sqlite"
    var asked = 0
    let reason = { () -> String? in
      asked += 1
      return "this libvips has no SVG loader (svgload) or PNG saver (pngsave)"
    }
    let without = Build.socialCard(options, svgUnavailable: reason)
    #expect(!without.publishes && without.warnings.isEmpty && asked == 0)
    options.baseURL = Self.base
    let made = Build.socialCard(options, svgUnavailable: reason)
    #expect(!made.publishes && asked == 1)
    #expect(
      made.warnings.map(\.description) == [
        "--base-url: the social card (cards/summary.png) cannot be rendered here (this libvips has "
          + "no SVG loader (svgload) or PNG saver (pngsave)); the pages have no og:image (install "
          + "libvips with its SVG loader, Debian's libvips42 and librsvg2-2)"
      ])
    #expect(Build.socialCard(options, svgUnavailable: { nil }).publishes)
  }

  static let hasPillow: Bool = {
    guard let python = TestEnvironment.find("python3") else { return false }
    let process = Process()
    process.executableURL = URL(filePath: python)
    process.arguments = ["-c", "import PIL"]
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }()

  @Test(
    "Pillow opens the card: a PNG of 1200 x 630, RGB, decoded whole, no metadata (Scripts/check-social-card)",
    .enabled(
      if: SocialCardTests.hasPillow || TestEnvironment.isCI,
      "Python's Pillow is not installed (pip install Pillow; .ci/run installs it): skipped outside CI"
    ))
  func pillowOpensIt() throws {
    let python = try TestEnvironment.requireTool("python3", install: "apt-get install python3")
    let check = URL(filePath: #filePath).deletingLastPathComponent()
      .appending(path: "../../Scripts/check-social-card").standardized.path
    let site = try SiteFixture()
    try site.build(try Self.options(site))
    let process = Process()
    process.executableURL = URL(filePath: python)
    process.arguments = [check, site.output + "/" + SocialCard.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(output)")
    #expect(output.hasSuffix(": ok, 1200x630 RGB\n"), "\(output)")
  }
}
