/// A to-do's priority. Sorts High, Medium, Low, then other numbers in order, then none.
public enum Priority: Sendable, Hashable, Comparable {
  /// Stored as 1.
  case high
  /// Stored as 2.
  case medium
  /// Stored as 3.
  case low
  /// Any other integer, labelled "Priority N".
  case other(Int64)
  /// NULL, text or another non-integer: labelled "No priority", sorted last.
  case none

  /// The priority stored as `value`: 1, 2 and 3 are High, Medium and Low.
  public init(_ value: Int64) {
    switch value {
    case 1: self = .high
    case 2: self = .medium
    case 3: self = .low
    default: self = .other(value)
    }
  }

  /// The stored number, or `nil` for ``none``.
  public var number: Int64? {
    switch self {
    case .high: return 1
    case .medium: return 2
    case .low: return 3
    case .other(let value): return value
    case .none: return nil
    }
  }

  public static func < (lhs: Priority, rhs: Priority) -> Bool {
    lhs.sortKey < rhs.sortKey
  }

  /// Rank first (named, other, none), then the number among others.
  private var sortKey: (Int, Int64) {
    if case .other(let value) = self { return (rank, value) }
    return (rank, 0)
  }

  /// The place of the priority's group in sort order: High, Medium, Low, other, none (0-4).
  var rank: Int {
    switch self {
    case .high: 0
    case .medium: 1
    case .low: 2
    case .other: 3
    case .none: 4
    }
  }
}
