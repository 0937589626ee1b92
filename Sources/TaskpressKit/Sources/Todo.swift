/// One row of the `todo` table.
public struct Todo: Sendable, Equatable {
  /// The key's number (``TodoKey``): the key itself when it is a whole number.
  public var pk: Int64
  /// The key as stored when it is text that is not a whole number (a UUID); nil otherwise.
  public var key: String?
  public var text: String
  public var priority: Priority
  /// `false` (In Progress) when stored as 0 or NULL, `true` (Complete) otherwise.
  public var complete: Bool
  /// The due date when the source maps a column for it: a number of seconds as
  /// `2008-07-25T12:46:40Z`, text as stored; `nil` for NULL or no such column.
  public var due: String?

  public init(
    pk: Int64, text: String, priority: Priority, complete: Bool, due: String? = nil,
    key: String? = nil
  ) {
    self.pk = pk
    self.key = key
    self.text = text
    self.priority = priority
    self.complete = complete
    self.due = due
  }
}

extension Todo {
  /// The key as the app stores it, as text: the text key, or the number's digits.
  public var keyText: String { key ?? String(pk) }

  /// The day of the due date (`2008-07-25` of `2008-07-25T12:46:40Z`) when it starts with
  /// one; nil when there is no due date or it is text that is not a date.
  public var dueDay: Substring? {
    guard let due else { return nil }
    let day = due.utf8.prefix(10)
    guard day.count == 10 else { return nil }
    for (offset, byte) in day.enumerated() {
      let isDash = offset == 4 || offset == 7
      guard isDash ? byte == UInt8(ascii: "-") : (0x30...0x39).contains(byte) else { return nil }
    }
    return Substring(day)
  }

  /// Whether the to-do is in progress and was due before `today` (`YYYY-MM-DD`, the build's
  /// date); one due on `today` is not overdue yet.
  public func isOverdue(today: String) -> Bool {
    guard !complete, let day = dueDay else { return false }
    return day < today
  }
}
