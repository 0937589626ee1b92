#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A build's date, as the record of changes keeps it: RFC 3339 in UTC, to the second
/// (`2026-12-01T08:30:00Z`). It comes from `--date`, else `SOURCE_DATE_EPOCH`, else the clock,
/// and is recorded only by a build that changed something.
public enum BuildDate {
  /// `text`, an ISO 8601 date (`2026-12-01`, midnight UTC) or date-time with a zone
  /// (`2026-12-01T08:30:00Z`, `2026-12-01T10:30+02:00`; a fraction of a second is dropped), as
  /// UTC; nil when it is neither.
  public static func normalize(_ text: String) -> String? {
    let bytes = Array(text.utf8)
    var index = 0
    func number(_ digits: Int) -> Int? {
      guard index + digits <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[index..<index + digits] {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      index += digits
      return value
    }
    func skip(_ character: Character) -> Bool {
      guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
      index += 1
      return true
    }
    guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2),
      (1...12).contains(month), day >= 1, day <= CivilDate.days(inMonth: month, year: year)
    else { return nil }
    var (hour, minute, second, offset) = (0, 0, 0, 0)
    if index < bytes.count {
      guard skip("T") || skip("t"), let h = number(2), skip(":"), let m = number(2),
        h < 24, m < 60
      else { return nil }
      (hour, minute) = (h, m)
      if skip(":") {
        guard let s = number(2), s < 60 else { return nil }
        second = s
        if skip(".") {
          let start = index
          while index < bytes.count, bytes[index] >= UInt8(ascii: "0"),
            bytes[index] <= UInt8(ascii: "9")
          {
            index += 1
          }
          guard index > start else { return nil }
        }
      }
      if skip("Z") || skip("z") {
        offset = 0
      } else if index < bytes.count,
        bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
      {
        let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
        index += 1
        guard let zoneHours = number(2), zoneHours < 24 else { return nil }
        _ = skip(":")
        guard let zoneMinutes = number(2), zoneMinutes < 60 else { return nil }
        offset = sign * (zoneHours * 3600 + zoneMinutes * 60)
      } else {
        return nil  // a time without a zone names no moment
      }
      guard index == bytes.count else { return nil }
    }
    var parts = tm()
    parts.tm_year = Int32(year - 1900)
    parts.tm_mon = Int32(month - 1)
    parts.tm_mday = Int32(day)
    parts.tm_hour = Int32(hour)
    parts.tm_min = Int32(minute)
    parts.tm_sec = Int32(second)
    return format(Int64(timegm(&parts)) - Int64(offset))
  }

  /// The date `seconds` after 1970 (`SOURCE_DATE_EPOCH`).
  public static func format(_ seconds: Int64) -> String {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let year = String(Int(parts.tm_year) + 1900)
    let padded = String(repeating: "0", count: max(0, 4 - year.count)) + year
    return "\(padded)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
      + "\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
  }

  /// The time now: the one clock that reaches a site (see ``BuildDate``).
  static func now() -> String {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return format(Int64(now.tv_sec))
  }
}
