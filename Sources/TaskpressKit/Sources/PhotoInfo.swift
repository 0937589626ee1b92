/// What sniffing a photo's first bytes found. The bytes stay in the database until streamed.
public struct PhotoInfo: Sendable, Equatable {
  public var format: ImageFormat
  /// The width in pixels, when the header gives it.
  public var width: Int?
  /// The height in pixels, when the header gives it.
  public var height: Int?
  /// The size of the stored photo.
  public var byteCount: Int64
  /// The row holding the photo, for streaming it: its rowid, or its `id` in a view or a
  /// `WITHOUT ROWID` table.
  public var row: Int64

  public init(format: ImageFormat, width: Int?, height: Int?, byteCount: Int64, row: Int64) {
    self.format = format
    self.width = width
    self.height = height
    self.byteCount = byteCount
    self.row = row
  }
}
