/// One row of the `todo` table.
public struct Todo: Sendable, Equatable {
  public var pk: Int64
  public var text: String
  public var priority: Priority
  /// `false` (In Progress) when stored as 0 or NULL, `true` (Complete) otherwise.
  public var complete: Bool

  public init(pk: Int64, text: String, priority: Priority, complete: Bool) {
    self.pk = pk
    self.text = text
    self.priority = priority
    self.complete = complete
  }
}
