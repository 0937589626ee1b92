import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

/// Thirty nights of a to-do database, built night by night: the flow numbers the site publishes
/// (`data/flow.json`) equal a recomputation from the thirty SQLite files themselves, not from
/// taskpress's records.
@Suite struct FlowNightsTests {
  /// A to-do as a night's database has it.
  struct Row: Equatable {
    var text: String
    var priority: Int64?
    var complete: Bool
  }

  /// The rows of the database at `path`, by pk, read through SQLite directly.
  static func rows(_ path: String) throws -> [Int64: Row] {
    let database = try Database(path: path)
    let statement = try database.prepare("SELECT pk, text, priority, complete FROM todo")
    var rows: [Int64: Row] = [:]
    try statement.forEachRow { row in
      guard let pk = row.int64(at: 0) else { return }
      rows[pk] = Row(
        text: row.validText(at: 1) ?? "", priority: row.int64(at: 2),
        complete: (row.int64(at: 3) ?? 0) != 0)
    }
    return rows
  }

  static let noChangeNight = 8
  static let textOnlyNight = 12
  static let skippedNight = 20

  /// The SQL of night `night`: seeded adds, completions, reopenings, priority and text changes
  /// and removals; nothing on `noChangeNight`, one text on `textOnlyNight`. `live` is what the
  /// generator knows of the rows (only to choose them; the check reads the files).
  static func sql(
    night: Int, live: inout [Int64: Row], next: inout Int64, random: inout SplitMix
  ) -> String {
    var statements: [String] = []
    // High, Medium, Low (NULL or another number is warned about).
    let priorities: [Int64?] = [1, 2, 3]
    func sqlPriority(_ value: Int64?) -> String { value.map(String.init) ?? "NULL" }
    func insert(complete: Bool) {
      let priority = priorities.randomElement(using: &random) ?? nil
      statements.append(
        "INSERT INTO todo VALUES (\(next), 'Task \(next)', \(sqlPriority(priority)), "
          + "\(complete ? 1 : 0));")
      live[next] = Row(text: "Task \(next)", priority: priority, complete: complete)
      next += 1
    }
    func pick(_ complete: Bool) -> Int64? {
      live.filter { $0.value.complete == complete }.keys.sorted().randomElement(using: &random)
    }
    if night == 1 {
      for index in 0..<14 { insert(complete: index % 6 == 5) }
    } else if night == noChangeNight {
      return ""
    } else if night == textOnlyNight {
      let pk = live.keys.sorted()[0]
      statements.append("UPDATE todo SET text = 'Renamed \(night)' WHERE pk = \(pk);")
      live[pk]?.text = "Renamed \(night)"
    } else {
      for _ in 0..<Int.random(in: 0...3, using: &random) { insert(complete: false) }
      for _ in 0..<Int.random(in: 0...3, using: &random) {
        guard let pk = pick(false) else { break }
        statements.append("UPDATE todo SET complete = 1 WHERE pk = \(pk);")
        live[pk]?.complete = true
      }
      if Int.random(in: 0..<3, using: &random) == 0, let pk = pick(true) {
        statements.append("UPDATE todo SET complete = 0 WHERE pk = \(pk);")
        live[pk]?.complete = false
      }
      if Bool.random(using: &random), let pk = live.keys.sorted().randomElement(using: &random) {
        let priority = priorities.randomElement(using: &random) ?? nil
        statements.append(
          "UPDATE todo SET priority = \(sqlPriority(priority)) WHERE pk = \(pk);")
        live[pk]?.priority = priority
      }
      if Bool.random(using: &random), let pk = live.keys.sorted().randomElement(using: &random) {
        statements.append("UPDATE todo SET text = 'Edited \(night)' WHERE pk = \(pk);")
        live[pk]?.text = "Edited \(night)"
      }
      if Int.random(in: 0..<3, using: &random) == 0,
        let pk = live.keys.sorted().randomElement(using: &random)
      {
        statements.append("DELETE FROM todo WHERE pk = \(pk);")
        live[pk] = nil
      }
    }
    return statements.joined(separator: "\n")
  }

