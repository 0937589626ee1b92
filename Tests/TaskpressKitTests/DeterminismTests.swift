import Foundation
import Testing

@testable import TaskpressKit

/// The same inputs give the same bytes (DESIGN §2): whatever the number of jobs, and with no
/// date unless `SOURCE_DATE_EPOCH` is set.
@Suite struct DeterminismTests {
  /// Differences between two sites, as `path: what differs`.
  static func differences(_ left: [String: [UInt8]], _ right: [String: [UInt8]]) -> [String] {
    var result: [String] = []
    for path in Set(left.keys).union(right.keys).sorted() {
      switch (left[path], right[path]) {
      case (nil, _): result.append("\(path): only in the second")
      case (_, nil): result.append("\(path): only in the first")
      case (let first?, let second?) where first != second: result.append("\(path): differs")
      default: break
      }
    }
    return result
  }

  static let strings = SiteSafetyTests.hostile

  @Test("two builds of the same input give the same bytes, with 1 job or 4")
  func sameInputSameBytes() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let first = try SiteSafetyTests.buildSite(Self.strings, in: folder, name: "first", jobs: 1)
    let second = try SiteSafetyTests.buildSite(Self.strings, in: folder, name: "second", jobs: 4)
    let third = try SiteSafetyTests.buildSite(Self.strings, in: folder, name: "third", jobs: 4)
    // Pages, photos, data copies, assets and the sitemap.
    #expect(first.files.count > 3 * Self.strings.count)
    #expect(first.files.keys.contains { $0.hasPrefix("photos/") })
    #expect(first.files["sitemap.xml"] != nil)
    #expect(Self.differences(first.files, second.files) == [])
    #expect(Self.differences(second.files, third.files) == [])
  }

  @Test(
    "no date reaches the site unless SOURCE_DATE_EPOCH is set; then it is in the footer of the first page and the changes pages"
  )
  func dateOnlyFromSourceDateEpoch() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let strings = Array(Self.strings.prefix(8))
    let unset = try SiteSafetyTests.buildSite(strings, in: folder, name: "unset")
    let unsetAgain = try SiteSafetyTests.buildSite(strings, in: folder, name: "again")
    #expect(Self.differences(unset.files, unsetAgain.files) == [])

    // Neither today's date nor the year shows up when no date was given.
    let today = try Build.isoDate(sourceDateEpoch: String(Int(Date().timeIntervalSince1970)))
    for (path, bytes) in unset.files where !path.hasPrefix("photos/") {
      let text = String(decoding: bytes, as: UTF8.self)
      #expect(!text.contains(today), "\(path)")
      #expect(!text.contains("<time"), "\(path)")
    }

    // 2026-11-29T12:00:00Z
    let dated = try SiteSafetyTests.buildSite(
      strings, in: folder, name: "dated", sourceDateEpoch: "1795953600")
    let footer = "Generated <time datetime=\"2026-11-29\">2026-11-29</time>"
    let pages = dated.files.filter { $0.key.hasSuffix(".html") }
    #expect(pages.count > 10)
    // The pages whose subject the date is; no other page shows it (a new date would rewrite
    // them all).
    // (report.html, the page to print, says when it was made.)
    let subjects = pages.keys.filter {
      $0 == "index.html" || $0 == "report.html" || $0.hasPrefix("changes")
    }.sorted()
    #expect(subjects.contains("index.html") && subjects.contains("changes.html"))
    for (path, bytes) in pages {
      let shows = String(decoding: bytes, as: UTF8.self).contains(footer)
      #expect(shows == subjects.contains(path), "\(path)")
    }
    // The date changes those pages and the histories (the first build records the date it was
    // given, and so does each to-do's first event, and the flow numbers are as of it), and
    // each to-do's page, whose timeline dates the build that first saw it, and flow.html, which
    // shows the flow numbers' date; nothing else.
    let changed = Self.differences(unset.files, dated.files)
    let todoPages = pages.keys.filter { $0.hasPrefix("todos/") }
    #expect(todoPages.count > 3)
    #expect(
      changed
        == (subjects + todoPages + [
          "data/flow.json", "data/history.json", "data/todo-history.json", "flow.html",
        ]).sorted().map {
          "\($0): differs"
        })
  }
}
