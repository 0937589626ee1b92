import Mustache

/// How photos are published: the widths the theme asks for (`photos.json`) and the options.
struct PhotoSettings: Sendable, Equatable {
  /// The widths of the renditions, in pixels as shown, ascending: a photo gets one per width
  /// smaller than it, and one at its own width when it is smaller than the largest.
  var widths: [Int] = [240, 640, 1024, 1600]
  /// WebP quality, 1-100.
  var quality = 80
  /// Photos with more pixels than this are not decoded (a warning).
  var maxPixels = PhotoSettings.defaultMaxPixels
  /// Publishes EXIF, XMP and IPTC (with GPS positions and camera details) as they are stored.
  var keepMetadata = false
  /// How each rendition is also encoded as AVIF, beside its WebP; nil for WebP alone.
  var avif: Vips.AVIFSettings?

  /// AVIF's quality and effort (`heifsave` with AV1): chosen by measurement, see `Docs/photos.md`.
  static let avifDefaults = Vips.AVIFSettings(quality: 50, effort: 0)

  static let defaultMaxPixels = 200_000_000

  /// The settings of `options`, with the widths of the theme's `photos.json`
  /// (`{"widths": [320, 640]}`) when it has one.
  init(theme: Theme, options: BuildOptions) throws {
    maxPixels = options.maxPhotoPixels
    keepMetadata = options.keepPhotoMetadata
    if options.photoFormats.contains(.avif) { avif = Self.avifDefaults }
    guard let text = theme.text(of: "photos.json") else { return }
    let problem = ThemeError(
      "photos.json: expected {\"widths\": [320, 640, ...]}, whole numbers from 16 to 8192")
    guard case .object(let object) = try? MustacheValue(json: text),
      case .array(let values) = object["widths"], !values.isEmpty
    else { throw problem }
    var widths: [Int] = []
    for value in values {
      guard case .int(let width) = value, (16...8192).contains(width) else { throw problem }
      widths.append(Int(width))
    }
    self.widths = Array(Set(widths)).sorted()
  }

  init() {}

  /// JPEG, PNG and WebP photos up to this width (the second width: what the gallery needs on a
  /// high-density screen) are published as stored, without their metadata: a rendition would
  /// save little and cost a decode.
  var asStoredWidth: Int { widths.count > 1 ? widths[1] : widths.first ?? 0 }

  /// JPEG, PNG, WebP and GIF photos up to this many bytes as stored are published as stored,
  /// without their metadata, whatever their width: re-encoding a file that small saves nothing
  /// worth a decode.
  static let asStoredBytes = 64 * 1024

  /// The widths of the renditions of a photo `width` pixels wide as shown.
  func renditionWidths(forShownWidth width: Int) -> [Int] {
    var result = widths.filter { $0 < width }
    if let largest = widths.last, width <= largest { result.append(width) }
    return result
  }

  /// Leaves AVIF out when it is asked for and `unavailable` gives a reason it cannot be
  /// encoded here (`Vips.avifUnavailable`, read only then: it loads libvips); the warning that
  /// says so, once per build.
  mutating func withoutUnavailableAVIF(_ unavailable: () -> String?) -> [BuildWarning] {
    guard avif != nil, let reason = unavailable() else { return [] }
    avif = nil
    return [
      BuildWarning(
        file: "--photo-formats",
        message:
          "AVIF cannot be encoded here (\(reason)); photos are published as WebP alone "
          + "(install libheif with an AV1 encoder, libaom, for AVIF)")
    ]
  }

  /// What, besides the photo's content, decides its renditions' bytes.
  var renditionKey: String {
    let sizes = widths.map(String.init).joined(separator: ",")
    let formats = avif.map { "webp+avif q\($0.quality) e\($0.effort)" } ?? "webp"
    return "\(formats) \(sizes) q\(quality) \(keepMetadata ? "keep" : "strip") vips \(Vips.version)"
  }
}
