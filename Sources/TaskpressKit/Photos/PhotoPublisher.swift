import Dispatch
import Glibc
import Synchronization

/// A photo as the site shows it: its files, narrowest first.
struct PublishedPhoto: Sendable, Equatable {
  struct Rendition: Sendable, Equatable {
    /// The file in the site, `photos/NAME`.
    var path: String
    var width: Int
    var height: Int
  }

  var renditions: [Rendition]
}

/// Publishes the photos of possessions: each distinct photo (by SHA-256) once, as renditions
/// at the theme's widths made by libvips, or, when it is small enough to need none (no wider
/// than the second width, or at most 64 KB) and its format allows, as stored with its metadata
/// cut out. A photo that does not decode is a
/// warning and gets no file; a rendition already in the site is kept, not decoded again.
final class PhotoPublisher: Sendable {
  let settings: PhotoSettings
  nonisolated(unsafe) let source: PossessionSource
  let writer: OutputWriter
  /// The source is used by one thread at a time.
  private let sourceLock = Mutex(())
  /// Photos decoded so far (a rebuild that finds their renditions in the site decodes none).
  let photosDecoded = Atomic(0)

  /// Photos up to this size are read whole into memory, hashed and decoded from there; larger
  /// ones are streamed from the database each time, so memory does not grow with their size.
  static let bufferLimit = 1 << 20

  init(settings: PhotoSettings, source: PossessionSource, writer: OutputWriter) {
    self.settings = settings
    self.source = source
    self.writer = writer
  }

