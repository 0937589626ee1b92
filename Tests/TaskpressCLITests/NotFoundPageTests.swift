import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressCLI

@Suite struct NotFoundPageTests {
  private func site(baseURL: String?) throws -> (folder: String, site: String) {
    let folder = try makeTemporaryFolder()
    let database = folder + "/todo.sqlite"
    try Database.createForTesting(
      at: database,
      sql: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);"
        + "INSERT INTO todo VALUES (1, 'one', 1, 0);")
    let site = folder + "/site"
    let result = runTaskpress(
      ["build", "--todos", database, "-o", site, "-q"] + (baseURL.map { ["--base-url", $0] } ?? []))
    try #require(result.status == 0, "\(result.stderr)")
    return (folder, site)
  }

  /// Every `href` and `src` of the page at `path`.
  private func targets(_ path: String) throws -> [String] {
    links(try String(contentsOfFile: path, encoding: .utf8))
  }

  private func links(_ page: String) -> [String] {
    var found: [String] = []
    var rest = Substring(page)
    while let start = rest.range(of: "href=\"") ?? rest.range(of: "src=\"") {
      let after = rest[start.upperBound...]
      guard let end = after.firstIndex(of: "\"") else { break }
      found.append(String(after[..<end]))
      rest = after[end...]
    }
    return found
  }

  @Test("with --base-url every link and asset of 404.html is absolute; other pages stay relative")
  func absoluteWithBaseURL() throws {
    let (_, site) = try site(baseURL: "https://example.org/reports")
    let links = try targets(site + "/404.html")
    #expect(links.contains("https://example.org/reports/assets/style.css"))
    #expect(links.contains("https://example.org/reports/board.html"))
    #expect(links.contains("https://example.org/reports/data/todos.csv"))
    #expect(
      links.filter { !$0.hasPrefix("https://example.org/reports/") && !$0.hasPrefix("#") } == [])
    #expect(try targets(site + "/index.html").contains("assets/style.css"))
    let check = runTaskpress(["check", site])
    #expect(check.status == 0)
    #expect(check.stderr.isEmpty)
  }

  @Test("without --base-url, check says where 404.html works and what to do")
  func checkNotesRelative404() throws {
    let (_, site) = try site(baseURL: nil)
    #expect(try targets(site + "/404.html").contains("assets/style.css"))
    let check = runTaskpress(["check", site])
    #expect(check.status == 0)
    #expect(
      check.stderr == "note: \(site)/404.html has relative links: served for a missing address "
        + "below the site's root (such as todos/999.html) it loses its style and links; build "
        + "with --base-url to make them absolute\n")
  }
}
