import Foundation
import TaskpressKit
import Testing

/// Other apps' databases as they are: the fixtures in `Tests/TestFixtures/apps/`, made by the
/// real programs (`Scripts/make-app-fixtures`), built through a mapping with value maps and
/// date units.
@Suite struct AppDatabaseTests {
  typealias Folder = DatabaseMappingTests.Folder

  static let apps = CompletionsTests.repository.appending(path: "Tests/TestFixtures/apps")

  /// The UUID-keyed app: text keys, text priorities, millisecond dates.
  static let uuidMapping = """
    {"todos": {"file": "tasks.sqlite", "table": "tasks",
      "columns": {"pk": "id", "text": "title", "complete": "completed", "due": "due_date"},
      "values": {"priority": {"urgent": "1:Urgent", "high": "2:High", "medium": "3:Medium",
        "low": "4:Low"}},
      "dates": {"due": "milliseconds"}}}
    """

  /// A copy of the UUID app's database in a new folder with `config` as `taskpress.json`.
  static func uuidFolder(_ config: String = uuidMapping) throws -> Folder {
    let folder = try Folder()
    try FileManager.default.copyItem(
      atPath: apps.appending(path: "uuid-app/tasks.sqlite").path,
      toPath: folder.path + "/tasks.sqlite")
    try folder.write("taskpress.json", config)
    return folder
  }

