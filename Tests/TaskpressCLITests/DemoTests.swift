import Foundation
@_spi(Testing) import SQLite
import Testing

/// The demo as `Scripts/demo` builds it on a fresh clone: the databases made from `Demo/*.sql`,
/// the history in `Demo/previous` (and its state folder's snapshot), over the committed `site/`.
@Suite struct DemoTests {
  static let repository = URL(filePath: #filePath).deletingLastPathComponent()
    .appending(path: "../..").standardized.path

  @Test(
    "the demo builds clean over the committed site: no warning, no note, nothing written; its flow page has real days open"
  )
  func demoOnAFreshClone() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let demo = folder + "/Demo"
    let manager = FileManager.default
    try manager.createDirectory(atPath: demo + "/build", withIntermediateDirectories: true)
    for name in ["todos", "possessions", "contacts"] {
      let sql = try String(contentsOfFile: Self.repository + "/Demo/\(name).sql", encoding: .utf8)
      try Database.createForTesting(at: demo + "/build/\(name).sqlite", sql: sql)
    }
    for item in ["taskpress.json", "previous", ".previous.taskpress"] {
      try manager.copyItem(atPath: Self.repository + "/Demo/" + item, toPath: demo + "/" + item)
    }
    // The committed site, as a clone has it: taskpress's state folder is not committed.
    try manager.copyItem(atPath: Self.repository + "/site", toPath: folder + "/site")
    try? manager.removeItem(atPath: folder + "/site/.taskpress")

    let result = runTaskpress(["build", "--config", demo + "/taskpress.json"])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    #expect(
      result.stdout.contains(": 0 written, "),
      "site/ is not what Scripts/demo builds: run Scripts/demo and commit site/ (\(result.stdout))")
    // The first recorded night is dated: every open to-do of the flow page has its first day
    // and its days open.
    let flow = try String(contentsOfFile: folder + "/site/flow.html", encoding: .utf8)
    let rows = flow.components(separatedBy: "<tr class=\"priority-").dropFirst()
    #expect(rows.count >= 5)
    for row in rows {
      #expect(row.contains("<td class=\"date\"><time datetime=\"2026-11-"), "\(row)")
      #expect(!row.contains("data-since=\"2026-11-27\"></td>"), "\(row)")
    }
  }
}
