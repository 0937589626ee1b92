/// Days of the proleptic Gregorian calendar: the one place taskpress counts them (the month
/// view, due dates, build dates, the flow report's weeks). Day numbers count from 1970-01-01
/// (day 0), as Unix time does; the conversions are H. Hinnant's `days_from_civil` and
/// `civil_from_days`, exact for every year an `Int` holds.
enum CivilDate {
  /// Whether `year` has a 29 February.
  static func isLeapYear(_ year: Int) -> Bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
  }

  /// The days of `month` (1-12) in `year`.
  static func days(inMonth month: Int, year: Int) -> Int {
    switch month {
    case 2: isLeapYear(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// The day number of a date (month 1-12, day 1-31; not checked).
  static func dayNumber(year: Int, month: Int, day: Int) -> Int {
    // Years start in March, so that the leap day is the last day of the year.
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The year, month and day of a day number.
  static func date(_ number: Int) -> (year: Int, month: Int, day: Int) {
    let z = number + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  /// The day of the week of a day number, 0 for Monday to 6 for Sunday (1970-01-01 was a
  /// Thursday).
  static func weekday(_ number: Int) -> Int {
    ((number + 3) % 7 + 7) % 7
  }
}
