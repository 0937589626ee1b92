/// An image format taskpress accepts for photos. SVG is deliberately not one: it can carry
/// scripts.
public enum ImageFormat: String, Sendable, CaseIterable {
  case png
  case jpeg
  case gif
  case webp
  case bmp
  case tiff
  case heic
  case avif

  /// The extension of an exported file, without the dot.
  public var fileExtension: String {
    switch self {
    case .jpeg: return "jpg"
    default: return rawValue
    }
  }

  /// The media type, e.g. `image/png`.
  public var mimeType: String { "image/\(rawValue)" }
}
