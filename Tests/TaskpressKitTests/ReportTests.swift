import Foundation
import TestFixtures
import Testing

@testable import TaskpressKit

/// The front page's charts, the board's limit, the filtered lists and the front page of a site
/// without to-dos.
@Suite struct ChartTests {
  @Test("the progress bar: the complete share of 1000 units, a title and a description")
  func progress() {
    #expect(
      Chart.progress(
        complete: 9, total: 25, title: "Progress", description: "9 of 25 complete (36%)")
        == #"<svg class="chart chart-progress" role="img" viewBox="0 0 1000 24" preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg"><title>Progress</title><desc>9 of 25 complete (36%)</desc><rect class="chart-track" width="1000" height="24" fill="currentColor" fill-opacity="0.15"/><rect class="chart-fill" width="360" height="24" fill="currentColor"/></svg>"#
    )
    // Nothing to do is no progress, not a division by zero; more than all is all.
    #expect(
      Chart.progress(complete: 0, total: 0, title: "", description: "").contains(
        #"class="chart-fill" width="0""#))
    #expect(
      Chart.progress(complete: 5, total: 4, title: "", description: "").contains(
        #"class="chart-fill" width="1000""#))
    #expect(Chart.percent(2, of: 3) == 66)
    #expect(Chart.percent(999, of: 1000) == 99)
    #expect(Chart.percent(3, of: 3) == 100)
    #expect(Chart.percent(1, of: 0) == 0)
  }

  @Test("a stacked bar: segments from the running sums, the largest row filling the width")
  func bar() {
    #expect(
      Chart.bar(
        [("in-progress", 5), ("complete", 2)], scale: 9, title: "High",
        description: "High: 5 In Progress, 2 Complete")
        == #"<svg class="chart chart-bar" role="img" viewBox="0 0 1000 20" preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg"><title>High</title><desc>High: 5 In Progress, 2 Complete</desc><rect class="chart-in-progress" x="0" width="555" height="20" fill="currentColor" fill-opacity="0.45"/><rect class="chart-complete" x="555" width="222" height="20" fill="currentColor"/></svg>"#
    )
    // Thirds of the width: the segments meet and end at 1000 exactly.
    let thirds = Chart.bar(
      [("in-progress", 1), ("complete", 2)], scale: 3, title: "", description: "")
    #expect(thirds.contains(#"x="0" width="333""#))
    #expect(thirds.contains(#"x="333" width="667""#))
    // An empty segment draws nothing.
    #expect(
      !Chart.bar([("in-progress", 0), ("complete", 4)], scale: 4, title: "", description: "")
        .contains("chart-in-progress"))
  }

  @Test("the trend: one line a status over the builds, from zero to the largest count")
  func trend() {
    let points = [
      TrendPoint(date: "2026-11-29", open: 10, complete: 0),
      TrendPoint(date: "2026-11-30", open: 8, complete: 4),
      TrendPoint(date: "2026-12-01", open: 5, complete: 8),
    ]
    #expect(
      Chart.trend(points, title: "Trend", description: "three builds")
        == #"<svg class="chart chart-trend" role="img" viewBox="0 0 600 300" xmlns="http://www.w3.org/2000/svg"><title>Trend</title><desc>three builds</desc>"#
        + #"<g class="chart-grid" stroke="currentColor" stroke-opacity="0.3"><line x1="72" y1="16" x2="584" y2="16"/><line x1="72" y1="284" x2="584" y2="284"/></g>"#
        + #"<g class="chart-values" fill="currentColor" font-size="22" text-anchor="end"><text x="60" y="24">10</text><text x="60" y="292">0</text></g>"#
        + #"<g class="chart-in-progress" fill="currentColor" stroke="currentColor" fill-opacity="0.6" stroke-opacity="0.6"><polyline class="chart-line" fill="none" stroke-width="5" points="72,16 328,70 584,150"/>"#
        + #"<circle class="chart-point" cx="72" cy="16" r="10"/><circle class="chart-point" cx="328" cy="70" r="10"/><circle class="chart-point" cx="584" cy="150" r="10"/></g>"#
        + #"<g class="chart-complete" fill="currentColor" stroke="currentColor"><polyline class="chart-line" fill="none" stroke-width="5" points="72,284 328,177 584,70"/>"#
        + #"<circle class="chart-point" cx="72" cy="284" r="10"/><circle class="chart-point" cx="328" cy="177" r="10"/><circle class="chart-point" cx="584" cy="70" r="10"/></g></svg>"#
    )
    // One build is a dot of each, in the middle; no line.
    let one = Chart.trend([TrendPoint(date: nil, open: 0, complete: 0)], title: "", description: "")
    #expect(!one.contains("polyline"))
    #expect(one.contains(#"<circle class="chart-point" cx="328" cy="284" r="10"/>"#))
    #expect(one.contains(#"<text x="60" y="24">1</text><text x="60" y="292">0</text>"#))
  }

  @Test("titles and descriptions are escaped: a label cannot make markup in the chart")
  func escaping() {
    let title = #"<script>alert("x")</script> & 'co'"#
    let escaped = #"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;"#
    for svg in [
      Chart.progress(complete: 1, total: 2, title: title, description: title),
      Chart.bar([("complete", 1)], scale: 1, title: title, description: title),
      Chart.trend([TrendPoint(date: nil, open: 1, complete: 1)], title: title, description: title),
    ] {
      #expect(svg.contains("<title>\(escaped)</title><desc>\(escaped)</desc>"), "\(svg)")
      #expect(!svg.contains("<script"))
      #expect(svg.hasPrefix(#"<svg class="chart "#) && svg.contains(#" role="img" "#))
    }
  }
}

