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

  static func build(_ options: BuildOptions, sourceDateEpoch: String? = nil) throws {
    _ = try Build.run(
      options, sourceDateEpoch: sourceDateEpoch, interrupt: InterruptFlag(),
      reporter: Build.Reporter(warning: { _ in }))
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

  @Test("calendar.html: a month view of the due dates, overdue marked, in the nav and the sitemap")
  func monthView() throws {
    let folder = try makeTemporaryFolder()
    var options = try Self.options(folder)
    options.baseURL = "https://example.org/tasks/"
    // Seven more to-dos due on one day: five listed, the rest counted.
    let connection = try Database.openWritableForTesting(at: options.todos ?? "")
    try connection.execute(
      (10...16).map { "INSERT INTO todo VALUES (\($0), 'Busy \($0)', 2, 0, '2026-12-24');" }
        .joined())
    // 2026-12-01: the build's date, for overdue.
    try Self.build(options, sourceDateEpoch: "1796083200")
    let page = try Self.read(options.output + "/calendar.html")
    #expect(page.contains("<title>Calendar · Task report</title>"))
    // The months with a due to-do, in order: February 2024, November and December 2026.
    let months = page.components(separatedBy: "<h2 id=\"month-").dropFirst().map {
      String($0.prefix { $0 != "\"" })
    }
    #expect(months == ["2024-02", "2026-11", "2026-12"])
    #expect(page.contains("<h2 id=\"month-2026-12\">December 2026</h2>"))
    // 2026-12-01 is a Tuesday: the first week starts with one day outside the month.
    #expect(
      page.contains(
        "<tr><td class=\"outside\"></td><td class=\"no-todos is-today\"><span class=\"day\">"
          + "<time datetime=\"2026-12-01\"><span class=\"day-name\">Tue </span>1</time>"))
    // 2024-02-29 is a Thursday.
    #expect(page.contains("<time datetime=\"2024-02-29\"><span class=\"day-name\">Thu </span>29"))
    // Overdue: those due before the build's date (2024-02-29 and 2026-11-30), not the others.
    #expect(page.components(separatedBy: "is-overdue").count - 1 == 2)
    #expect(page.contains("<strong class=\"overdue\">2 overdue</strong>"))
    #expect(page.contains("href=\"todos/4.html\">Semi; comma, back\\slash\nnext line</a>"))
    // One day lists five to-dos and counts the rest.
    #expect(page.contains("<span class=\"more\">and 2 more</span>"))
    #expect(page.components(separatedBy: ">Busy ").count - 1 == 5)
    // The calendars to subscribe to, by webcal:.
    #expect(
      page.contains(
        "<a href=\"webcal://example.org/tasks/calendar.ics\" type=\"text/calendar\">All priorities</a>"
      ))
    #expect(
      page.contains(
        "<a href=\"webcal://example.org/tasks/calendar-low.ics\" type=\"text/calendar\">Low</a>"))
    // In the nav of every page, and in the sitemap.
    #expect(
      try Self.read(options.output + "/todos/1.html").contains(
        "<a href=\"../calendar.html\">Calendar</a>"))
    #expect(page.contains("<a href=\"calendar.html\" aria-current=\"page\">Calendar</a>"))
    #expect(
      try Self.read(options.output + "/sitemap.xml").contains(
        "<loc>https://example.org/tasks/calendar.html</loc>"))
    // No calendar without a due column (the table's is named otherwise, and not mapped).
    try connection.execute("ALTER TABLE todo RENAME COLUMN due TO deadline")
    options.mapping.todos.columns["due"] = nil
    try Self.build(options)
    for file in ["calendar.html", "calendar.ics", "calendar-high.ics"] {
      #expect(!FileManager.default.fileExists(atPath: options.output + "/" + file))
    }
    #expect(!(try Self.read(options.output + "/index.html").contains("Subscribe")))
    #expect(!(try Self.read(options.output + "/index.html").contains("calendar.html")))
  }

  @Test("calendar.html in Japanese, with pretty URLs, and with no open dated to-do")
  func japanese() throws {
    let folder = try makeTemporaryFolder()
    var options = try Self.options(folder)
    options.locale = .ja
    options.prettyURLs = true
    try Self.build(options)
    let page = try Self.read(options.output + "/calendar/index.html")
    #expect(page.contains("<h2 id=\"month-2026-12\">2026年12月</h2>"))
    #expect(page.contains("<th scope=\"col\">月</th>"))
    #expect(page.contains("<a href=\"../calendar.ics\" type=\"text/calendar\">すべての優先度</a>"))
    let connection = try Database.openWritableForTesting(at: options.todos ?? "")
    try connection.execute("UPDATE todo SET complete = 1;")
    try Self.build(options)
    let empty = try Self.read(options.output + "/calendar/index.html")
    #expect(empty.contains("<p class=\"empty\">期限のある未完了のタスクはありません。</p>"))
    #expect(Self.events(try Self.read(options.output + "/calendar.ics")).isEmpty)
  }

  @Test("the day of the week, against Foundation's calendar, for 1900 to 2100")
  func weekdays() throws {
    var gregorian = Foundation.Calendar(identifier: .gregorian)
    gregorian.timeZone = try #require(TimeZone(identifier: "UTC"))
    for year in stride(from: 1900, through: 2100, by: 7) {
      for month in 1...12 {
        for day in [1, 15, PageContext.days(inMonth: month, year: year)] {
          let date = try #require(
            gregorian.date(from: DateComponents(year: year, month: month, day: day)))
          // Foundation: 1 Sunday ... 7 Saturday; ours: 0 Monday ... 6 Sunday.
          let expected = (gregorian.component(.weekday, from: date) + 5) % 7
          #expect(PageContext.weekday(year: year, month: month, day: day) == expected)
        }
      }
    }
  }

  @Test("--date alone is the build's date: three nights give SOURCE_DATE_EPOCH's bytes")
  func dateFlagIsTheBuildsDate() throws {
    let folder = try makeTemporaryFolder()
    var byFlag = try Self.options(folder)
    byFlag.output = folder + "/by-flag"
    var byEpoch = byFlag
    byEpoch.output = folder + "/by-epoch"
    byEpoch.date = nil
    // Midnight UTC of 2026-11-29, 2026-11-30 and 2026-12-01.
    let nights = [
      ("2026-11-29", "1795910400"), ("2026-11-30", "1795996800"), ("2026-12-01", "1796083200"),
    ]
    for (night, epoch) in nights {
      byFlag.date = BuildDate.normalize(night)
      try Self.build(byFlag)
      try Self.build(byEpoch, sourceDateEpoch: epoch)
      let flagged = tree(byFlag.output)
      #expect(flagged == tree(byEpoch.output), "\(night)")
      // 2024-02-29 is overdue every night; 2026-11-30 only from 2026-12-01. The lists also
      // mark to-do 6, due '2026-02-30' (not a day, so not in the calendar).
      let marks = night == "2026-12-01" ? 2 : 1
      for (page, mark, count) in [
        ("index.html", "<strong class=\"overdue\">", marks + 1),
        ("calendar.html", " is-overdue\"", marks),
        ("status/in-progress/index.html", "<strong class=\"overdue\">", marks + 1),
      ] {
        let text = String(decoding: flagged[page] ?? Data(), as: UTF8.self)
        #expect(text.components(separatedBy: mark).count - 1 == count, "\(night) \(page)")
      }
      let todo = String(decoding: flagged["todos/7.html"] ?? Data(), as: UTF8.self)
      #expect(todo.contains("<strong>Overdue</strong>") == (night == "2026-12-01"), "\(night)")
    }
  }

  @Test("a todo table's due column is read without a mapping: the calendar and the due dates")
  func dueColumnByDefault() throws {
    let folder = try makeTemporaryFolder()
    var options = try Self.options(folder)
    options.mapping.todos.columns = [:]
    try Self.build(options)
    let site = tree(options.output)
    #expect(site["calendar.html"] != nil)
    #expect(site["calendar.ics"] != nil)
    let index = String(decoding: site["index.html"] ?? Data(), as: UTF8.self)
    #expect(index.contains("<span class=\"due\">Due 2026-12-31</span>"))
  }

  @Test(
    "a due date changed, added or removed is a change: changes.html, the feeds, changes.json, the history",
    arguments: [BuildOptions.Locale.en, .ja])
  func dueDateChanges(locale: BuildOptions.Locale) throws {
    let folder = try makeTemporaryFolder()
    var options = try Self.options(folder)
    options.locale = locale
    let database = try Database.openWritableForTesting(at: options.todos ?? "")
    // Night 1: the data as it is. Night 2: only to-do 1's due date moves. Night 3: to-do 3
    // gets one, to-do 9 loses its own.
    options.date = "2026-12-01T06:00:00Z"
    try Self.build(options)
    try database.execute("UPDATE todo SET due = '2027-01-15' WHERE pk = 1")
    options.date = "2026-12-02T06:00:00Z"
    try Self.build(options)
    try database.execute("UPDATE todo SET due = '2026-12-20' WHERE pk = 3")
    try database.execute("UPDATE todo SET due = NULL WHERE pk = 9")
    options.date = "2026-12-03T06:00:00Z"
    try Self.build(options)
    let site = tree(options.output)
    func text(_ path: String) -> String { String(decoding: site[path] ?? Data(), as: UTF8.self) }
    let (changed, none, timeline) =
      locale == .ja ? ("期限の変更", "なし", "期限を変更") : ("Due date changed", "none", "Due date changed")
    // A day as the locale writes it (the `date` label).
    func shown(_ iso: String) -> String {
      guard locale == .ja else { return iso }
      let parts = iso.split(separator: "-").map { Int($0) ?? 0 }
      return "\(parts[0])年\(parts[1])月\(parts[2])日"
    }
    let changes = text("changes.html")
    #expect(changes.contains(changed), "\(changes)")
    #expect(changes.contains("\(shown("2026-12-31")) → \(shown("2027-01-15"))"))
    #expect(changes.contains("\(none) → \(shown("2026-12-20"))"))
    #expect(changes.contains("\(shown("2026-12-05")) → \(none)"))
    #expect(text("feed.xml").contains("\(shown("2026-12-31")) → \(shown("2027-01-15"))"))
    #expect(text("feed.json").contains("\(shown("2026-12-31")) → \(shown("2027-01-15"))"))
    let data = text("data/changes.json")
    #expect(data.components(separatedBy: "\"change\" : \"due\"").count - 1 == 3, "\(data)")
    #expect(
      text("data/todo-history.json").contains("{\"pk\":1,\"first\":1,\"events\":[[2,\"due\"]]}"))
    #expect(text("todos/1.html").contains(timeline))
    #expect(text("todos/9.html").contains(timeline))
    // The other to-dos' histories record nothing.
    #expect(!text("todos/4.html").contains(timeline))
  }

  @Test("a previous build without due dates records none: its copy had no due field")
  func dueDatesAppearing() throws {
    let folder = try makeTemporaryFolder()
    var options = try Self.options(folder)
    // A site built before the due dates were read (mapped to no column of the table).
    let database = try Database.openWritableForTesting(at: options.todos ?? "")
    try database.execute("ALTER TABLE todo RENAME COLUMN due TO deadline")
    options.mapping.todos.columns = [:]
    try Self.build(options)
    #expect(
      !String(decoding: tree(options.output)["data/todos.json"] ?? Data(), as: UTF8.self).contains(
        "\"due\""))
    // The next night the column is `due`: read by default, and not a change of every to-do.
    try database.execute("ALTER TABLE todo RENAME COLUMN deadline TO due")
    options.date = "2026-12-02T06:00:00Z"
    try Self.build(options)
    let site = tree(options.output)
    #expect(site["calendar.html"] != nil)
    let data = String(decoding: site["data/changes.json"] ?? Data(), as: UTF8.self)
    #expect(!data.contains("\"due\""), "\(data)")
    #expect(
      !String(decoding: site["changes.html"] ?? Data(), as: UTF8.self).contains("Due date changed"))
  }

}
