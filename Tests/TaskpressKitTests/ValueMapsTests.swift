import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

/// `"values"` and `"dates"` of a mapping: the app's values as taskpress's levels, dates in
/// their units.
@Suite struct ValueMapsTests {
  @Test("Taskwarrior's H/M/L, iCalendar's 0-9 in ranges, levels with labels of their own")
  func priorities() throws {
    let taskwarrior = try PriorityValues(["H": "high", "M": "medium", "L": "low"])
    #expect(taskwarrior.priority(ofText: "H") == .high)
    #expect(taskwarrior.priority(ofText: "L") == .low)
    #expect(taskwarrior.priority(ofText: "h") == nil)
    let iCalendar = try PriorityValues(["1-4": "high", "5": "medium", "6-9": "low", "0": "none"])
    #expect(
      (0...9).map { iCalendar.priority(ofText: String($0)) } == [
        Priority.none, .high, .high, .high, .high, .medium, .low, .low, .low, .low,
      ])
    #expect(iCalendar.priority(ofText: "10") == nil)
    let labelled = try PriorityValues(["urgent": "1:Urgent", "someday": "5:Someday", "-3--1": "7"])
    #expect(labelled.priority(ofText: "someday") == .other(5))
    #expect(labelled.priority(ofText: "-2") == .other(7))
    #expect(labelled.labels == [1: "Urgent", 5: "Someday"])
    #expect(throws: ValueMapError.self) { try PriorityValues(["x": "top"]) }
    #expect(throws: ValueMapError.self) { try PriorityValues(["x": "4:"]) }
    #expect(throws: ValueMapError.self) { try PriorityValues(["x": "4:A", "y": "4:B"]) }
  }

  @Test("a number in each unit is the same moment; text stays as it is")
  func units() throws {
    let database = try Database.openWritableForTesting(at: ":memory:")
    let moments: [(DateUnit, String)] = [
      (.seconds, "1216990000"), (.milliseconds, "1216990000123"), (.coreData, "238682800"),
      (.julian, "julianday('2008-07-25 12:46:40')"), (.iso, "'2008-07-25T12:46:40Z'"),
      (.milliseconds, "'2008-07-25T12:46:40Z'"),
    ]
    for (unit, value) in moments {
      let statement = try database.prepare(
        "SELECT " + unit.expression("x") + " FROM (SELECT \(value) AS x)")
      var found: String?
      try statement.forEachRow { found = $0.text(at: 0)?.string }
      #expect(found == "2008-07-25T12:46:40Z", "\(unit) \(value)")
    }
    #expect(DateUnit.seconds.likelyUnit(of: 1_742_576_400_000) == .milliseconds)
    #expect(DateUnit.seconds.likelyUnit(of: 1_742_576_400) == nil)
    #expect(DateUnit.milliseconds.likelyUnit(of: 1_742_576_400) == .seconds)
    #expect(DateUnit.milliseconds.likelyUnit(of: 1_742_576_400_000) == nil)
  }
}
