import Foundation
import Testing

@testable import TaskpressKit

/// `CivilDate`, the one calendar arithmetic, against Foundation's Gregorian calendar (UTC):
/// every third day of 1890-2110, each day around the leap rules' turns (1700, 1900, 2000, 2100,
/// 2400), and every 97th day from 1583 (the first whole Gregorian year) to 9999.
@Suite struct CivilDateTests {
  static let day: Int = 86_400

  static var dayNumbers: [Int] {
    let first = CivilDate.dayNumber(year: 1583, month: 1, day: 1)
    let last = CivilDate.dayNumber(year: 9999, month: 12, day: 31)
    var numbers = Array(stride(from: first, through: last, by: 97))
    numbers += stride(
      from: CivilDate.dayNumber(year: 1890, month: 1, day: 1),
      through: CivilDate.dayNumber(year: 2110, month: 12, day: 31), by: 3)
    for year in [1700, 1900, 2000, 2100, 2400] {
      let start = CivilDate.dayNumber(year: year, month: 2, day: 20)
      numbers += start..<(start + 20)
    }
    return numbers + [first, last, -1, 0, 1]
  }

  @Test("day numbers, dates and weekdays are Foundation's")
  func againstFoundation() throws {
    var gregorian = Foundation.Calendar(identifier: .gregorian)
    gregorian.timeZone = try #require(TimeZone(identifier: "UTC"))
    for number in Self.dayNumbers {
      let date = Date(timeIntervalSince1970: Double(number * Self.day))
      let parts = gregorian.dateComponents([.year, .month, .day, .weekday], from: date)
      let civil = CivilDate.date(number)
      #expect(civil.year == parts.year && civil.month == parts.month && civil.day == parts.day)
      #expect(CivilDate.dayNumber(year: civil.year, month: civil.month, day: civil.day) == number)
      // Foundation: 1 Sunday ... 7 Saturday; ours: 0 Monday ... 6 Sunday.
      #expect(CivilDate.weekday(number) == ((parts.weekday ?? 0) + 5) % 7, "\(civil)")
    }
  }

  @Test("the days of every month of 1583-2500 are Foundation's")
  func monthLengths() throws {
    var gregorian = Foundation.Calendar(identifier: .gregorian)
    gregorian.timeZone = try #require(TimeZone(identifier: "UTC"))
    for year in 1583...2500 {
      for month in 1...12 {
        let first = CivilDate.dayNumber(year: year, month: month, day: 1)
        let date = Date(timeIntervalSince1970: Double(first * Self.day))
        let length = gregorian.range(of: .day, in: .month, for: date)?.count
        #expect(CivilDate.days(inMonth: month, year: year) == length, "\(year)-\(month)")
      }
      #expect(CivilDate.isLeapYear(year) == (CivilDate.days(inMonth: 2, year: year) == 29))
    }
  }

  @Test("the day after the last of each month is the first of the next")
  func monthEnds() {
    for year in [1600, 1900, 1999, 2000, 2024, 2100] {
      for month in 1...12 {
        let last = CivilDate.days(inMonth: month, year: year)
        let next = CivilDate.date(CivilDate.dayNumber(year: year, month: month, day: last) + 1)
        #expect(next.day == 1 && next.month == month % 12 + 1)
        #expect(next.year == (month == 12 ? year + 1 : year))
      }
    }
  }
}
