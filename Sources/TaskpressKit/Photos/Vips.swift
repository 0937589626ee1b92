import CVipsShim
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// taskpress's door to libvips (through `CVipsShim`): a photo's header, and renditions made with
/// the loader of its sniffed format only. Every read goes through a ``PhotoBytes``, so a photo
/// streams from wherever it is (a database blob) and is never held whole by taskpress.
enum Vips {
  /// Why libvips could not do what was asked: its own message, one line.
  struct Failure: Error, Equatable {
    var reason: String
  }

  /// What a header says, before any pixel is decoded.
  struct Header: Equatable {
    var width: Int
    var height: Int
    /// The EXIF orientation, 1-8.
    var orientation: Int

    /// The size as the photo is shown, after its orientation.
    var shownWidth: Int { orientation >= 5 ? height : width }
    var shownHeight: Int { orientation >= 5 ? width : height }
  }

  /// An encoded rendition and its size.
  struct Image {
    var bytes: [UInt8]
    var width: Int
    var height: Int
  }

  private static let started: Result<Void, Failure> = {
    var error: UnsafeMutablePointer<CChar>?
    if tpv_start(&error) == 0 { return .success(()) }
    return .failure(Failure(reason: take(error)))
  }()

  /// Starts libvips (once per process).
  static func start() throws(Failure) {
    try started.get()
  }

  /// The libvips version, e.g. `8.14.1` (libvips is loaded for it).
  static var version: String {
    (try? start()).map { String(cString: tpv_version()) } ?? "not loaded"
  }

  /// The loader for `format`, or nil when libvips is not asked to read it (BMP, AVIF).
  static func loader(_ format: ImageFormat) -> tpv_format? {
    switch format {
    case .jpeg: TPV_JPEG
    case .png: TPV_PNG
    case .webp: TPV_WEBP
    case .gif: TPV_GIF
    case .tiff: TPV_TIFF
    case .heic, .avif: TPV_HEIF
    case .bmp: nil
    }
  }

  /// Runs `body`, a libvips operation, beside the other threads' ones; when it fails, runs it
  /// again alone, so that the reason read from libvips' error buffer (one for the whole
  /// process) is its own and not another photo's.
  private static func attributed<T>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
    tpv_lock(0)
    do {
      defer { tpv_unlock() }
      return try body()
    } catch {}
    tpv_lock(1)
    defer { tpv_unlock() }
    return try body()
  }

  /// Reads the header of the photo in `bytes` with the loader of `format`.
  static func header(_ format: tpv_format, _ bytes: PhotoBytes) throws(Failure) -> Header {
    try start()
    return try attributed { () throws(Failure) in try readHeader(format, bytes) }
  }

  private static func readHeader(_ format: tpv_format, _ bytes: PhotoBytes) throws(Failure)
    -> Header
  {
    var header = tpv_header()
    var error: UnsafeMutablePointer<CChar>?
    let code = bytes.withReader { tpv_read_header(format, $0, &header, &error) }
    if let failure = bytes.takeFailure() { throw failure }
    guard code == 0 else { throw Failure(reason: take(error)) }
    return Header(
      width: Int(header.width), height: Int(header.height),
      orientation: Int(header.orientation))
  }

  /// How AVIF renditions are encoded: libvips' `Q` and `effort` (0-9) for `heifsave` with AV1.
  struct AVIFSettings: Equatable, Sendable {
    var quality: Int
    var effort: Int
  }

  /// Why AVIF cannot be encoded here (libvips has no HEIF saver, or libheif no AV1 encoder),
  /// found by encoding a small image once; nil when it can.
  static let avifUnavailable: String? = {
    if case .failure(let failure) = started { return failure.reason }
    var error: UnsafeMutablePointer<CChar>?
    tpv_lock(1)
    defer { tpv_unlock() }
    return tpv_avif_probe(&error) == 0 ? nil : take(error)
  }()

  /// Renditions `widths` pixels wide (as shown), upright, as WebP or JPEG, from one decode; with
  /// `avif`, each width also as AVIF, after them (`2 * widths.count` images).
  static func renditions(
    _ format: tpv_format, _ bytes: PhotoBytes, widths: [Int], quality: Int, jpeg: Bool,
    keepMetadata: Bool, avif: AVIFSettings? = nil
  ) throws(Failure) -> [Image] {
    try start()
    return try attributed { () throws(Failure) in
      try makeRenditions(
        format, bytes, widths: widths, quality: quality, jpeg: jpeg, keepMetadata: keepMetadata,
        avif: avif)
    }
  }

  private static func makeRenditions(
    _ format: tpv_format, _ bytes: PhotoBytes, widths: [Int], quality: Int, jpeg: Bool,
    keepMetadata: Bool, avif: AVIFSettings?
  ) throws(Failure) -> [Image] {
    var images = [tpv_image](
      repeating: tpv_image(), count: avif == nil ? widths.count : 2 * widths.count)
    var error: UnsafeMutablePointer<CChar>?
    let sizes = widths.map { Int32($0) }
    let code = bytes.withReader { reader in
      images.withUnsafeMutableBufferPointer { images in
        tpv_make_renditions(
          format, reader, sizes, Int32(sizes.count), Int32(quality), jpeg ? 1 : 0,
          keepMetadata ? 1 : 0, format == TPV_JPEG ? 1 : 0, Int32(avif?.quality ?? 0),
          Int32(avif?.effort ?? 0), images.baseAddress, &error)
      }
    }
    defer {
      for image in images { tpv_free(image.bytes) }
    }
    if let failure = bytes.takeFailure() { throw failure }
    guard code == 0 else { throw Failure(reason: take(error)) }
    return images.map { image in
      let encoded =
        image.bytes.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: image.length)) } ?? []
      return Image(bytes: encoded, width: Int(image.width), height: Int(image.height))
    }
  }

  /// Why an SVG cannot be rendered here (libvips cannot be loaded, has no `svgload`, or librsvg
  /// fails), found by rendering a small SVG once; nil when it can.
  static let svgUnavailable: String? = {
    if case .failure(let failure) = started { return failure.reason }
    let probe = Array(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\"><rect width=\"4\" height=\"4\"/></svg>"
        .utf8)
    do throws(Failure) {
      _ = try png(fromSVG: probe)
      return nil
    } catch {
      return error.reason
    }
  }()

  /// The PNG of `svg` (an SVG taskpress composed, never a photo), rendered by libvips' `svgload`
  /// (librsvg) at its own size, without alpha and without metadata.
  static func png(fromSVG svg: [UInt8]) throws(Failure) -> Image {
    try start()
    return try attributed { () throws(Failure) in
      var image = tpv_image()
      var error: UnsafeMutablePointer<CChar>?
      let code = svg.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) {
          tpv_svg_to_png($0.baseAddress, $0.count, &image, &error)
        }
      }
      guard code == 0, let start = image.bytes else { throw Failure(reason: take(error)) }
      defer { tpv_free(start) }
      return Image(
        bytes: [UInt8](UnsafeRawBufferPointer(start: start, count: image.length)),
        width: Int(image.width), height: Int(image.height))
    }
  }

  /// The photo's pixels as 8-bit RGB, as stored (for tests that check renditions).
  static func rgb(_ format: tpv_format, _ bytes: PhotoBytes) throws(Failure) -> Image {
    try start()
    var image = tpv_image()
    var error: UnsafeMutablePointer<CChar>?
    let code = bytes.withReader { tpv_decode_rgb(format, $0, &image, &error) }
    guard code == 0, let start = image.bytes else { throw Failure(reason: take(error)) }
    defer { tpv_free(start) }
    let pixels = [UInt8](UnsafeRawBufferPointer(start: start, count: image.length))
    return Image(bytes: pixels, width: Int(image.width), height: Int(image.height))
  }

  private static func take(_ error: UnsafeMutablePointer<CChar>?) -> String {
    guard let error else { return "libvips gave no reason" }
    defer { tpv_free(error) }
    let text = String(cString: error)
    return text.isEmpty ? "libvips gave no reason" : text
  }
}

