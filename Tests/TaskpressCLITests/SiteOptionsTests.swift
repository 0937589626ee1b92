import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressCLI

@Suite struct SiteOptionsTests {
  /// A folder with a to-do and a contacts database.
  private func databases() throws -> (folder: String, arguments: [String]) {
    let folder = try makeTemporaryFolder()
    try Database.createForTesting(
      at: folder + "/todo.sqlite",
      sql: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);"
        + "INSERT INTO todo VALUES (1, 'one', 1, 0);")
    try Database.createForTesting(
      at: folder + "/contacts.sqlite",
      sql: "CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT, address TEXT, phone TEXT);"
        + "INSERT INTO contacts VALUES (1, 'Ann', '1 Main St', '555-0100');")
    return (
      folder, ["--todos", folder + "/todo.sqlite", "--contacts", folder + "/contacts.sqlite"]
    )
  }

  private func read(_ path: String) -> String? {
    FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
  }

  @Test("contacts' data copies are not published unless --data names them; the footer follows")
  func dataCopies() throws {
    let (folder, arguments) = try databases()
    let site = folder + "/site"
    #expect(runTaskpress(["build", "-o", site, "-q"] + arguments).status == 0)
    let files = try FileManager.default.contentsOfDirectory(atPath: site + "/data").sorted()
    // The records of changes are published whatever --data says.
    #expect(
      files == [
        "changes.json", "flow.json", "history.json", "todo-history.json", "todos.csv", "todos.json",
      ])
    let index = try #require(read(site + "/index.html"))
    #expect(index.contains(#"<a href="data/todos.csv">todos.csv</a></p>"#))
    #expect(!index.contains("contacts.json"))

    #expect(
      runTaskpress(["build", "-o", site, "-q", "--data", "contacts"] + arguments).status == 0)
    let only = try FileManager.default.contentsOfDirectory(atPath: site + "/data").sorted()
    #expect(
      only == [
        "changes.json", "contacts.csv", "contacts.json", "flow.json", "history.json",
        "todo-history.json",
      ])
    #expect(runTaskpress(["build", "-o", site, "-q", "--data", "none"] + arguments).status == 0)
    let none = try FileManager.default.contentsOfDirectory(atPath: site + "/data").sorted()
    #expect(none == ["changes.json", "flow.json", "history.json", "todo-history.json"])
    #expect(runTaskpress(["check", site]).status == 0)
  }

  @Test("a bad --data value or taskpress.json key exits 64 naming it", arguments: ["todo", ""])
  func badData(value: String) throws {
    let (folder, arguments) = try databases()
    let result = runTaskpress(["build", "-o", folder + "/site", "--data", value] + arguments)
    #expect(result.status == 64)
    #expect(
      result.stderr
        == (value.isEmpty
          ? "error: '--data': the value is empty\n"
          : "error: '--data': invalid value '\(value)': expected a comma-separated list of "
            + "'todos', 'possessions' and 'contacts', or 'none'\n"))
  }

  @Test("--noindex puts a robots meta on every page and writes robots.txt; without, neither")
  func noindex() throws {
    let (folder, arguments) = try databases()
    let site = folder + "/site"
    #expect(runTaskpress(["build", "-o", site, "-q", "--noindex"] + arguments).status == 0)
    #expect(read(site + "/robots.txt") == "User-agent: *\nDisallow: /\n")
    let pages = tree(site).keys.filter { $0.hasSuffix(".html") }
    // index, board, 404, a to-do, changes.html, flow.html, report.html, and the lists: two
    // statuses, High, Medium and Low.
    #expect(pages.count == 14)
    for page in pages {
      #expect(
        read(site + "/" + page)?.contains("<meta name=\"robots\" content=\"noindex\">\n") == true,
        "\(page)")
    }
    // The option is an input: the next build without it rewrites every page.
    let again = runTaskpress(["build", "-o", site] + arguments)
    #expect(again.stdout.contains(" removed"), "\(again.stdout)")
    #expect(read(site + "/robots.txt") == nil)
    #expect(read(site + "/index.html")?.contains("name=\"robots\"") == false)
  }

  @Test("--csv-bom starts each CSV copy (not the JSON) with a UTF-8 byte order mark")
  func csvByteOrderMark() throws {
    let (folder, arguments) = try databases()
    let site = folder + "/site"
    let plain = folder + "/plain"
    #expect(
      runTaskpress(
        ["build", "-o", site, "-q", "--csv-bom", "--data", "todos,contacts"] + arguments
      )
      .status == 0)
    #expect(
      runTaskpress(["build", "-o", plain, "-q", "--data", "todos,contacts"] + arguments).status == 0
    )
    for name in ["todos.csv", "contacts.csv"] {
      let marked = try #require(FileManager.default.contents(atPath: site + "/data/" + name))
      let unmarked = try #require(FileManager.default.contents(atPath: plain + "/data/" + name))
      #expect(marked == Data([0xEF, 0xBB, 0xBF]) + unmarked)
      #expect(unmarked.first == UInt8(ascii: "p") || unmarked.first == UInt8(ascii: "i"))
    }
    #expect(
      FileManager.default.contents(atPath: site + "/data/todos.json")
        == FileManager.default.contents(atPath: plain + "/data/todos.json"))
  }

  @Test("--title (or taskpress.json's 'title') names the site on every page, escaped")
  func title() throws {
    let (folder, arguments) = try databases()
    let site = folder + "/site"
    try Data(#"{"title": "Nightly <report>"}"#.utf8).write(to: URL(filePath: folder + "/t.json"))
    let result = runTaskpress(
      ["build", "--config", folder + "/t.json", "-o", site, "-q"] + arguments)
    #expect(result.status == 0, "\(result.stderr)")
    let index = try #require(read(site + "/index.html"))
    #expect(index.contains("<title>Tasks · Nightly &lt;report&gt;</title>"))
    #expect(index.contains(#"<a class="brand" href="index.html">Nightly &lt;report&gt;</a>"#))
  }
}