  /// Publishes the photos of `possessions` on up to `jobs` threads (libvips is told to use
  /// one thread per photo); returns them by possession id, and a warning for each possession
  /// whose photo could not be published. Stops, with an empty result, when `stopping` says so.
  func publish(
    _ possessions: [Possession], jobs: Int, stopping: @escaping @Sendable () -> Bool
  ) throws -> (photos: [Int64: PublishedPhoto], warnings: [BuildWarning]) {
    let withPhotos = possessions.compactMap { possession in
      possession.photo.map { (id: possession.id, photo: $0) }
    }
    guard !withPhotos.isEmpty else { return ([:], []) }
    struct Shared {
      /// Each possession's photo digest, by its index in `withPhotos`.
      var digests: [String?]
      /// The outcome of each distinct photo, by digest; nil while it is being made.
      var outcomes: [String: Result<PublishedPhoto, Vips.Failure>?] = [:]
      var error: (any Error)?
    }
    let shared = Mutex(Shared(digests: Array(repeating: nil, count: withPhotos.count)))
    let next = Atomic(0)
    let workers = max(1, min(jobs, withPhotos.count))
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
      while true {
        let index = next.add(1, ordering: .relaxed).oldValue
        guard index < withPhotos.count, !stopping() else { return }
        if shared.withLock({ $0.error != nil }) { return }
        do {
          let photo = withPhotos[index].photo
          let (digest, bytes) = try identify(photo)
          let first = shared.withLock { state in
            state.digests[index] = digest
            guard state.outcomes[digest] == nil else { return false }
            state.outcomes[digest] = .some(nil)
            return true
          }
          guard first else { continue }
          let outcome = try publish(photo, digest: digest, bytes: bytes)
          shared.withLock { $0.outcomes[digest] = outcome }
        } catch {
          shared.withLock { $0.error = $0.error ?? error }
          return
        }
      }
    }
    let state = shared.withLock { $0 }
    if let error = state.error { throw error }
    if stopping() { return ([:], []) }
    var photos: [Int64: PublishedPhoto] = [:]
    var warnings: [BuildWarning] = []
    for (index, entry) in withPhotos.enumerated() {
      guard let digest = state.digests[index], let outcome = state.outcomes[digest] ?? nil else {
        continue
      }
      switch outcome {
      case .success(let published): photos[entry.id] = published
      case .failure(let failure):
        warnings.append(
          BuildWarning(
            file: source.path, location: "possessions id=\(entry.id)",
            message: "photo not published: \(failure.reason); the pages show no photo"))
      }
    }
    return (photos, warnings)
  }

  // MARK: - One photo

  /// The photo's SHA-256 (hex), and its bytes when it is small enough to keep in memory.
  private func identify(_ photo: PhotoInfo) throws -> (String, [UInt8]?) {
    if photo.byteCount <= Self.bufferLimit {
      let bytes = try sourceLock.withLock { _ in try source.readPhoto(photo) }
      return (SHA256.hex(SHA256.hash(bytes)), bytes)
    }
    var hasher = SHA256()
    var offset = 0
    let chunk = 256 * 1024
    while offset < photo.byteCount {
      let piece = try sourceLock.withLock { _ in
        try source.readPhoto(photo, offset: offset, count: chunk)
      }
      guard !piece.isEmpty else { break }
      piece.withUnsafeBytes { hasher.update($0) }
      offset += piece.count
    }
    return (SHA256.hex(hasher.finalize()), nil)
  }

  /// Publishes one distinct photo; a photo that cannot be published is a failure with the
  /// reason, and nothing of it is added to the site.
  private func publish(_ photo: PhotoInfo, digest: String, bytes: [UInt8]?) throws -> Result<
    PublishedPhoto, Vips.Failure
  > {
    if let bytes, let kept = try publishAsStored(photo, digest: digest, bytes: bytes) {
      return kept
    }
    guard let loader = Vips.loader(photo.format) else {
      return .failure(
        Vips.Failure(
          reason:
            "\(photo.format.rawValue.uppercased()) cannot be decoded without ImageMagick, "
            + "which taskpress does not use; store the photo as JPEG or PNG"))
    }
    let reader = bytes.map(PhotoBytes.init) ?? streamed(photo)
    do {
      let header = try Vips.header(loader, reader)
      let pixels = header.width * header.height
      guard pixels <= settings.maxPixels else {
        return .failure(
          Vips.Failure(
            reason:
              "it has \(header.width) × \(header.height) pixels, more than --max-photo-pixels "
              + "(\(settings.maxPixels)) allows"))
      }
      let key = SHA256.hex(SHA256.hash(Array("\(digest) \(settings.renditionKey)".utf8)))
      var made: [(PublishedPhoto.Rendition, [UInt8])?] = []
      var missing: [(index: Int, width: Int, path: String)] = []
      for width in settings.renditionWidths(forShownWidth: header.shownWidth) {
        let path = "photos/\(key)-\(width).webp"
        if let kept = previousRendition(path) {
          made.append(kept)
        } else {
          missing.append((made.count, width, path))
          made.append(nil)
        }
      }
      if !missing.isEmpty {
        // One decode for every rendition not in the site yet.
        photosDecoded.add(1, ordering: .relaxed)
        let images = try Vips.renditions(
          loader, reader, widths: missing.map(\.width), quality: settings.quality, jpeg: false,
          keepMetadata: settings.keepMetadata)
        for (wanted, image) in zip(missing, images) {
          var encoded = image.bytes
          if !settings.keepMetadata {
            guard case .stripped(let stripped) = LosslessStrip.webp(encoded) else {
              return .failure(Vips.Failure(reason: "libvips wrote a WebP taskpress cannot read"))
            }
            encoded = stripped
          }
          made[wanted.index] = (
            .init(path: wanted.path, width: image.width, height: image.height), encoded
          )
        }
      }
      let renditions = made.compactMap { $0 }
      // Only once every rendition decoded: a photo that fails leaves no file behind.
      for (rendition, bytes) in renditions {
        try writer.add(rendition.path, bytes: bytes)
      }
      return .success(PublishedPhoto(renditions: renditions.map(\.0)))
    } catch let failure as Vips.Failure {
      return .failure(failure)
    }
  }

  /// A JPEG, PNG or WebP no wider than `settings.asStoredWidth`, or a JPEG, PNG, WebP or GIF of
  /// at most `PhotoSettings.asStoredBytes` whatever its width, upright as stored: published as
  /// stored, without its metadata. Nil when the photo must be decoded instead.
  private func publishAsStored(_ photo: PhotoInfo, digest: String, bytes: [UInt8]) throws
    -> Result<PublishedPhoto, Vips.Failure>?
  {
    let small = bytes.count <= PhotoSettings.asStoredBytes
    guard let width = photo.width, let height = photo.height,
      small || (width <= settings.asStoredWidth && photo.format != .gif),
      width * height <= settings.maxPixels
    else { return nil }
    let outcome: LosslessStrip.Outcome
    switch photo.format {
    case .jpeg: outcome = LosslessStrip.jpeg(bytes, keepMetadata: settings.keepMetadata)
    case .png: outcome = LosslessStrip.png(bytes, keepMetadata: settings.keepMetadata)
    case .webp:
      outcome = settings.keepMetadata ? LosslessStrip.webpChecked(bytes) : LosslessStrip.webp(bytes)
    case .gif: outcome = LosslessStrip.gif(bytes, keepMetadata: settings.keepMetadata)
    default: return nil
    }
    switch outcome {
    case .needsDecoding: return nil
    case .damaged(let reason): return .failure(Vips.Failure(reason: reason))
    case .stripped(let published):
      let suffix = settings.keepMetadata ? "-metadata" : ""
      let path = "photos/\(digest)\(suffix).\(photo.format.fileExtension)"
      try writer.add(path, bytes: published)
      return .success(
        PublishedPhoto(renditions: [.init(path: path, width: width, height: height)]))
    }
  }

  /// The photo read from the database piece by piece as libvips asks for it.
  private func streamed(_ photo: PhotoInfo) -> PhotoBytes {
    PhotoBytes(count: Int(photo.byteCount)) { [self] offset, buffer in
      let piece = try sourceLock.withLock { _ in
        try source.readPhoto(photo, offset: offset, count: buffer.count)
      }
      piece.withUnsafeBytes { buffer.copyMemory(from: $0) }
      return piece.count
    }
  }

  // MARK: - Renditions already in the site

  /// The rendition `path` as the previous build wrote it, when it is still there untouched:
  /// its size comes from its header, nothing is decoded.
  private func previousRendition(_ path: String) -> (PublishedPhoto.Rendition, [UInt8])? {
    guard let bytes = readSite(path),
      case .image(_, let width?, let height?) = ImageSniffer.sniff(bytes, isComplete: true)
    else { return nil }
    return (.init(path: path, width: width, height: height), bytes)
  }

  /// The bytes of a file the previous build wrote, when its size and modification time are
  /// those it recorded.
  private func readSite(_ path: String) -> [UInt8]? {
    guard let entry = writer.previous.files[path] else { return nil }
    let fd = open(writer.displayRoot + "/" + path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, Int(info.st_size) == entry.size,
      info.modificationNanoseconds == entry.modified
    else { return nil }
    var bytes = [UInt8](repeating: 0, count: entry.size)
    var done = 0
    while done < entry.size {
      let count = bytes.withUnsafeMutableBytes { buffer in
        read(fd, buffer.baseAddress.map { $0 + done }, buffer.count - done)
      }
      guard count > 0 else { return nil }
      done += count
    }
    return bytes
  }
}

extension PageContext.PhotoFile {
  /// The files of a published photo; nil when it has none.
  init?(_ published: PublishedPhoto) {
    guard let largest = published.renditions.last else { return nil }
    self.init(
      path: largest.path, width: largest.width, height: largest.height,
      renditions: published.renditions)
  }
}
