import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressCLI
@testable import TaskpressKit

/// How warnings are printed: sorted by source and key, the first ten of a kind one by one and
/// a line for the rest, every one with `--warnings all` and in `--report` (issue 47).
@Suite struct WarningPrinterTests {
  private func warning(_ file: String, _ pk: Int, _ message: String) -> BuildWarning {
    BuildWarning(file: file, location: "todo pk=\(pk)", message: message)
  }

  @Test("the first ten of a kind, then one line with the count and the first keys, by key")
  func grouped() {
    // Out of order, two kinds in one file, one in another.
    var warnings: [BuildWarning] = []
    for pk in (1...25).reversed() {
      warnings.append(warning("todo.sqlite", pk, "priority \(pk % 3 + 7) is not 1, 2 or 3"))
    }
    warnings.append(warning("todo.sqlite", 4, "text is NULL"))
    warnings.insert(
      BuildWarning(file: "things.sqlite", location: "possessions id=2", message: "photo is NULL"),
      at: 3)
    let lines = WarningPrinter.lines(warnings, all: false)
    #expect(
      lines == [
        "todo.sqlite: todo pk=1: priority 8 is not 1, 2 or 3",
        "todo.sqlite: todo pk=2: priority 9 is not 1, 2 or 3",
        "todo.sqlite: todo pk=3: priority 7 is not 1, 2 or 3",
        "todo.sqlite: todo pk=4: priority 8 is not 1, 2 or 3",
        "todo.sqlite: todo pk=4: text is NULL",
        "todo.sqlite: todo pk=5: priority 9 is not 1, 2 or 3",
        "todo.sqlite: todo pk=6: priority 7 is not 1, 2 or 3",
        "todo.sqlite: todo pk=7: priority 8 is not 1, 2 or 3",
        "todo.sqlite: todo pk=8: priority 9 is not 1, 2 or 3",
        "todo.sqlite: todo pk=9: priority 7 is not 1, 2 or 3",
        "todo.sqlite: todo pk=10: priority 8 is not 1, 2 or 3",
        "todo.sqlite: 15 more in todo: priority … is not 1, 2 or 3 (pk 11, 12, 13, 14, 15, …)",
        "things.sqlite: possessions id=2: photo is NULL",
      ])
    #expect(
      WarningPrinter.note(warnings, all: false)
        == "15 warnings were summed up; '--warnings all' prints every one, '--report' lists them")
    // All: every one, sorted the same way.
    let all = WarningPrinter.lines(warnings, all: true)
    #expect(all.count == warnings.count)
    #expect(all.first == "todo.sqlite: todo pk=1: priority 8 is not 1, 2 or 3")
    #expect(all.last == "things.sqlite: possessions id=2: photo is NULL")
    #expect(WarningPrinter.note(warnings, all: true) == nil)
  }

  @Test("a summed-up kind whose values are all the same shows them; quoted values are masked")
  func sameValues() {
    let same = (1...12).map { warning("t.sqlite", $0, "priority 7 is not 1, 2 or 3") }
    #expect(
      WarningPrinter.lines(same, all: false).last
        == "t.sqlite: 2 more in todo: priority 7 is not 1, 2 or 3 (pk 11, 12)")
    let quoted = (1...11).map { warning("t.sqlite", $0, "due '\($0) May' is not a date") }
    #expect(
      WarningPrinter.lines(quoted, all: false).last
        == "t.sqlite: 1 more in todo: due '11 May' is not a date (pk 11)")
    let twoQuoted = (1...12).map { warning("t.sqlite", $0, "due '\($0) May' is not a date") }
    #expect(
      WarningPrinter.lines(twoQuoted, all: false).last
        == "t.sqlite: 2 more in todo: due … is not a date (pk 11, 12)")
    // Without a location: a line "like" the message.
    let plain = (1...11).map {
      BuildWarning(file: "layout.html", message: "unknown label 'x\($0)'")
    }
    #expect(
      WarningPrinter.lines(plain, all: false).last
        == "layout.html: 1 more like: unknown label 'x11'"
    )
    #expect(WarningPrinter.lines([], all: false).isEmpty)
    #expect(WarningPrinter.note(same.prefix(10).map { $0 }, all: false) == nil)
  }

  @Test("2,000 rows with 1,000 bad priorities: at most 15 warning lines, every one in --report")
  func manyBadPriorities() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let todos = folder + "/todo.sqlite"
    try Database.createForTesting(
      at: todos,
      sql: """
        BEGIN;
        CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
        INSERT INTO todo SELECT i, 'task ' || i, CASE WHEN i % 2 = 0 THEN i % 5 + 4 ELSE 1 END,
          0 FROM n;
        COMMIT;
        """)
    let report = folder + "/report.json"
    let result = runTaskpress([
      "build", "--todos", todos, "--output", folder + "/site", "--report", report,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stderr.split(separator: "\n")
    let warningLines = lines.filter { $0.hasPrefix("warning: ") }
    #expect(warningLines.count <= 15, "\(result.stderr)")
    #expect(warningLines.count == 11)
    #expect(
      warningLines.last
        == "warning: \(todos): 990 more in todo: priority … is not 1, 2 or 3 (pk 22, 24, 26, 28, 30, …)"
    )
    #expect(lines.last?.hasPrefix("note: 990 warnings were summed up") == true)
    let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(filePath: report)))
    let object = try #require(json as? [String: Any])
    #expect(object["warnings"] as? Int == 1000)
    #expect((object["warningList"] as? [Any])?.count == 1000)

    // --warnings all: every one on stderr; --quiet: none.
    let all = runTaskpress([
      "build", "--todos", todos, "--output", folder + "/site", "--warnings", "all",
    ])
    #expect(all.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }.count == 1000)
    let quiet = runTaskpress(["build", "--todos", todos, "--output", folder + "/site", "-q"])
    #expect(quiet.stderr.isEmpty)
    let bad = runTaskpress(["build", "--todos", todos, "--warnings", "some"])
    #expect(bad.status == 64)
    #expect(bad.stderr.hasPrefix("error: '--warnings': invalid value 'some'"))
  }
}
