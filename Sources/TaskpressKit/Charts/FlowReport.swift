import JSONEscaping

/// The flow numbers of the recorded builds: burnup and cumulative flow, cycle time, throughput
/// per ISO week and the oldest open to-dos (`data/flow.json`, schema in `Docs/reports.md`).
///
/// Made from `data/history.json` (each build's counts, by priority) and
/// `data/todo-history.json` (each build's added and removed, each to-do's first build and
/// events) alone, with the to-dos that are open now: no clock, no float; every number is a whole
/// number, so the same records give the same bytes on every machine. Days are calendar days in
/// UTC between the builds' dates.
struct FlowReport: Sendable, Equatable {
  static let currentFormat = "taskpress-flow-1"
  static let fileName = "flow.json"

  /// How many of the oldest open to-dos `aging` lists.
  static let agingLimit = 10
  /// How many ISO weeks `throughput` lists at most (the latest).
  static let weekLimit = 52
  /// The cycle-time histogram's bins: each the first day it counts, up to the next one's.
  static let binStarts = [0, 1, 2, 3, 5, 8, 15, 31, 61, 91]

  /// One point of the burnup and the cumulative flow: a build that changed the counts (a
  /// build that changed only texts is none), or the last such build of a day when the builds
  /// are dated (several builds of a day are one point: the day's last counts, the day's added
  /// and removed summed).
  struct Point: Sendable, Equatable {
    /// The (last) build of the point.
    var build: Int
    /// The day (`2026-12-01`), nil for an undated build.
    var date: String?
    /// The to-dos there: the burnup's scope line.
    var scope: Int
    /// The to-dos complete: the burnup's done line.
    var done: Int
    /// The to-dos added by the point's builds (the first build: every to-do it saw).
    var added: Int
    /// The to-dos removed by the point's builds.
    var removed: Int
    /// Open and complete by priority, in the order of `data/history.json`.
    var byPriority: [TodoCounts.PriorityCounts]

    var open: Int { scope - done }
  }

  /// Cycle time: days from the build that first saw a to-do to the build that last completed it,
  /// for each to-do whose last status event is `completed` and whose two builds are dated.
  struct CycleTime: Sendable, Equatable {
    /// How many to-dos were measured.
    var count: Int
    /// The 50th and 85th percentiles by nearest rank (nil when none was measured).
    var median: Int?
    var percentile85: Int?
    /// Counts by `FlowReport.binStarts`.
    var bins: [Int]
  }

  /// The to-dos completed by the builds of an ISO week (`2026-W49`).
  struct Week: Sendable, Equatable {
    var week: String
    var completed: Int
  }

  /// An open to-do: the build that first saw it, that build's day and the days since then as
  /// of `date` (nil when either is undated).
  struct Aging: Sendable, Equatable {
    var pk: Int64
    var first: Int
    var firstDate: String?
    var days: Int?
  }

  /// The day the numbers are as of (`2026-12-01`): the last point's, the date of the last
  /// build that changed them. A build that changes no count (a text edit, or nothing) leaves
  /// every number and so `data/flow.json` as they were.
  var date: String?
  var points: [Point]
  var cycleTime: CycleTime
  /// Oldest first, from the first dated build's week to `date`'s, weeks without a completion
  /// included, the last `weekLimit`.
  var throughput: [Week]
  /// The oldest open to-dos, oldest first (by first build, then pk), at most `agingLimit`.
  var aging: [Aging]

