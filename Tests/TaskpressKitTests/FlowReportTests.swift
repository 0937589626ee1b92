import Foundation
import Testing

@testable import TaskpressKit

/// The flow numbers (`FlowReport`): burnup and cumulative flow, cycle time, throughput and aging.
@Suite struct FlowReportTests {
  static func entry(_ build: Int, _ date: String?, _ todos: [(Priority, Bool)]) -> HistoryEntry {
    HistoryEntry(
      build: build, date: date, changes: 1,
      todos: TodoCounts(todos.map { (priority: $0.0, complete: $0.1) }), possessions: nil,
      contacts: nil)
  }

  static func builds(_ rows: [(Int, String?, Int, Int, Int, Int)]) -> [TodoHistory.BuildEntry] {
    rows.map {
      TodoHistory.BuildEntry(
        build: $0.0, date: $0.1, added: $0.2, removed: $0.3, completed: $0.4, reopened: $0.5)
    }
  }

  /// Five builds over three weeks: pk 1 completed, reopened and completed again, pk 2
  /// removed, pk 3 and pk 4 (added by build 2) completed; builds 2 and 3 on the same day.
  static func scenario() -> (history: [HistoryEntry], todos: TodoHistory) {
    let dates = [
      "2026-12-01T06:00:00Z", "2026-12-03T06:00:00Z", "2026-12-03T20:00:00Z",
      "2026-12-10T06:00:00Z", "2026-12-15T06:00:00Z",
    ]
    let history = [
      entry(1, dates[0], [(.high, false), (.low, false), (.none, false)]),
      entry(2, dates[1], [(.high, true), (.low, false), (.none, false), (.medium, false)]),
      entry(3, dates[2], [(.high, true), (.none, false), (.medium, false)]),
      entry(4, dates[3], [(.high, false), (.none, true), (.medium, true)]),
      entry(5, dates[4], [(.high, true), (.none, true), (.medium, true)]),
    ]
    var todos = TodoHistory()
    todos.builds = builds([
      (1, dates[0], 3, 0, 0, 0), (2, dates[1], 1, 0, 1, 0), (3, dates[2], 0, 1, 0, 0),
      (4, dates[3], 0, 0, 2, 1), (5, dates[4], 0, 0, 1, 0),
    ])
    todos.append(
      pk: 1, first: 1,
      events: [
        .init(build: 2, kind: .completed), .init(build: 4, kind: .reopened),
        .init(build: 5, kind: .completed),
      ])
    todos.append(pk: 2, first: 1, events: [.init(build: 3, kind: .removed)])
    todos.append(pk: 3, first: 1, events: [.init(build: 4, kind: .completed)])
    todos.append(
      pk: 4, first: 2,
      events: [.init(build: 2, kind: .priority), .init(build: 4, kind: .completed)])
    return (history, todos)
  }

