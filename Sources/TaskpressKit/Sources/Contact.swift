/// One row of the `contacts` table.
public struct Contact: Sendable, Equatable {
  public var id: Int64
  public var name: String
  public var address: String
  public var phone: String

  public init(id: Int64, name: String, address: String, phone: String) {
    self.id = id
    self.name = name
    self.address = address
    self.phone = phone
  }
}