@Suite struct ReportPageTests {
  /// 7 to-dos in progress (pk 1-7) and 2 complete (8, 9): High 1, 2, 8; Medium 3, 4, 9;
  /// Low 5, 6; none 7.
  static let todos =
    todoTable + """
      INSERT INTO todo VALUES (1, 'h1', 1, 0), (2, 'h2', 1, 0), (3, 'm3', 2, 0), (4, 'm4', 2, 0),
        (5, 'l5', 3, 0), (6, 'l6', 3, 0), (7, 'n7', NULL, 0), (8, 'h8', 1, 1), (9, 'm9', 2, 1);
      """

  /// The HTML of the board column `key`.
  static func column(_ board: String, _ key: String) -> String {
    guard let start = board.range(of: "<section class=\"column column-\(key)\"") else { return "" }
    let rest = board[start.lowerBound...]
    return String(rest[..<(rest.range(of: "</section>")?.upperBound ?? rest.endIndex)])
  }

  @Test("the board shows --board-limit cards a column in index order, then 'and K more'")
  func boardLimit() throws {
    let site = try SiteFixture()
    var options = BuildOptions()
    options.todos = try site.database("todo.sqlite", Self.todos)
    options.boardLimit = 3
    try site.build(options)
    let board = try site.page("board.html")
    let inProgress = Self.column(board, "in-progress")
    #expect(inProgress.components(separatedBy: "<article class=\"card").count - 1 == 3)
    let shown = ["h1", "h2", "m3"].map { inProgress.range(of: ">\($0)<")?.lowerBound }
    #expect(
      shown.allSatisfy { $0 != nil } && shown.compactMap { $0 } == shown.compactMap { $0 }.sorted())
    #expect(!inProgress.contains(">m4<"))
    #expect(
      inProgress.contains(
        "<h2 id=\"column-in-progress\"><a href=\"status/in-progress/index.html\">In Progress</a> <span class=\"count\">7</span></h2>"
      ))
    #expect(
      inProgress.contains(
        "<p class=\"more\"><a href=\"status/in-progress/index.html\">and 4 more</a></p>"))
    // A column within the limit has no "more".
    let complete = Self.column(board, "complete")
    #expect(complete.components(separatedBy: "<article class=\"card").count - 1 == 2)
    #expect(!complete.contains("class=\"more\""))
    #expect(complete.contains("<a href=\"status/complete/index.html\">Complete</a>"))

    // The default is 50: nine to-dos all shown.
    options.boardLimit = BuildOptions().boardLimit
    #expect(options.boardLimit == 50)
    try site.build(options)
    let all = try site.page("board.html")
    #expect(all.components(separatedBy: "<article class=\"card").count - 1 == 9)
    #expect(!all.contains("and 0 more") && !all.contains("class=\"more\""))
  }

  @Test("the board page stays small: 50 cards a column (of 20,000 to-dos in the long tests)")
  func boardSize() throws {
    let site = try SiteFixture()
    let count = TestEnvironment.size(long: 20_000, short: 2_000)
    let rows = (1...count).map { "(\($0), 'task \($0)', \($0 % 3 + 1), \($0 % 4 == 0 ? 1 : 0))" }
    var options = BuildOptions()
    options.todos = try site.database(
      "todo.sqlite", todoTable + "INSERT INTO todo VALUES \(rows.joined(separator: ", "));")
    try site.build(options)
    let board = try site.page("board.html")
    #expect(board.components(separatedBy: "<article class=\"card").count - 1 == 100)
    let complete = count / 4
    #expect(
      board.contains(
        "<a href=\"status/in-progress/index.html\">and \(count - complete - 50) more</a>"))
    #expect(board.contains("<a href=\"status/complete/index.html\">and \(complete - 50) more</a>"))
    #expect(board.utf8.count < 60_000, "\(board.utf8.count) bytes")
  }

  @Test("filtered lists: per status and per priority, paginated, in index order, linked")
  func filteredLists() throws {
    let site = try SiteFixture()
    var options = BuildOptions()
    options.todos = try site.database("todo.sqlite", Self.todos)
    options.pageSize = 2
    try site.build(options)
    // In Progress: h1 h2 | m3 m4 | l5 l6 | n7, four pages.
    let first = try site.page("status/in-progress/index.html")
    // No site-wide count on a list's pages (only the summary pages show counts): completing
    // a to-do rewrites the pages it leaves and enters, not every list page.
    #expect(first.contains("<h1>Status: In Progress</h1>"))
    #expect(!first.contains("class=\"count\""))
    #expect(first.contains(">h1<") && first.contains(">h2<") && !first.contains(">m3<"))
    #expect(first.contains("<title>Status: In Progress · Task report</title>"))
    #expect(
      first.contains(
        "Page 1 of 4 · <a rel=\"next\" href=\"../../status/in-progress/page/2.html\">Next →</a>"))
    #expect(
      first.contains(
        "<a href=\"index.html\" aria-current=\"page\">In Progress</a>"
      ))
    #expect(first.contains("<a href=\"../../todos/1.html\">h1</a>"))
    let last = try site.page("status/in-progress/page/4.html")
    #expect(last.contains(">n7<") && !last.contains(">l6<"))
    #expect(last.contains("<title>Status: In Progress · Page 4 · Task report</title>"))
    #expect(last.contains("<a rel=\"prev\" href=\"3.html\">← Previous</a>"))
    #expect(last.contains("<a href=\"../../../status/in-progress/index.html\">1</a>"))
    #expect(last.contains("<a href=\"../../../todos/7.html\">n7</a>"))
    #expect(!site.exists("status/in-progress/page/5.html"))
    // Priorities: High h1 h2 | h8; no "other" list when no to-do has another number.
    let high = try site.page("priority/high/page/2.html")
    #expect(high.contains(">h8<") && !high.contains(">h1<"))
    #expect(try site.page("priority/none/index.html").contains(">n7<"))
    #expect(site.exists("priority/low/index.html") && !site.exists("priority/other/index.html"))
    #expect(try site.page("status/complete/index.html").contains("Status: Complete"))
    // Linked from the index (the filters and the chart's labels) and the board.
    let index = try site.page("index.html")
    for link in [
      "status/in-progress/index.html", "status/complete/index.html", "priority/high/index.html",
      "priority/medium/index.html", "priority/low/index.html", "priority/none/index.html",
    ] {
      #expect(index.contains("href=\"\(link)\""), "\(link)")
    }
    #expect(index.contains("<th scope=\"row\"><a href=\"priority/high/index.html\">"))
    #expect(
      index.contains("<th scope=\"col\" class=\"number\"><a href=\"status/complete/index.html\">"))
    // Every link of the site resolves.
    let problems = try LinkChecker.check(site: site.output)
    #expect(problems.broken.isEmpty && problems.links > 0, "\(problems.broken)")
  }

  @Test("with pretty URLs the lists are folders: status/complete/, priority/high/page/2/")
  func prettyLists() throws {
    let site = try SiteFixture()
    var options = BuildOptions()
    options.todos = try site.database("todo.sqlite", Self.todos)
    options.pageSize = 2
    options.prettyURLs = true
    try site.build(options)
    let board = try site.page("board/index.html")
    #expect(board.contains("<a href=\"../status/complete/\">Complete</a>"))
    let high = try site.page("priority/high/page/2/index.html")
    #expect(high.contains("<a rel=\"prev\" href=\"../../../../priority/high/\">← Previous</a>"))
    let problems = try LinkChecker.check(site: site.output)
    #expect(problems.broken.isEmpty && problems.links > 0, "\(problems.broken)")
  }

  @Test("the front page: progress, counts by priority and status, the trend, as text too")
  func frontPage() throws {
    let site = try SiteFixture()
    var options = BuildOptions()
    options.todos = try site.database("todo.sqlite", Self.todos)
    options.pageSize = 4
    try site.build(options, sourceDateEpoch: "1764547200")
    let index = try site.page("index.html")
    #expect(index.contains("<p class=\"progress-summary\">2 of 9 complete (22%)</p>"))
    #expect(index.contains("<desc>2 of 9 complete (22%)</desc><rect class=\"chart-track\""))
    #expect(index.contains("<rect class=\"chart-fill\" width=\"222\" height=\"24\""))
    // High: 2 in progress, 1 complete; the bars are scaled to the largest row (3).
    #expect(
      index.contains(
        "<td class=\"number\">2</td><td class=\"number\">1</td><td class=\"chart-cell\"><svg class=\"chart chart-bar\" role=\"img\""
      ))
    #expect(index.contains("<title>High</title><desc>High: 2 In Progress, 1 Complete</desc>"))
    #expect(
      index.contains(
        "<title>No priority</title><desc>No priority: 1 In Progress, 0 Complete</desc>"))
    // The trend of the one recorded build, the site's first, with the date it was given and
    // its numbers in a table.
    #expect(index.contains("<desc>2025-12-01: 7 In Progress, 2 Complete</desc>"))
    #expect(
      index.contains(
        "<tr><th scope=\"row\"><time datetime=\"2025-12-01\">2025-12-01</time></th><td class=\"number\">7</td><td class=\"number\">2</td></tr>"
      ))
    // The progress bar's axis; no change sentence before a second recorded build.
    #expect(index.contains("<p class=\"chart-axis\"><span>0</span><span>9</span></p>"))
    #expect(!index.contains("progress-change"))
    // Only the first page has the report.
    #expect(!(try site.page("page/2.html")).contains("chart-progress"))
    // The index shows priority as an icon and status once, as a mark with its words hidden.
    #expect(
      index.contains(
        "<li class=\"todo priority-high is-complete\"><span class=\"check\"><span aria-hidden=\"true\">☑</span><span class=\"visually-hidden\">Complete</span></span> <svg class=\"icon\" role=\"img\" aria-label=\"High\"><use href=\"#icon-high\"></use></svg> <a href=\"todos/8.html\">h8</a></li>"
      ))
    #expect(!index.contains("*In Progress*") && !index.contains("<em>In Progress</em>"))
    #expect(index.contains("<symbol id=\"icon-high\""))
  }

  @Test("a to-do page links back to the index page it is on and to the board")
  func todoBackLinks() throws {
    let site = try SiteFixture()
    var options = BuildOptions()
    options.todos = try site.database("todo.sqlite", Self.todos)
    options.pageSize = 4
    try site.build(options)
    // Index order: h1 h2 h8 m3 | m4 m9 l5 l6 | n7.
    #expect(
      try site.page("todos/1.html").contains(
        "<p><a href=\"../index.html\">← Tasks</a> · <a href=\"../board.html\">Board</a></p>"))
    #expect(
      try site.page("todos/9.html").contains(
        "<p><a href=\"../page/2.html\">← Tasks · Page 2</a> · <a href=\"../board.html\">Board</a></p>"
      ))
    #expect(
      try site.page("todos/7.html").contains("<a href=\"../page/3.html\">← Tasks · Page 3</a>"))
  }

  @Test("a site of possessions alone opens on the possession list; its 404 page follows")
  func possessionsOnly() throws {
    let site = try SiteFixture()
    var options = BuildOptions()
    options.possessions = try site.database(
      "p.sqlite",
      "CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);"
        + "INSERT INTO possessions VALUES (1, 'Kettle', '', NULL), (2, 'Lamp', '', NULL);")
    options.baseURL = "https://example.org/things/"
    try site.build(options)
    let front = try site.page("index.html")
    #expect(front.contains("<h1>Possessions</h1>"))
    #expect(front.contains("<a href=\"possessions/1.html\">"))
    #expect(front.contains("<span class=\"name\">Lamp</span>"))
    #expect(front.contains("<body class=\"page-possessions\">"))
    #expect(
      front.contains("<a href=\"possessions/index.html\" aria-current=\"page\">Possessions</a>"))
    #expect(
      front.contains(
        "<link rel=\"canonical\" href=\"https://example.org/things/possessions/index.html\">"))
    #expect(!front.contains("Nothing here yet") && !front.contains(">Tasks<"))
    #expect(!site.exists("board.html") && !site.exists("status") && !site.exists("priority"))
    let notFound = try site.page("404.html")
    #expect(
      notFound.contains(
        "<a href=\"https://example.org/things/possessions/index.html\">Back to the possessions</a>")
    )
    #expect(!notFound.contains("task list"))
    let sitemap = try site.page("sitemap.xml")
    #expect(!sitemap.contains("<loc>https://example.org/things/</loc>"))
    #expect(sitemap.contains("<loc>https://example.org/things/possessions/index.html</loc>"))
    let problems = try LinkChecker.check(site: site.output)
    #expect(problems.broken.isEmpty && problems.links > 0, "\(problems.broken)")
  }

  @Test("a site of contacts alone opens on the contact list")
  func contactsOnly() throws {
    let site = try SiteFixture()
    var options = BuildOptions()
    options.contacts = try site.database(
      "c.sqlite",
      "CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT, address TEXT, phone TEXT);"
        + "INSERT INTO contacts VALUES (1, 'Ada', '', '');")
    try site.build(options)
    let front = try site.page("index.html")
    #expect(front.contains("<h1>Contacts</h1>"))
    #expect(front.contains("<a href=\"contacts/1.html\">Ada</a>"))
    #expect(front.contains("<script src=\"assets/search.js\" defer></script>"))
    #expect(
      try site.page("404.html").contains("<a href=\"contacts/index.html\">Back to the contacts</a>")
    )
  }
}