  @Test("burnup and cumulative flow: a point a day, the day's last counts, added and removed apart")
  func points() {
    let (history, todos) = Self.scenario()
    let report = FlowReport.make(
      history: history, todos: todos, isOpen: { _ in false })
    #expect(report.date == "2026-12-15")
    #expect(report.points.map(\.build) == [1, 3, 4, 5])
    #expect(report.points.map(\.date) == ["2026-12-01", "2026-12-03", "2026-12-10", "2026-12-15"])
    #expect(report.points.map(\.scope) == [3, 3, 3, 3])
    #expect(report.points.map(\.done) == [0, 1, 2, 3])
    #expect(report.points.map(\.open) == [3, 2, 1, 0])
    #expect(report.points.map(\.added) == [3, 1, 0, 0])
    #expect(report.points.map(\.removed) == [0, 1, 0, 0])
    // By priority: High, Medium, none on the second day (Low was removed).
    #expect(
      report.points[1].byPriority == [
        .init(priority: 1, open: 0, complete: 1), .init(priority: 2, open: 1, complete: 0),
        .init(priority: nil, open: 1, complete: 0),
      ])
    // Undated builds are points of their own.
    let undated = [Self.entry(1, nil, [(.high, false)]), Self.entry(2, nil, [(.high, true)])]
    let plain = FlowReport.make(
      history: undated, todos: TodoHistory(), isOpen: { _ in true })
    #expect(plain.points.map(\.build) == [1, 2])
    #expect(plain.throughput.isEmpty && plain.date == nil)
  }

  @Test("cycle time: first seen to last completion, median and 85th percentile by nearest rank")
  func cycleTime() {
    let (history, todos) = Self.scenario()
    let report = FlowReport.make(
      history: history, todos: todos, isOpen: { _ in false })
    // pk 1: Dec 1 to Dec 15 (its last completion); pk 3: Dec 1 to 10; pk 4: Dec 3 to 10.
    #expect(report.cycleTime.count == 3)
    #expect(report.cycleTime.median == 9)
    #expect(report.cycleTime.percentile85 == 14)
    #expect(report.cycleTime.bins == [0, 0, 0, 0, 1, 2, 0, 0, 0, 0])
    // A to-do reopened after its completion is not measured.
    var reopened = TodoHistory()
    reopened.builds = todos.builds
    reopened.append(
      pk: 1, first: 1,
      events: [.init(build: 2, kind: .completed), .init(build: 4, kind: .reopened)])
    let none = FlowReport.make(
      history: history, todos: reopened, isOpen: { _ in true })
    #expect(
      none.cycleTime
        == .init(
          count: 0, median: nil, percentile85: nil,
          bins: [Int](
            repeating: 0, count: FlowReport.binStarts.count)))
  }

  @Test("percentiles by nearest rank equal the smallest value with at least p% at or below it")
  func percentiles() {
    #expect(FlowReport.percentile(50, ofSorted: Array(1...10)) == 5)
    #expect(FlowReport.percentile(85, ofSorted: Array(1...10)) == 9)
    #expect(FlowReport.percentile(50, ofSorted: [4]) == 4)
    #expect(FlowReport.percentile(85, ofSorted: []) == nil)
    var random = SplitMix(state: 42)
    for _ in 0..<500 {
      let values = (0..<Int.random(in: 1...40, using: &random)).map { _ in
        Int.random(in: 0...60, using: &random)
      }.sorted()
      for p in [1, 25, 50, 85, 99, 100] {
        // The plain definition: the least value v with count(x <= v) * 100 >= p * n.
        let plain = values.first { value in
          values.filter { $0 <= value }.count * 100 >= p * values.count
        }
        #expect(FlowReport.percentile(p, ofSorted: values) == plain, "\(p) of \(values)")
      }
    }
  }

  @Test(
    "throughput per ISO week: the builds' completions, weeks without one as 0, up to the numbers' week"
  )
  func throughput() {
    var (history, todos) = Self.scenario()
    let report = FlowReport.make(history: history, todos: todos, isOpen: { _ in false })
    #expect(
      report.throughput == [
        .init(week: "2026-W49", completed: 1), .init(week: "2026-W50", completed: 2),
        .init(week: "2026-W51", completed: 1),
      ])
    // A build of Dec 29 that adds a to-do: two weeks without a completion, to 2026's 53rd.
    history.append(
      Self.entry(
        6, "2026-12-29T06:00:00Z", [(.high, true), (.none, true), (.medium, true), (.low, false)]))
    todos.builds += Self.builds([(6, "2026-12-29T06:00:00Z", 1, 0, 0, 0)])
    let later = FlowReport.make(history: history, todos: todos, isOpen: { _ in false })
    #expect(
      later.throughput.map(\.week) == [
        "2026-W49", "2026-W50", "2026-W51", "2026-W52", "2026-W53",
      ])
    #expect(later.throughput.map(\.completed) == [1, 2, 1, 0, 0])
  }

  @Test("a build that changes only texts makes no point: the numbers and their bytes stay")
  func textEdit() {
    var (history, todos) = Self.scenario()
    let before = FlowReport.make(history: history, todos: todos, isOpen: { $0 == 1 })
    history.append(
      Self.entry(6, "2026-12-20T06:00:00Z", [(.high, true), (.none, true), (.medium, true)]))
    todos.builds += Self.builds([(6, "2026-12-20T06:00:00Z", 0, 0, 0, 0)])
    let after = FlowReport.make(history: history, todos: todos, isOpen: { $0 == 1 })
    #expect(after == before)
    #expect(after.bytes == before.bytes)
    #expect(after.date == "2026-12-15")
  }

  @Test("ISO weeks and day numbers equal Foundation's ISO 8601 calendar, 1999 to 2031")
  func isoWeeks() throws {
    var calendar = Calendar(identifier: .iso8601)
    calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
    let start = try #require(FlowReport.dayNumber("1999-12-01"))
    let end = try #require(FlowReport.dayNumber("2031-01-31"))
    var failures = 0
    for number in start...end {
      let date = Date(timeIntervalSince1970: Double(number) * 86_400)
      let parts = calendar.dateComponents(
        [.yearForWeekOfYear, .weekOfYear, .year, .month, .day], from: date)
      let year = try #require(parts.yearForWeekOfYear)
      let week = try #require(parts.weekOfYear)
      let expected = String(format: "%04d-W%02d", year, week)
      let day = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
      if FlowReport.isoWeek(number) != expected || FlowReport.dayNumber(day) != number {
        failures += 1
      }
    }
    #expect(failures == 0)
    #expect(FlowReport.isoWeek(try #require(FlowReport.dayNumber("2027-01-01"))) == "2026-W53")
    #expect(FlowReport.isoWeek(try #require(FlowReport.dayNumber("2024-12-30"))) == "2025-W01")
    #expect(FlowReport.dayNumber("2026-13-01") == nil)
  }

  @Test(
    "aging: the oldest open to-dos by first build then pk, with their days open as of the numbers' date"
  )
  func aging() {
    let (history, todos) = Self.scenario()
    let report = FlowReport.make(
      history: history, todos: todos, isOpen: { $0 != 3 })
    // pk 2 was removed; pk 3 is complete.
    #expect(
      report.aging == [
        .init(pk: 1, first: 1, firstDate: "2026-12-01", days: 14),
        .init(pk: 4, first: 2, firstDate: "2026-12-03", days: 12),
      ])
    // Many to-dos: the same as sorting all of them.
    var random = SplitMix(state: 7)
    var many = TodoHistory()
    many.builds = Self.builds(
      (1...30).map { ($0, "2026-11-\($0 < 10 ? "0" : "")\($0)T06:00:00Z", 0, 0, 0, 0) })
    var firsts: [(pk: Int64, first: Int)] = []
    for pk in Int64(1)...500 {
      let first = Int.random(in: 1...30, using: &random)
      firsts.append((pk, first))
      many.append(pk: pk, first: first, events: [])
    }
    let open = Set(firsts.map(\.pk).filter { _ in Bool.random(using: &random) })
    let top = FlowReport.make(
      history: [Self.entry(30, "2026-12-01T06:00:00Z", [(.high, false)])], todos: many,
      isOpen: open.contains)
    let plain = firsts.filter { open.contains($0.pk) }.sorted {
      ($0.first, $0.pk) < ($1.first, $1.pk)
    }.prefix(FlowReport.agingLimit)
    #expect(top.aging.map(\.pk) == plain.map(\.pk))
    #expect(top.aging.map(\.days) == plain.map { 31 - $0.first })
  }

  @Test("data/flow.json: what the report holds, as JSON, the same bytes every time")
  func file() throws {
    let (history, todos) = Self.scenario()
    let report = FlowReport.make(
      history: history, todos: todos, isOpen: { $0 == 1 })
    let bytes = report.bytes
    #expect(
      FlowReport.make(
        history: history, todos: todos, isOpen: { $0 == 1 }
      ).bytes == bytes)
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    #expect(json["format"] as? String == "taskpress-flow-1")
    #expect(json["date"] as? String == "2026-12-15")
    let points = try #require(json["points"] as? [[String: Any]])
    #expect(points.map { $0["scope"] as? Int } == report.points.map(\.scope))
    #expect(points.map { $0["done"] as? Int } == report.points.map(\.done))
    #expect(points.map { $0["removed"] as? Int } == report.points.map(\.removed))
    let cycle = try #require(json["cycleTime"] as? [String: Any])
    #expect(cycle["median"] as? Int == 9 && cycle["p85"] as? Int == 14)
    let bins = try #require(cycle["bins"] as? [[String: Any]])
    #expect(bins.map { $0["count"] as? Int } == report.cycleTime.bins)
    #expect(bins.last?["to"] is NSNull)
    let weeks = try #require(json["throughput"] as? [[String: Any]])
    #expect(weeks.map { $0["week"] as? String } == report.throughput.map(\.week))
    let aging = try #require(json["aging"] as? [[String: Any]])
    #expect(aging.count == 1 && aging.first?["days"] as? Int == 14)
  }
}
