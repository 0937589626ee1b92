/// How an app's priorities read as taskpress's (`"values": {"priority": {…}}` in
/// `taskpress.json`): each app value, or range of whole numbers (`"1-4"`), to a level: `high`,
/// `medium`, `low`, `none`, or a level's number with a label of its own (`"4"`,
/// `"4:Someday"`; 1, 2 and 3 are High, Medium and Low).
///
/// Taskwarrior's `{"H": "high", "M": "medium", "L": "low"}` and iCalendar's
/// `{"1-4": "high", "5": "medium", "6-9": "low", "0": "none"}` are each one line.
public struct PriorityValues: Sendable, Equatable {
  /// The levels of the app's values, by the value as text (a number as its digits).
  let exact: [String: Priority]
  /// The levels of ranges of whole numbers, in the order given.
  let ranges: [(range: ClosedRange<Int64>, priority: Priority)]
  /// The labels the map gives levels (`4:Someday`), by level.
  public let labels: [Int64: String]

  /// The map of `rules` (app value to level); an error message naming the first rule that is
  /// not one.
  public init(_ rules: [String: String]) throws(ValueMapError) {
    var exact: [String: Priority] = [:]
    var ranges: [(ClosedRange<Int64>, Priority)] = []
    var labels: [Int64: String] = [:]
    for (value, target) in rules.sorted(by: { $0.key < $1.key }) {
      let priority: Priority
      switch target.lowercased() {
      case "high": priority = .high
      case "medium": priority = .medium
      case "low": priority = .low
      case "none": priority = .none
      default:
        let parts = target.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let number = Int64(String(parts[0]).trimmingASCIISpaces()) else {
          throw ValueMapError(
            "\"priority\": '\(value)' goes to '\(target)', which is not high, medium, low,"
              + " none, a level's number or 'number:label' (e.g. '4:Someday')")
        }
        priority = Priority(number)
        if parts.count == 2 {
          let label = String(String(parts[1]).trimmingASCIISpaces())
          guard !label.isEmpty else {
            throw ValueMapError("\"priority\": the label of '\(target)' is empty")
          }
          if let other = labels[number], other != label {
            throw ValueMapError(
              "\"priority\": level \(number) is labelled both '\(other)' and '\(label)'")
          }
          labels[number] = label
        }
      }
      if let range = Self.range(value) {
        ranges.append((range, priority))
      } else {
        exact[value] = priority
      }
    }
    self.exact = exact
    self.ranges = ranges
    self.labels = labels
  }

  /// `a-b` of two whole numbers, a <= b.
  private static func range(_ text: String) -> ClosedRange<Int64>? {
    // The dash after the first character: `-3-5` is -3 to 5.
    guard let dash = text.dropFirst().firstIndex(of: "-"),
      let low = Int64(text[..<dash]), let high = Int64(text[text.index(after: dash)...]),
      low <= high
    else { return nil }
    return low...high
  }

  /// The level of a value stored as `text` (a number as its digits); nil when the map has none.
  func priority(ofText text: String) -> Priority? {
    if let found = exact[text] { return found }
    guard let number = Int64(text) else { return nil }
    return ranges.first { $0.range.contains(number) }?.priority
  }

  public static func == (lhs: PriorityValues, rhs: PriorityValues) -> Bool {
    lhs.exact == rhs.exact && lhs.labels == rhs.labels
      && lhs.ranges.map(\.range) == rhs.ranges.map(\.range)
      && lhs.ranges.map(\.priority) == rhs.ranges.map(\.priority)
  }
}

/// A value map or date unit that cannot be used: its message says which and what to write.
public struct ValueMapError: Error, Sendable, Equatable, CustomStringConvertible {
  public let description: String

  init(_ description: String) {
    self.description = description
  }
}

/// The unit a date field is stored in (`"dates": {"due": "milliseconds"}`). Text is read as
/// ISO 8601 in every unit; the unit says what a number is.
public enum DateUnit: String, Sendable, CaseIterable {
  /// Seconds since 1970-01-01 (Unix time): the default.
  case seconds
  /// Milliseconds since 1970-01-01 (JavaScript, Java, most apps' JSON).
  case milliseconds
  /// Seconds since 2001-01-01 (Core Data: Apple's apps).
  case coreData = "core-data"
  /// Julian day numbers (SQLite's `julianday()`).
  case julian
  /// Text only: a number is a warning.
  case iso

  /// An SQL expression that writes the number in `column` as `2008-07-25T12:46:40Z`, text as
  /// stored.
  func expression(_ column: String) -> String {
    let format = "strftime('%Y-%m-%dT%H:%M:%SZ', "
    let number: String
    switch self {
    case .seconds: number = format + "\(column), 'unixepoch')"
    case .milliseconds: number = format + "CAST(\(column) / 1000 AS INTEGER), 'unixepoch')"
    case .coreData: number = format + "\(column) + 978307200, 'unixepoch')"
    case .julian: number = format + "\(column))"
    case .iso: number = "NULL"
    }
    return "CASE WHEN typeof(\(column)) IN ('integer', 'real') THEN \(number) ELSE \(column) END"
  }

  /// The unit a number that reads wrong in this unit was likely written in, for a warning:
  /// milliseconds read as seconds land after the year 5000; seconds read as milliseconds in
  /// January 1970.
  func likelyUnit(of number: Double) -> DateUnit? {
    switch self {
    case .seconds, .coreData: abs(number) >= 1e11 ? .milliseconds : nil
    case .milliseconds: abs(number) > 0 && abs(number) < 1e10 ? .seconds : nil
    case .julian: abs(number) >= 1e7 ? .seconds : nil
    case .iso: .seconds
    }
  }
}