  /// The numbers of `history` (the recorded builds, oldest first) and `todos` (their to-do
  /// history), with `isOpen` telling the to-dos open now; as of the last point's day.
  static func make(
    history: [HistoryEntry], todos: TodoHistory, isOpen: (Int64) -> Bool,
    agingLimit: Int = agingLimit
  ) -> FlowReport {
    // The builds' added and removed, by number.
    var entries: [Int: TodoHistory.BuildEntry] = [:]
    for entry in todos.builds { entries[entry.build] = entry }
    var points: [Point] = []
    for entry in history {
      guard let counts = entry.todos else { continue }
      let when = entry.date.map(day)
      let added = entries[entry.build]?.added ?? 0
      let removed = entries[entry.build]?.removed ?? 0
      let statusChanges =
        (entries[entry.build]?.completed ?? 0) + (entries[entry.build]?.reopened ?? 0)
      if let last = points.last, added == 0, removed == 0, statusChanges == 0,
        last.scope == counts.total,
        last.done == counts.complete, last.byPriority == counts.byPriority
      {
        // Nothing the flow shows changed (a text edit): no point, so the numbers and their
        // date stay those of the last build that changed them.
        continue
      }
      if let when, let last = points.last, last.date == when {
        points[points.count - 1] = Point(
          build: entry.build, date: when, scope: counts.total, done: counts.complete,
          added: last.added + added, removed: last.removed + removed,
          byPriority: counts.byPriority)
      } else {
        points.append(
          Point(
            build: entry.build, date: when, scope: counts.total, done: counts.complete,
            added: added, removed: removed, byPriority: counts.byPriority))
      }
    }
    let asOf = points.last?.date
    // Cycle times and the oldest open to-dos, in one pass over the to-dos.
    var cycles: [Int] = []
    var oldest: [Aging] = []
    let asOfDay = asOf.flatMap(dayNumber)
    // Each build's day number, once (not a date parsed for each of a million to-dos).
    var dayOf: [Int: Int] = [:]
    for entry in todos.builds {
      if let number = entry.date.flatMap({ dayNumber(day($0)) }) { dayOf[entry.build] = number }
    }
    for index in 0..<todos.count {
      let pk = todos.pks[index]
      let first = todos.first(index)
      let firstDay = dayOf[first]
      var completion: Int?
      for event in todos.events(index) {
        switch event.kind {
        case .completed: completion = event.build
        case .reopened: completion = nil
        default: break
        }
      }
      if let completion, let firstDay, let done = dayOf[completion] {
        cycles.append(max(0, done - firstDay))
      }
      guard !todos.isRemoved(index), agingLimit > 0, isOpen(pk) else { continue }
      // In pk order: a later to-do goes before the listed ones only with an older first build.
      if oldest.count == agingLimit, let last = oldest.last, last.first <= first { continue }
      let days = asOfDay.flatMap { now in firstDay.map { max(0, now - $0) } }
      let place = oldest.firstIndex { $0.first > first } ?? oldest.count
      oldest.insert(
        Aging(pk: pk, first: first, firstDate: todos.date(ofBuild: first).map(day), days: days),
        at: place)
      if oldest.count > agingLimit { oldest.removeLast() }
    }
    cycles.sort()
    var bins = Array(repeating: 0, count: binStarts.count)
    for days in cycles {
      bins[(binStarts.lastIndex { $0 <= days }) ?? 0] += 1
    }
    let cycleTime = CycleTime(
      count: cycles.count, median: percentile(50, ofSorted: cycles),
      percentile85: percentile(85, ofSorted: cycles), bins: bins)
    // Throughput: the completions of the recorded builds, by the ISO week of their dates.
    let oldestBuild = history.first?.build ?? 1
    var byWeek: [Int: Int] = [:]
    var firstWeek: Int?
    for entry in todos.builds where entry.build >= oldestBuild {
      guard let monday = entry.date.flatMap({ dayNumber(day($0)) }).map(isoMonday) else {
        continue
      }
      byWeek[monday, default: 0] += entry.completed
      firstWeek = min(firstWeek ?? monday, monday)
    }
    // To the week of the numbers' date: a later build changed no count (and completed none);
    // none when that is undated (the first build's, before any dated one changed a count).
    let lastWeek = asOfDay.map(isoMonday)
    var throughput: [Week] = []
    if let firstWeek, let lastWeek, firstWeek <= lastWeek {
      let start = max(firstWeek, lastWeek - 7 * (weekLimit - 1))
      for monday in stride(from: start, through: lastWeek, by: 7) {
        throughput.append(Week(week: isoWeek(monday), completed: byWeek[monday] ?? 0))
      }
    }
    return FlowReport(
      date: asOf, points: points, cycleTime: cycleTime, throughput: throughput, aging: oldest)
  }

  // MARK: - Numbers

  /// The `p`th percentile of `sorted` (increasing) by nearest rank: the value at rank
  /// ⌈p·n/100⌉ (1-based), so always one of the values; nil for none.
  static func percentile(_ p: Int, ofSorted sorted: [Int]) -> Int? {
    guard !sorted.isEmpty else { return nil }
    let rank = max(1, (p * sorted.count + 99) / 100)
    return sorted[min(rank, sorted.count) - 1]
  }