  /// The flow numbers of the databases at `nights` (oldest first, each with its build's date),
  /// recomputed from their rows, in the shape of `data/flow.json` (as JSON values).
  static func recompute(_ nights: [(path: String, date: Date)]) throws -> [String: Any] {
    var calendar = Calendar(identifier: .iso8601)
    calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
    func day(_ date: Date) -> String {
      let parts = calendar.dateComponents([.year, .month, .day], from: date)
      return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
    func days(_ from: Date, _ to: Date) -> Int {
      calendar.dateComponents(
        [.day], from: calendar.startOfDay(for: from), to: calendar.startOfDay(for: to)
      ).day ?? 0
    }
    func week(_ date: Date) -> String {
      let parts = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
      return String(format: "%04d-W%02d", parts.yearForWeekOfYear ?? 0, parts.weekOfYear ?? 0)
    }
    struct Build {
      var number: Int
      var date: Date
      var rows: [Int64: Row]
      var added = 0
      var removed = 0
      var completed = 0
      var reopened = 0
    }
    var builds: [Build] = []
    var firstSeen: [Int64: (build: Int, date: Date)] = [:]
    var lastCompletion: [Int64: Date] = [:]
    for night in nights {
      let rows = try Self.rows(night.path)
      guard let previous = builds.last else {
        builds.append(Build(number: 1, date: night.date, rows: rows, added: rows.count))
        for pk in rows.keys { firstSeen[pk] = (1, night.date) }
        continue
      }
      var build = Build(number: previous.number + 1, date: night.date, rows: rows)
      var changed = false
      for (pk, row) in rows {
        guard let old = previous.rows[pk] else {
          build.added += 1
          firstSeen[pk] = (build.number, night.date)
          continue
        }
        if !old.complete && row.complete {
          build.completed += 1
          lastCompletion[pk] = night.date
        }
        if old.complete && !row.complete {
          build.reopened += 1
          lastCompletion[pk] = nil
        }
        changed = changed || old != row
      }
      build.removed = previous.rows.keys.filter { rows[$0] == nil }.count
      changed = changed || build.added > 0 || build.removed > 0
      // A night that changed nothing records no build.
      if changed { builds.append(build) }
    }
    // The points: the builds that changed a count.
    func byPriority(_ rows: [Int64: Row]) -> [(priority: Int64?, open: Int, complete: Int)] {
      var counts: [Int64?: (open: Int, complete: Int)] = [:]
      for row in rows.values {
        counts[row.priority, default: (0, 0)].open += row.complete ? 0 : 1
        counts[row.priority, default: (0, 0)].complete += row.complete ? 1 : 0
      }
      // High, Medium, Low (1, 2, 3), other numbers in order, then none.
      return counts.keys.sorted { ($0 ?? .max) < ($1 ?? .max) }.map { key in
        (key, counts[key]?.open ?? 0, counts[key]?.complete ?? 0)
      }
    }
    var points: [[String: Any]] = []
    var lastCounts: (Int, Int, [String])?
    var asOf: Date?
    for build in builds {
      let scope = build.rows.count
      let done = build.rows.values.filter(\.complete).count
      let priorities = byPriority(build.rows)
      let counts = (
        scope, done, priorities.map { "\($0.priority ?? -1):\($0.open):\($0.complete)" }
      )
      if let last = lastCounts, last == counts,
        build.added + build.removed + build.completed + build.reopened == 0
      {
        continue
      }
      lastCounts = counts
      asOf = build.date
      points.append([
        "build": build.number, "date": day(build.date), "scope": scope, "done": done,
        "open": scope - done, "added": build.added, "removed": build.removed,
        "byPriority": priorities.map {
          [
            "priority": $0.priority.map { $0 as Any } ?? NSNull(), "open": $0.open,
            "complete": $0.complete,
          ] as [String: Any]
        },
      ])
    }
    let now = try #require(asOf)
    // Cycle times: first seen to the last completion, not reopened since.
    let cycles = lastCompletion.map { pk, date in days(firstSeen[pk]?.date ?? date, date) }.sorted()
    func percentile(_ p: Int) -> Any {
      cycles.first { value in cycles.filter { $0 <= value }.count * 100 >= p * cycles.count }
        ?? NSNull()
    }
    let ranges = [0...0, 1...1, 2...2, 3...4, 5...7, 8...14, 15...30, 31...60, 61...90]
    var bins = ranges.map { range in cycles.filter(range.contains).count }
    bins.append(cycles.filter { $0 >= 91 }.count)
    // Throughput: the completions of each ISO week, from the first build's week to now's.
    var byWeek: [String: Int] = [:]
    for build in builds { byWeek[week(build.date), default: 0] += build.completed }
    var weeks: [[String: Any]] = []
    var cursor = try #require(builds.first?.date)
    while week(cursor) != week(now) {
      weeks.append(["week": week(cursor), "completed": byWeek[week(cursor)] ?? 0])
      cursor = try #require(calendar.date(byAdding: .day, value: 7, to: cursor))
    }
    weeks.append(["week": week(now), "completed": byWeek[week(now)] ?? 0])
    // Aging: the ten open now that were first seen earliest, then by pk.
    let rows = try #require(builds.last?.rows)
    let open = rows.filter { !$0.value.complete }.keys.sorted {
      (firstSeen[$0]?.build ?? 0, $0) < (firstSeen[$1]?.build ?? 0, $1)
    }.prefix(10)
    let aging: [[String: Any]] = try open.map { pk in
      let first = try #require(firstSeen[pk])
      return [
        "pk": pk, "first": first.build, "firstDate": day(first.date),
        "days": days(first.date, now),
      ]
    }
    return [
      "date": day(now), "points": points,
      "cycleTime": [
        "count": cycles.count, "median": percentile(50), "p85": percentile(85), "bins": bins,
      ],
      "throughput": weeks, "aging": aging,
    ]
  }

  /// `data/flow.json` in the shape `recompute` gives.
  static func published(_ site: String) throws -> [String: Any] {
    var json = try ChangesTests.json(site + "/data/flow.json")
    #expect(json["format"] as? String == "taskpress-flow-1")
    json["format"] = nil
    var cycle = try #require(json["cycleTime"] as? [String: Any])
    cycle["bins"] = try #require(cycle["bins"] as? [[String: Any]]).map { $0["count"] ?? 0 }
    json["cycleTime"] = cycle
    return json
  }

  /// The body rows of the tables of the section `section` of a page (`flow-burnup`), each as
  /// its cells' texts (tags taken out, entities of the numbers and dates none), and each row's
  /// link and `data-since` when it has them.
  static func tableRows(_ html: String, section: String) throws -> [[String]] {
    let start = try #require(html.range(of: "<section class=\"report-card \(section)\""))
    let end = try #require(html.range(of: "</section>", range: start.upperBound..<html.endIndex))
    let part = String(html[start.upperBound..<end.lowerBound])
    guard let body = part.range(of: "<tbody>"), let bodyEnd = part.range(of: "</tbody>") else {
      return []
    }
    let tbody = String(part[body.upperBound..<bodyEnd.lowerBound])
    func matches(_ pattern: String, in text: String) throws -> [String] {
      let expression = try NSRegularExpression(
        pattern: pattern, options: [.dotMatchesLineSeparators])
      return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
        Range($0.range(at: 1), in: text).map { String(text[$0]) }
      }
    }
    return try matches("<tr[^>]*>(.*?)</tr>", in: tbody).map { row in
      var cells = try matches("<t[hd][^>]*>(.*?)</t[hd]>", in: row).map {
        $0.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression)
          .trimmingCharacters(in: .whitespaces)
      }
      cells += try matches("<a href=\"([^\"]*)\"", in: row)
      cells += try matches("data-since=\"([^\"]*)\"", in: row)
      return cells
    }
  }

  /// The tables of `flow.html` the numbers of `recompute` make: burnup, cumulative flow (in
  /// all and by priority), cycle time, throughput and aging (`titles` the to-dos' texts in the
  /// last night's database), as rows of cell texts.
  static func expectedTables(_ flow: [String: Any], titles: [Int64: String]) throws -> [String:
    [[String]]]
  {
    let points = try #require(flow["points"] as? [[String: Any]])
    func text(_ value: Any?) -> String { value.map { "\($0)" } ?? "" }
    var tables: [String: [[String]]] = [:]
    tables["flow-burnup"] = points.map { point in
      [text(point["date"])] + ["scope", "done", "added", "removed"].map { text(point[$0]) }
    }
    tables["flow-cumulative"] = points.map { point in
      [text(point["date"]), text(point["open"]), text(point["done"])]
    }
    // By priority: a column for each priority any point had, High to none.
    var priorities: [Int64?] = []
    for point in points {
      for counts in point["byPriority"] as? [[String: Any]] ?? [] {
        let priority = counts["priority"] as? Int64
        if !priorities.contains(priority) { priorities.append(priority) }
      }
    }
    priorities.sort { ($0 ?? .max) < ($1 ?? .max) }
    tables["flow-by-priority"] = points.map { point in
      let counts = point["byPriority"] as? [[String: Any]] ?? []
      return [text(point["date"]), text(point["done"])]
        + priorities.map { priority in
          text(counts.first { ($0["priority"] as? Int64) == priority }?["open"] ?? 0)
        }
    }
    let cycle = try #require(flow["cycleTime"] as? [String: Any])
    let bins = try #require(cycle["bins"] as? [Int])
    let labels =
      ["0 d", "1 d", "2 d", "3–4 d", "5–7 d", "8–14 d", "15–30 d", "31–60 d"]
      + ["61–90 d", "91+ d"]
    let starts = [0, 1, 2, 3, 5, 8, 15, 31, 61, 91]
    func bin(_ days: Any?) -> Int? {
      (days as? Int).flatMap { days in starts.lastIndex { $0 <= days } }
    }
    tables["flow-cycle"] = bins.indices.map { index in
      var label = labels[index]
      if bin(cycle["median"]) == index { label += " (Median)" }
      if bin(cycle["p85"]) == index { label += " (85th percentile)" }
      return [label, text(bins[index])]
    }
    tables["flow-throughput"] = try #require(flow["throughput"] as? [[String: Any]]).map {
      [text($0["week"]), text($0["completed"])]
    }
    tables["flow-aging"] = try #require(flow["aging"] as? [[String: Any]]).map { todo in
      [
        titles[(todo["pk"] as? Int64) ?? 0] ?? "", text(todo["firstDate"]), text(todo["days"]),
        "todos/\(text(todo["pk"])).html", text(todo["firstDate"]),
      ]
    }
    return tables
  }

  @Test(
    "30 nights (adds, completions, reopenings, priority and text changes, removals, a night with no change, a night skipped): data/flow.json and flow.html's tables equal a recomputation from the 30 SQLite files; a rebuild with nothing changed rewrites neither flow.html nor report.html"
  )
  func thirtyNights() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(
      at: database,
      sql:
        "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text VARCHAR(25), priority INTEGER, complete BOOLEAN);"
    )
    try FileManager.default.createDirectory(
      atPath: folder.sub("nights"), withIntermediateDirectories: true)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("site")
    var random = SplitMix(state: 20_261_130)
    var live: [Int64: Row] = [:]
    var next: Int64 = 1
    var built: [(path: String, date: Date)] = []
    var last: [UInt8]?
    var lastPage: [UInt8]?
    for night in 1...30 {
      let sql = Self.sql(night: night, live: &live, next: &next, random: &random)
      if !sql.isEmpty { try ChangesTests.change(database, sql) }
      let copy = folder.sub("nights/\(night).sqlite")
      try FileManager.default.copyItem(atPath: database, toPath: copy)
      // The skipped night's changes are seen by the next night's build.
      guard night != Self.skippedNight else { continue }
      let date = "2026-11-\(night < 10 ? "0" : "")\(night)T06:00:00Z"
      options.date = date
      let warnings = try ChangesTests.build(options)
      #expect(warnings.isEmpty, "night \(night): \(warnings)")
      built.append((copy, try #require(ISO8601DateFormatter().date(from: date))))
      let bytes = try #require(readFile(options.output + "/data/flow.json"))
      if night == Self.noChangeNight || night == Self.textOnlyNight {
        #expect(bytes == last, "night \(night)")
      }
      last = bytes
      // flow.html shows no build date: a night that changed nothing leaves it as it was.
      let flowPage = try #require(readFile(options.output + "/flow.html"))
      if night == Self.noChangeNight {
        #expect(flowPage == lastPage, "night \(night)")
      }
      lastPage = flowPage
      let published = try Self.published(options.output)
      let expected = try Self.recompute(built)
      #expect(
        NSDictionary(dictionary: published).isEqual(to: expected),
        "night \(night):\n\(published)\n\(expected)")
      // flow.html's tables say the same numbers.
      let page = ChangesTests.text(options.output + "/flow.html")
      let titles = try Self.rows(copy).mapValues(\.text)
      for (section, rows) in try Self.expectedTables(expected, titles: titles) {
        let published = try Self.tableRows(page, section: section)
        #expect(published == rows, "night \(night): \(section)")
      }
    }
    // A rebuild with nothing changed (the same date) leaves both pages byte for byte and
    // writes neither.
    let before = try ["flow.html", "report.html"].map {
      try #require(readFile(options.output + "/" + $0))
    }
    let summary = try Build.run(
      options, interrupt: InterruptFlag(), reporter: Build.Reporter(warning: { _ in }))
    #expect(
      try ["flow.html", "report.html"].map { try #require(readFile(options.output + "/" + $0)) }
        == before)
    #expect(!summary.writtenPaths.contains("flow.html"))
    #expect(!summary.writtenPaths.contains("report.html"))
    // The scenario has each kind of change.
    let flow = try Self.published(options.output)
    let points = try #require(flow["points"] as? [[String: Any]])
    #expect(points.contains { ($0["removed"] as? Int ?? 0) > 0 })
    #expect(points.count >= 20)
    let cycle = try #require(flow["cycleTime"] as? [String: Any])
    #expect((cycle["count"] as? Int ?? 0) >= 10)
    #expect(((flow["throughput"] as? [Any])?.count ?? 0) >= 4)
    let aging = try #require(flow["aging"] as? [[String: Any]])
    #expect(aging.count >= 5)
    let asOf = String(try #require(flow["date"] as? String).prefix(10))
    // The first page's line says the same numbers.
    let weeks = try #require(flow["throughput"] as? [[String: Any]])
    let line =
      "<p class=\"flow-summary\">Median cycle time in days: \(cycle["median"] ?? "") (85th percentile "
      + "\(cycle["p85"] ?? ""), \(cycle["count"] ?? "") measured) · "
      + "\(weeks[weeks.count - 2]["completed"] ?? "") completed last week · "
      + "Oldest open to-do, days open: \(aging[0]["days"] ?? "") (to \(asOf))</p>"
    #expect(ChangesTests.text(options.output + "/index.html").contains(line), "\(line)")
    // The pages whose days open a script recounts to the reader's day say which day they are
    // counted to: the same as the first page's, until the script makes it the reader's.
    let countedTo =
      "<p class=\"days-counted-to\">Days open are counted to <time datetime=\"\(asOf)\" "
      + "data-today data-format=\"{year}-{mm}-{dd}\">\(asOf)</time>.</p>"
    for page in ["flow.html", "report.html"] {
      #expect(ChangesTests.text(options.output + "/" + page).contains(countedTo), "\(page)")
    }
  }
}
