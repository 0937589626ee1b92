/// One row of the `possessions` table.
public struct Possession: Sendable, Equatable {
  /// The `id` column, or the rowid when the table has no `id` column.
  public var id: Int64
  public var name: String
  public var description: String
  /// The photo's format and size; `nil` when there is no photo or it is not an image.
  public var photo: PhotoInfo?

  public init(id: Int64, name: String, description: String, photo: PhotoInfo?) {
    self.id = id
    self.name = name
    self.description = description
    self.photo = photo
  }
}