  @Test("a UUID-keyed app: every task with its key, priority label and due day, 0 warnings")
  func uuidApp() throws {
    let folder = try Self.uuidFolder()
    let before = try Data(contentsOf: URL(filePath: folder.path + "/tasks.sqlite"))
    let result = try folder.taskpress(["build", "--date", "2025-03-15"])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    let published = try Self.published(folder)
    for key in published.keys where !key.contains(where: \.isUppercase) {
      #expect(
        FileManager.default.fileExists(atPath: folder.path + "/site/todos/\(key).html"), "\(key)")
    }
    #expect(
      published == [
        "8f3a2c": "Urgent In Progress 2025-03-21",
        "0c6e4d2a-5b7f-4e19-9a3d-1f2e3d4c5b6a": "High Complete 2025-03-10",
        "1d7f5e3b-6c80-4f2a-8b4e-2a3f4e5d6c7b": "Medium In Progress ",
        "2e8a6f4c-7d91-4a3b-9c5f-3b4a5f6e7d8c": "Low Complete 2025-03-12",
        "3f9b7a5d-8ea2-4b4c-8d6a-4c5b6a7f8e9d": "No priority In Progress ",
        "4a0c8b6e-9fb3-4c5d-9e7b-5d6c7b8a9f0e": "Low In Progress 2025-04-30",
        "5b1d9c7f-a0c4-4d6e-8f8c-6e7d8c9b0a1f": "High In Progress 2025-03-31",
        "6C2EAD80-B1D5-4E7F-9A9D-7F8E9DAC1B2A": "Urgent Complete 2025-03-14",
      ])
    // The upper-case UUID has a page of its own under a name of lower-case hex digits.
    let pages = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/site/todos")
    #expect(pages.count == 8)
    #expect(pages.filter { $0.hasPrefix("_") }.count == 1)
    let page = try String(
      contentsOfFile: folder.path + "/site/todos/8f3a2c.html", encoding: .utf8)
    #expect(page.contains("Ship the onboarding flow"))
    #expect(page.contains("Urgent"))
    // Nothing in the database's folder changed.
    #expect(try Data(contentsOf: URL(filePath: folder.path + "/tasks.sqlite")) == before)
    let listing = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    #expect(listing == [".site.taskpress", "site", "taskpress.json", "tasks.sqlite"], "\(listing)")
    // A rebuild keeps every page where it was and writes nothing.
    let again = try folder.taskpress(["build", "--date", "2025-03-15"])
    #expect(again.status == 0)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path + "/site/todos").sorted()
        == pages.sorted())
  }

  @Test("milliseconds read as seconds, and a value the map misses, are one warning each")
  func uuidAppMistakes() throws {
    let config = Self.uuidMapping
      .replacing(#""high": "2:High", "#, with: "")
      .replacing(#","# + "\n" + #"  "dates": {"due": "milliseconds"}"#, with: "")
    #expect(!config.contains("dates"))
    let folder = try Self.uuidFolder(config)
    let result = try folder.taskpress(["build", "--date", "2025-03-15"])
    #expect(result.status == 0)
    #expect(
      result.stderr.split(separator: "\n").sorted() == [
        "warning: tasks.sqlite: tasks: due_date: 6 numbers look like milliseconds, not seconds;"
          + #" set "dates": {"due": "milliseconds"} in the mapping"#,
        #"warning: tasks.sqlite: tasks: priority 'high' is not in the mapping's "values" (2 rows);"#
          + " shown as No priority",
      ])
  }

  @Test(
    "bad value maps and date units are usage errors naming the key",
    arguments: [
      (
        #"{"priority": {"H": "highest"}}"#, "seconds",
        #"error: taskpress.json:1:2: key 'todos': "values" "priority": 'H' goes to 'highest',"#
          + " which is not high, medium, low, none, a level's number or 'number:label'"
          + " (e.g. '4:Someday')"
      ),
      (
        #"{"state": {"x": "done"}}"#, "seconds",
        #"error: taskpress.json:1:2: key 'todos': "values" maps the values of 'priority', not"#
          + " 'state'"
      ),
      (
        #"{"priority": {"H": "high"}}"#, "fortnights",
        #"error: taskpress.json:1:2: key 'todos': "dates": 'fortnights' is not a unit"#
          + " (the units are 'seconds', 'milliseconds', 'core-data', 'julian', 'iso')"
      ),
    ])
  func mistakes(values: String, unit: String, expected: String) throws {
    let folder = try Self.uuidFolder(
      #"{"todos": {"file": "tasks.sqlite", "table": "tasks", "values": "#
        + values + #", "dates": {"due": ""# + unit + #""}}}"#)
    let result = try folder.taskpress(["build"])
    #expect(result.status == 64)
    #expect(result.stderr.split(separator: "\n").first.map(String.init) == expected)
    #expect(!FileManager.default.fileExists(atPath: folder.path + "/site"))
  }

  /// The published to-dos of `data/todos.json` in `folder`'s site: key to priority label,
  /// status and due day.
  static func published(_ folder: Folder) throws -> [String: String] {
    let data = try Data(contentsOf: URL(filePath: folder.path + "/site/data/todos.json"))
    let rows = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    var published: [String: String] = [:]
    for row in rows {
      let key = try #require(row["pk"] as? String)
      let due = (row["due"] as? String).map { String($0.prefix(10)) } ?? ""
      published[key] = "\(row["priority_label"] ?? "") \(row["status"] ?? "") \(due)"
    }
    return published
  }

  /// A folder with the fixture `app/file` copied in and `"todos": {"app": APP, "file": FILE}`.
  static func presetFolder(app: String, folder fixture: String, file: String) throws -> Folder {
    let folder = try Folder()
    try FileManager.default.copyItem(
      atPath: apps.appending(path: "\(fixture)/\(file)").path, toPath: folder.path + "/" + file)
    try folder.write(
      "taskpress.json", #"{"todos": {"app": ""# + app + #"", "file": ""# + file + #""}}"#)
    return folder
  }

  @Test("\"app\": \"taskwarrior\" publishes a TaskChampion store made by its own library")
  func taskwarrior() throws {
    let folder = try Self.presetFolder(
      app: "taskwarrior", folder: "taskwarrior", file: "taskchampion.sqlite3")
    let before = try Data(contentsOf: URL(filePath: folder.path + "/taskchampion.sqlite3"))
    let result = try folder.taskpress(["build", "--date", "2025-03-15"])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    let uuid = "6b0f8b5e-1c1d-4a1e-9a57-0c2f3a4b5c0"
    #expect(
      try Self.published(folder) == [
        uuid + "1": "High In Progress 2025-03-20",
        uuid + "2": "Medium Complete ",
        uuid + "3": "Low Complete 2025-03-15",
        uuid + "5": "Medium In Progress ",
        uuid + "6": "High In Progress 2025-04-01",
        uuid + "7": "No priority In Progress ",
        uuid + "8": "Low In Progress 2025-05-01",
      ])
    #expect(try Data(contentsOf: URL(filePath: folder.path + "/taskchampion.sqlite3")) == before)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
        ".site.taskpress", "site", "taskchampion.sqlite3", "taskpress.json",
      ])
  }

  @Test("\"app\": \"todoman\" publishes the cache todoman made, iCalendar's priorities as levels")
  func todoman() throws {
    let folder = try Self.presetFolder(app: "todoman", folder: "todoman", file: "cache.sqlite3")
    let result = try folder.taskpress(["build", "--date", "2025-03-15"])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    let uid = { (number: Int) in "todoman-fixture-0\(number)@taskpress" }
    #expect(
      try Self.published(folder) == [
        uid(1): "High In Progress 2025-03-20",
        uid(2): "Medium In Progress 2025-03-25",
        uid(3): "Low Complete 2025-03-14",
        uid(5): "No priority In Progress ",
        uid(6): "High In Progress 2025-03-18",
        uid(7): "Low Complete 2025-03-09",
        uid(8): "Low In Progress ",
      ])
  }

  @Test("an unknown app, or \"app\" beside a mapping, is a usage error saying what to do")
  func presetMistakes() throws {
    let folder = try Self.presetFolder(app: "things", folder: "todoman", file: "cache.sqlite3")
    let unknown = try folder.taskpress(["build"])
    #expect(unknown.status == 64)
    #expect(
      unknown.stderr.hasPrefix(
        #"error: taskpress.json:1:2: key 'todos': "app": 'things' is not an app taskpress knows"#
          + " (the apps are 'taskwarrior', 'todoman')"))
    try folder.write(
      "taskpress.json",
      #"{"todos": {"app": "todoman", "file": "cache.sqlite3", "table": "todos"}}"#)
    let both = try folder.taskpress(["build"])
    #expect(both.status == 64)
    #expect(both.stderr.contains(#"drop "table", or drop "app""#))
  }

  @Test("the apps are told apart by their tables")
  func detect() {
    #expect(
      AppPreset.detect(tables: [
        "tasks": ["uuid", "data"], "operations": ["id", "data"], "working_set": ["id", "uuid"],
      ]) == .taskwarrior)
    #expect(
      AppPreset.detect(tables: [
        "todos": ["id", "uid", "summary", "status", "priority"], "files": ["path"],
      ]) == .todoman)
    #expect(AppPreset.detect(tables: ["todo": ["pk", "text", "priority", "complete"]]) == nil)
  }
}
