import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

/// `calendar.ics` and the priority calendars: an all-day event per open to-do with a due date.
@Suite struct CalendarTests {
  static let schema = """
    CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete, due);
    INSERT INTO todo VALUES
      (1, 'Pay rent', 1, 0, '2026-12-31'),
      (2, 'Done already', 1, 1, '2026-12-02'),
      (3, 'No date', 2, 0, NULL),
      (4, 'Semi; comma, back\\slash' || char(10) || 'next line', 2, 0, '2024-02-29T10:00:00Z'),
      (5, 'Not a date', 3, 0, 'soon'),
      (6, 'Bad day', 3, 0, '2026-02-30'),
      (7, '長い日本語の件名はここで七十五オクテットを超えて折り返されるが、文字の途中では決して切られない。', 3, 0, '2026-11-30'),
      (8, '', 9, 0, 1798675200),
      (9, 'Low', 3, 0, '2026-12-05');
    """

  static func options(_ folder: String) throws -> BuildOptions {
    let database = folder + "/todo.sqlite"
    if !FileManager.default.fileExists(atPath: database) {
      try Database.createForTesting(at: database, sql: schema)
    }
    var options = BuildOptions()
    options.todos = database
    options.mapping.todos.columns["due"] = "due"
    options.output = folder + "/site"
    options.date = "2026-12-01T06:00:00Z"
    return options
  }

  static func build(_ options: BuildOptions) throws {
    _ = try Build.run(
      options, interrupt: InterruptFlag(), reporter: Build.Reporter(warning: { _ in }))
  }

  static func read(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
  }

  /// The unfolded lines of each VEVENT.
  static func events(_ ics: String) -> [[String]] {
    let unfolded = ics.replacingOccurrences(of: "\r\n ", with: "")
    return unfolded.components(separatedBy: "BEGIN:VEVENT\r\n").dropFirst().map {
      $0.components(separatedBy: "END:VEVENT")[0].components(separatedBy: "\r\n").filter {
        !$0.isEmpty
      }
    }
  }

