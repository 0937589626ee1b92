/// One row of the `todo` table.
public struct Todo: Sendable, Equatable {
  public var pk: Int64
  public var text: String
  public var priority: Priority
  /// `false` (In Progress) when stored as 0 or NULL, `true` (Complete) otherwise.
  public var complete: Bool
  /// The due date when the source maps a column for it: a number of seconds as
  /// `2008-07-25T12:46:40Z`, text as stored; `nil` for NULL or no such column.
  public var due: String?

  public init(pk: Int64, text: String, priority: Priority, complete: Bool, due: String? = nil) {
    self.pk = pk
    self.text = text
    self.priority = priority
    self.complete = complete
    self.due = due
  }
}