  /// The day of a date (`2026-12-01T06:00:00Z` → `2026-12-01`).
  static func day(_ date: String) -> String { String(date.prefix(10)) }

  /// Days since 1970-01-01 of a day `YYYY-MM-DD` (proleptic Gregorian); nil when it is not one.
  static func dayNumber(_ day: String) -> Int? {
    let parts = day.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      let year = Int(parts[0]), let month = Int(parts[1]), let date = Int(parts[2]),
      (1...12).contains(month), (1...31).contains(date)
    else { return nil }
    return CivilDate.dayNumber(year: year, month: month, day: date)
  }

  /// The year, month and day of a day number.
  static func civil(_ number: Int) -> (year: Int, month: Int, day: Int) {
    CivilDate.date(number)
  }

  /// The Monday of the ISO week of a day number (1970-01-01 was a Thursday).
  static func isoMonday(_ number: Int) -> Int {
    number - CivilDate.weekday(number)
  }

  /// The ISO week (`2026-W49`) of a day number: the year of its Thursday, and the week of that
  /// Thursday in it.
  static func isoWeek(_ number: Int) -> String {
    let thursday = isoMonday(number) + 3
    let year = civil(thursday).year
    let january1 = dayNumber("\(padded(year, 4))-01-01") ?? thursday
    let week = (thursday - january1) / 7 + 1
    return "\(padded(year, 4))-W\(padded(week, 2))"
  }

  private static func padded(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
  }

  // MARK: - The file

  /// `data/flow.json`: whole numbers and days, one point, week and to-do a line.
  var bytes: [UInt8] {
    var out = ""
    func text(_ value: String?) -> String {
      guard let value else { return "null" }
      var bytes: [UInt8] = [0x22]
      JSONText.appendEscaped(value, [], to: &bytes)
      return String(decoding: bytes + [0x22], as: UTF8.self)
    }
    func number(_ value: Int?) -> String { value.map(String.init) ?? "null" }
    out += "{\n  \"format\": \"\(Self.currentFormat)\",\n  \"date\": \(text(date)),\n"
    out += "  \"points\": ["
    for (index, point) in points.enumerated() {
      out += index == 0 ? "\n" : ",\n"
      let priorities = point.byPriority.map {
        "{\"priority\":\(number($0.priority.map(Int.init))),\"open\":\($0.open),"
          + "\"complete\":\($0.complete)}"
      }
      out += "    {\"build\":\(point.build),\"date\":\(text(point.date)),\"scope\":\(point.scope),"
      out += "\"done\":\(point.done),\"open\":\(point.open),\"added\":\(point.added),"
      out += "\"removed\":\(point.removed),\"byPriority\":[\(priorities.joined(separator: ","))]}"
    }
    out += points.isEmpty ? "],\n" : "\n  ],\n"
    out += "  \"cycleTime\": {\"count\":\(cycleTime.count),\"median\":\(number(cycleTime.median)),"
    out += "\"p85\":\(number(cycleTime.percentile85)),\"bins\":["
    out += zip(Self.binStarts.indices, cycleTime.bins).map { index, count in
      let to = index + 1 < Self.binStarts.count ? String(Self.binStarts[index + 1] - 1) : "null"
      return "{\"from\":\(Self.binStarts[index]),\"to\":\(to),\"count\":\(count)}"
    }.joined(separator: ",")
    out += "]},\n  \"throughput\": ["
    for (index, week) in throughput.enumerated() {
      out += index == 0 ? "\n" : ",\n"
      out += "    {\"week\":\"\(week.week)\",\"completed\":\(week.completed)}"
    }
    out += throughput.isEmpty ? "],\n" : "\n  ],\n"
    out += "  \"aging\": ["
    for (index, todo) in aging.enumerated() {
      out += index == 0 ? "\n" : ",\n"
      out += "    {\"pk\":\(todo.pk),\"first\":\(todo.first),\"firstDate\":\(text(todo.firstDate)),"
      out += "\"days\":\(number(todo.days))}"
    }
    out += aging.isEmpty ? "]\n}\n" : "\n  ]\n}\n"
    return Array(out.utf8)
  }
}