  static func check(_ file: String, events: Int) throws {
    let script = URL(filePath: #filePath).deletingLastPathComponent()
      .appending(path: "../../Scripts/check-calendar").standardized.path
    let python = try Tool.require("python3", install: "apt-get install python3")
    let result = Tool.run(python, [script, file, "\(events)"])
    #expect(result.status == 0, "\(result.output)")
    #expect(result.output.contains(": ok, \(events) events"), "\(result.output)")
  }

  @Test("the events: open, dated; UIDs, dates, text escaped and folded; icalendar reads them")
  func events() throws {
    let folder = try makeTemporaryFolder()
    var options = try Self.options(folder)
    options.baseURL = "https://example.org/tasks/"
    try Self.build(options)
    let site = options.output
    let ics = try Self.read(site + "/calendar.ics")
    let events = Self.events(ics)
    // 1, 4, 7, 8 and 9: not the complete one, nor those without a real date.
    #expect(
      events.map { $0.first { $0.hasPrefix("UID:") } ?? "" }
        == [1, 4, 7, 8, 9].map { "UID:todo-\($0)@example.org" })
    #expect(
      events[0] == [
        "UID:todo-1@example.org", "DTSTAMP:20261201T060000Z", "DTSTART;VALUE=DATE:20261231",
        "DTEND;VALUE=DATE:20270101", "SUMMARY:Pay rent", "CATEGORIES:High",
        "URL:https://example.org/tasks/todos/1.html", "TRANSP:TRANSPARENT", "SEQUENCE:0",
      ])
    #expect(events[1].contains("SUMMARY:Semi\\; comma\\, back\\\\slash\\nnext line"))
    #expect(events[1].contains("DTSTART;VALUE=DATE:20240229"))
    #expect(events[1].contains("DTEND;VALUE=DATE:20240301"))
    #expect(events[3].contains("SUMMARY:Task 8"))
    #expect(events[3].contains("CATEGORIES:Priority 9"))
    #expect(events[3].contains("DTSTART;VALUE=DATE:20261231"))
    // Every line ends with CRLF, at most 75 octets, and the long one is folded whole.
    let bytes = Array(ics.utf8)
    for (index, byte) in bytes.enumerated() where byte == 10 {
      #expect(index > 0 && bytes[index - 1] == 13)
    }
    #expect(ics.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 75 })
    #expect(ics.contains("\r\n "))
    #expect(events[2].contains { $0.hasPrefix("SUMMARY:長い日本語") && $0.hasSuffix("切られない。") })
    // The priority calendars.
    #expect(Self.events(try Self.read(site + "/calendar-high.ics")).count == 1)
    #expect(Self.events(try Self.read(site + "/calendar-medium.ics")).count == 1)
    #expect(Self.events(try Self.read(site + "/calendar-low.ics")).count == 2)
    #expect(Self.events(try Self.read(site + "/calendar-other.ics")).count == 1)
    #expect(!FileManager.default.fileExists(atPath: site + "/calendar-none.ics"))
    // Linked as "Subscribe", with webcal: for an https site.
    #expect(
      try Self.read(site + "/index.html").contains(
        "href=\"webcal://example.org/tasks/calendar.ics\""))
    try Self.check(site + "/calendar.ics", events: 5)
    try Self.check(site + "/calendar-low.ics", events: 2)
  }

  @Test(
    "byte-identical when nothing changed; a changed due date moves that event and bumps SEQUENCE")
  func sequence() throws {
    let folder = try makeTemporaryFolder()
    var options = try Self.options(folder)
    try Self.build(options)
    let path = options.output + "/calendar.ics"
    let first = try Self.read(path)
    // Without --base-url: no URL, a UID from the title, the file linked.
    #expect(Self.events(first)[0][0] == "UID:todo-1@task-report.taskpress.invalid")
    #expect(!first.contains("URL:"))
    #expect(try Self.read(options.output + "/index.html").contains("href=\"calendar.ics\""))
    // Another date, another to-do changed: no event changed, the same bytes.
    options.date = "2026-12-02T06:00:00Z"
    let connection = try Database.openWritableForTesting(at: options.todos ?? "")
    try connection.execute("UPDATE todo SET text = 'Still done' WHERE pk = 2;")
    try Self.build(options)
    #expect(try Self.read(path) == first)
    // One due date changed: that event alone, SEQUENCE 1 and this build's DTSTAMP.
    options.date = "2026-12-03T06:00:00Z"
    try connection.execute("UPDATE todo SET due = '2027-01-15' WHERE pk = 9;")
    try Self.build(options)
    let second = try Self.read(path)
    let (before, after) = (Self.events(first), Self.events(second))
    #expect(before.count == after.count)
    for (old, new) in zip(before, after) where old[0] != "UID:todo-9@task-report.taskpress.invalid"
    {
      #expect(old == new)
    }
    let moved = try #require(after.last)
    #expect(moved.contains("DTSTART;VALUE=DATE:20270115"))
    #expect(moved.contains("DTEND;VALUE=DATE:20270116"))
    #expect(moved.contains("SEQUENCE:1"))
    #expect(moved.contains("DTSTAMP:20261203T060000Z"))
    // Again: SEQUENCE 2; and it survives a build with nothing changed.
    options.date = "2026-12-04T06:00:00Z"
    try connection.execute("UPDATE todo SET text = 'Low, renamed' WHERE pk = 9;")
    try Self.build(options)
    options.date = "2026-12-05T06:00:00Z"
    try Self.build(options)
    let third = Self.events(try Self.read(path))
    #expect(third.last?.contains("SEQUENCE:2") == true)
    #expect(third.last?.contains("SUMMARY:Low\\, renamed") == true)
    // Completed: the event is gone from the calendars.
    try connection.execute("UPDATE todo SET complete = 1 WHERE pk = 9;")
    try Self.build(options)
    #expect(Self.events(try Self.read(path)).count == 4)
    #expect(Self.events(try Self.read(options.output + "/calendar-low.ics")).count == 1)
    try Self.check(path, events: 4)
  }

  @Test("a damaged previous calendar: its events count as new, the build goes on")
  func damaged() throws {
    let folder = try makeTemporaryFolder()
    let options = try Self.options(folder)
    try Self.build(options)
    let path = options.output + "/calendar.ics"
    let good = try Self.read(path)
    for damage in [
      "garbage",
      "BEGIN:VEVENT\r\nUID:todo-1@task-report.taskpress.invalid\r\nSEQUENCE:99999999999999999999\r\n",
      good.replacingOccurrences(of: "SEQUENCE:0", with: "SEQUENCE:-3"),
      good.replacingOccurrences(of: "DTSTAMP:20261201T060000Z", with: "DTSTAMP:x\r\nEVIL:1"),
    ] {
      try Data(damage.utf8).write(to: URL(filePath: path))
      try Self.build(options)
      #expect(try Self.read(path) == good)
    }
    // Kept: a SEQUENCE the previous calendar gave carries on.
    try Data(good.replacingOccurrences(of: "SEQUENCE:0", with: "SEQUENCE:7").utf8).write(
      to: URL(filePath: path))
    try Self.build(options)
    #expect(Self.events(try Self.read(path)).allSatisfy { $0.contains("SEQUENCE:7") })
  }

  @Test("folding never splits a UTF-8 sequence; TEXT escaping")
  func folding() {
    for text in [
      String(repeating: "a", count: 200), String(repeating: "日", count: 100),
      String(repeating: "😀", count: 60), "x" + String(repeating: "é", count: 90),
    ] {
      var output: [UInt8] = []
      ICalendar.fold("SUMMARY:" + text, into: &output)
      let lines = String(decoding: output, as: UTF8.self).components(separatedBy: "\r\n")
      #expect(lines.last == "")
      #expect(lines.allSatisfy { $0.utf8.count <= 75 })
      #expect(
        String(decoding: output, as: UTF8.self).replacingOccurrences(of: "\r\n ", with: "")
          == "SUMMARY:" + text + "\r\n")
      // Whole scalars on every line.
      #expect(
        lines.allSatisfy {
          Array($0.utf8) == Array(String(decoding: Array($0.utf8), as: UTF8.self).utf8)
            && !$0.contains("\u{FFFD}")
        })
    }
    #expect(
      ICalendar.text("a\\b;c,d\r\ne\rf\ng\u{1}h\u{7F}")
        == "a\\\\b\\;c\\,d\\ne\\nf\\ng\u{FFFD}h\u{FFFD}")
    #expect(ICalendar.uri("https://x.org/a b\r\n") == "https://x.org/a%20b%0D%0A")
    #expect(
      ICalendar.uidDomain(baseURL: "https://User@Example.org:8443/x", title: "t") == "example.org")
    #expect(
      ICalendar.uidDomain(baseURL: nil, title: "Mes tâches · 2026")
        == "mes-t-ches-2026.taskpress.invalid")
    #expect(ICalendar.uidDomain(baseURL: nil, title: "タスク") == "taskpress.invalid")
    #expect(
      ICalendar.day("2026-12-31").map { [$0.start, $0.end] } == ["2026-12-31", "2027-01-01"])
    #expect(
      ICalendar.day("2026-02-28").map { [$0.start, $0.end] } == ["2026-02-28", "2026-03-01"])
    #expect(ICalendar.day("2026-02-29") == nil)
    #expect(ICalendar.day("2026-00-10") == nil)
    #expect(ICalendar.day("9999-12-31") == nil)
  }
}