/// A photo's bytes as libvips reads them: `read(offset, buffer)` fills `buffer` from `offset`
/// (fewer bytes at the end) and returns the count; a thrown error stops the decode and is
/// reported instead of libvips' own.
final class PhotoBytes {
  let count: Int
  private let read: (Int, UnsafeMutableRawBufferPointer) throws -> Int
  private var position = 0
  private var failure: Vips.Failure?

  init(count: Int, read: @escaping (Int, UnsafeMutableRawBufferPointer) throws -> Int) {
    self.count = count
    self.read = read
  }

  /// Bytes in memory.
  convenience init(_ bytes: [UInt8]) {
    self.init(count: bytes.count) { offset, buffer in
      let length = min(buffer.count, bytes.count - offset)
      guard length > 0 else { return 0 }
      bytes.withUnsafeBytes { source in
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + length]))
      }
      return length
    }
  }

  func takeFailure() -> Vips.Failure? {
    defer { failure = nil }
    return failure
  }

  fileprivate func withReader<R>(_ body: (tpv_reader) -> R) -> R {
    position = 0
    failure = nil
    let context = Unmanaged.passUnretained(self).toOpaque()
    let reader = tpv_reader(
      context: context,
      read: { context, buffer, length in
        guard let context, let buffer else { return -1 }
        let bytes = Unmanaged<PhotoBytes>.fromOpaque(context).takeUnretainedValue()
        return bytes.readNext(UnsafeMutableRawBufferPointer(start: buffer, count: Int(length)))
      },
      seek: { context, offset, whence in
        guard let context else { return -1 }
        let bytes = Unmanaged<PhotoBytes>.fromOpaque(context).takeUnretainedValue()
        return bytes.seek(Int(offset), whence)
      })
    return withExtendedLifetime(self) { body(reader) }
  }

  private func readNext(_ buffer: UnsafeMutableRawBufferPointer) -> Int64 {
    guard failure == nil else { return -1 }
    let wanted = min(buffer.count, count - position)
    guard wanted > 0 else { return 0 }
    do {
      let done = try read(position, UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]))
      position += done
      return Int64(done)
    } catch {
      failure = (error as? Vips.Failure) ?? Vips.Failure(reason: "\(error)")
      return -1
    }
  }

  private func seek(_ offset: Int, _ whence: Int32) -> Int64 {
    let target: Int
    switch whence {
    case SEEK_SET: target = offset
    case SEEK_CUR: target = position + offset
    case SEEK_END: target = count + offset
    default: return -1
    }
    guard target >= 0 else { return -1 }
    position = min(target, count)
    return Int64(position)
  }
}
