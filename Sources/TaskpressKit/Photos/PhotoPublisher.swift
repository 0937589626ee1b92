import CVipsShim
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A photo as the site shows it: its files, narrowest first.
struct PublishedPhoto: Sendable, Equatable {
  struct Rendition: Sendable, Equatable {
    /// The file in the site, `photos/NAME`.
    var path: String
    var width: Int
    var height: Int
  }

  var renditions: [Rendition]
  /// The AVIF file beside each rendition (`--photo-formats webp,avif`), in the same order;
  /// empty for WebP alone and for a photo published as stored.
  var avif: [String] = []
}

/// Publishes the photos of possessions: each distinct photo once, as stored with its metadata
/// cut out when it is small enough to need no rendition (no wider than the second width, or at
/// most 64 KB) and its format allows, otherwise as renditions at the theme's widths made by
/// libvips. A photo that does not decode is a warning and gets no file; renditions already in
/// the site are kept, not decoded again.
///
/// A photo is named by its 64-bit `ContentHash`. Two photos are one file only when their bytes
/// are the same: a photo whose hash names one of other bytes (a collision, which a crafted photo
/// can make) is named `HASH-2`, `HASH-3`, ... instead, so no page shows another row's photo.
/// Across builds, renditions in the site are kept only for a photo whose bytes have the keyed
/// hash the last build recorded for them (`RenditionSources`), and `--photo-cache` entries are
/// named by the keyed hash of the photo's bytes under the cache's own key: neither is found by
/// the unkeyed hash a crafted photo can match.
final class PhotoPublisher: Sendable {
  let settings: PhotoSettings
  /// Used by one thread at a time (`sourceLock`).
  nonisolated(unsafe) let source: PossessionSource
  let writer: OutputWriter
  private let sourceLock = Mutex(())
  /// Photos decoded so far (a rebuild that finds their renditions in the site decodes none).
  let photosDecoded = Atomic(0)
  /// The renditions the previous build wrote, by their photo's key: path and width.
  private let previousRenditions: [String: [(path: String, width: Int)]]
  /// The keyed hash of the photo each of those was made from (`RenditionSources`).
  private let previousSources: [String: KeyedHash]
  /// The keyed hash of the photo each rendition key of this build was made from.
  private let sources = Mutex<[String: KeyedHash]>([:])
  /// Renditions kept outside the site (`--photo-cache`), when there is a cache.
  let cache: PhotoCache?
  /// Photos whose renditions came from the cache.
  let photosFromCache = Atomic(0)

  /// Photos up to this size are read whole into memory; larger ones are streamed from the
  /// database each time, so memory does not grow with their size.
  static let bufferLimit = 1 << 20

  init(
    settings: PhotoSettings, source: PossessionSource, writer: OutputWriter,
    cache: PhotoCache? = nil
  ) {
    self.settings = settings
    self.cache = cache
    self.source = source
    self.writer = writer
    var previous: [String: [(path: String, width: Int)]] = [:]
    for path in writer.previous.files.paths {
      guard let (key, width) = Self.renditionName(path) else { continue }
      previous[key, default: []].append((path, width))
    }
    previousRenditions = previous.mapValues { $0.sorted { $0.width < $1.width } }
    previousSources =
      writer.previousRecord(RenditionSources.fileName).flatMap(RenditionSources.init(bytes:))?
      .sources ?? [:]
  }

  /// The record of which photo made each rendition this build published, for the next build.
  var renditionSources: RenditionSources { RenditionSources(sources.withLock { $0 }) }

  /// Publishes the photos of `possessions`: names them and publishes the small ones here, and
  /// makes the renditions of the others on up to `jobs` threads (libvips is told to use one
  /// thread per photo); returns them by possession id, and a warning for each possession whose
  /// photo could not be published. Stops, with an empty result, when `stopping` says so.
  func publish(
    _ possessions: [Possession], jobs: Int, stopping: @escaping @Sendable () -> Bool
  ) throws -> (photos: [Int64: PublishedPhoto], warnings: [BuildWarning]) {
    /// The photo each name was given to.
    var owners: [String: PhotoInfo] = [:]
    /// Each possession's photo name, in order.
    var named: [(id: Int64, name: String)] = []
    var outcomes: [String: Result<PublishedPhoto, Vips.Failure>] = [:]
    /// The distinct photos that need decoding.
    var decode: [(name: String, photo: PhotoInfo)] = []

    for possession in possessions {
      guard let photo = possession.photo else { continue }
      if stopping() { return ([:], []) }
      let small = photo.byteCount <= Self.bufferLimit
      let bytes = small ? try sourceLock.withLock { _ in try source.readPhoto(photo) } : nil
      let hash = try bytes.map { ContentHash(of: $0) } ?? streamedHash(photo)
      var name = hash.hex
      var number = 1
      var isNew = true
      while let owner = owners[name] {
        if try same(owner, photo, bytes: bytes) {
          isNew = false
          break
        }
        number += 1
        name = "\(hash.hex)-\(number)"
      }
      named.append((possession.id, name))
      guard isNew else { continue }
      owners[name] = photo
      if let bytes, let kept = try publishAsStored(photo, name: name, bytes: bytes, hash: hash) {
        outcomes[name] = kept
      } else if let kept = try previousRenditions(of: photo, name: name, bytes: bytes) {
        outcomes[name] = .success(kept)
      } else {
        decode.append((name, photo))
      }
    }

    let decoded = try makeRenditions(decode, jobs: jobs, stopping: stopping)
    if stopping() { return ([:], []) }
    // Within its bound once this build's entries are stored (and the ones it used marked).
    cache?.trim()
    outcomes.merge(decoded) { first, _ in first }
    return result(named: named, outcomes: outcomes)
  }

  // MARK: - Shared work

  /// The photos' pieces of work handed out to whatever threads take them
  /// (`RenderPaths.sharedPhotoWork`): `add` adds pieces any thread may run (with `true`, before
  /// those waiting), `finish` runs them on this thread too and returns once every piece added
  /// has run.
  struct SharedWork: Sendable {
    var add: @Sendable ([@Sendable () -> Void], Bool) -> Void
    var finish: @Sendable () -> Void
  }

  /// Photos whose bytes a piece of the shared work reads at most before it names them.
  static let piecePhotos = 32

  /// A photo read and hashed by a piece of the shared work, waiting to be named.
  private struct ReadPhoto: Sendable {
    var id: Int64
    var photo: PhotoInfo
    /// Its bytes, when it is small enough to be held (`bufferLimit`).
    var bytes: [UInt8]?
    var hash: ContentHash
  }

  /// What the pieces of the shared work share.
  private struct SharedState {
    /// The photo each name was given to.
    var owners: [String: PhotoInfo] = [:]
    /// Each possession's photo name, in order.
    var named: [(id: Int64, name: String)] = []
    var outcomes: [String: Result<PublishedPhoto, Vips.Failure>] = [:]
    /// The next group of photos to be named, and the groups read before their turn.
    var nextGroup = 0
    var readGroups: [Int: [ReadPhoto]] = [:]
    var error: (any Error)?
    var stopped = false
  }

  /// Publishes the photos of `possessions` as `publish(_:jobs:stopping:)` does, with the same
  /// names and files, in pieces of `work` that any thread may run: each piece reads and hashes
  /// a group of photos, names the groups read so far in the possessions' order (the names
  /// depend on that order: the first of two photos whose hashes collide keeps the plain name),
  /// and publishes those named; each photo to decode is a piece of its own.
  ///
  /// No more than `jobs` photos are decoded at once, as without sharing: a thread that takes a
  /// photo to decode beyond that waits for one of them (the cores are busy decoding), so that
  /// the memory they take does not grow with the threads.
  func publish(
    _ possessions: [Possession], jobs: Int, sharing work: SharedWork,
    stopping: @escaping @Sendable () -> Bool
  ) throws -> (photos: [Int64: PublishedPhoto], warnings: [BuildWarning]) {
    let decoding = DispatchSemaphore(value: max(1, jobs))
    // Groups of up to `piecePhotos` photos, and of at most `bufferLimit` bytes held.
    var groups: [[(id: Int64, photo: PhotoInfo)]] = [[]]
    var held: Int64 = 0
    for possession in possessions {
      guard let photo = possession.photo else { continue }
      let size = photo.byteCount <= Self.bufferLimit ? photo.byteCount : 0
      if groups[groups.count - 1].count >= Self.piecePhotos
        || (held + size > Self.bufferLimit && !groups[groups.count - 1].isEmpty)
      {
        groups.append([])
        held = 0
      }
      groups[groups.count - 1].append((possession.id, photo))
      held += size
    }
    if groups[groups.count - 1].isEmpty { groups.removeLast() }
    let shared = Mutex(SharedState())
    let groupList = groups
    // A group is read at most `readAhead` groups past the one whose turn it is to be named, so
    // that what is read and held while that one is still being read stays bounded (a thread
    // reading it may be put off the core while the others read on). Waiters are woken when a
    // turn passes, and when the work stops or fails.
    let readAhead = max(1, jobs)
    let turn = NSCondition()
    @Sendable func wakeReaders() {
      turn.lock()
      turn.broadcast()
      turn.unlock()
    }

    @Sendable func failed(_ error: any Error) {
      shared.withLock { $0.error = $0.error ?? error }
      wakeReaders()
    }
    @Sendable func stop() {
      shared.withLock { $0.stopped = true }
      wakeReaders()
    }
    @Sendable func shouldStop() -> Bool {
      shared.withLock { $0.error != nil || $0.stopped }
    }
    /// Publishes a named photo: as stored, its renditions kept from the last build, or a
    /// piece of work that decodes it.
    @Sendable func publishNamed(_ read: ReadPhoto, name: String) throws {
      if let bytes = read.bytes,
        let kept = try publishAsStored(read.photo, name: name, bytes: bytes, hash: read.hash)
      {
        shared.withLock { $0.outcomes[name] = kept }
      } else if let kept = try previousRenditions(of: read.photo, name: name, bytes: read.bytes) {
        shared.withLock { $0.outcomes[name] = .success(kept) }
      } else {
        let photo = read.photo
        work.add(
          [
            { [self] in
              guard !shouldStop() else { return }
              if stopping() {
                stop()
                return
              }
              decoding.wait()
              defer { decoding.signal() }
              do {
                let outcome = try makeRenditions(photo, name: name)
                shared.withLock { $0.outcomes[name] = outcome }
              } catch {
                failed(error)
              }
            }
          ], true)
      }
    }
    /// Reads and hashes group `index`, and names every group read whose turn it is; the
    /// photos those name for the first time are published by a piece of their own, taken
    /// before any other group is read (what is read is held only until it is published).
    @Sendable func readGroup(_ index: Int) {
      // The groups are taken in order: the one whose turn it is has been taken by a thread
      // that does not wait here, and will be named (or the work stops).
      turn.lock()
      while shared.withLock({
        index >= $0.nextGroup + readAhead && $0.error == nil && !$0.stopped
      }) {
        turn.wait()
      }
      turn.unlock()
      guard !shouldStop() else { return }
      do {
        var reads: [ReadPhoto] = []
        for (id, photo) in groupList[index] {
          if stopping() {
            stop()
            return
          }
          let small = photo.byteCount <= Self.bufferLimit
          let bytes = small ? try sourceLock.withLock { _ in try source.readPhoto(photo) } : nil
          let hash = try bytes.map { ContentHash(of: $0) } ?? streamedHash(photo)
          reads.append(ReadPhoto(id: id, photo: photo, bytes: bytes, hash: hash))
        }
        let fresh = try shared.withLock { state -> [(ReadPhoto, String)] in
          state.readGroups[index] = reads
          var fresh: [(ReadPhoto, String)] = []
          while let group = state.readGroups.removeValue(forKey: state.nextGroup) {
            state.nextGroup += 1
            for read in group {
              var name = read.hash.hex
              var number = 1
              var isNew = true
              while let owner = state.owners[name] {
                if try same(owner, read.photo, bytes: read.bytes) {
                  isNew = false
                  break
                }
                number += 1
                name = "\(read.hash.hex)-\(number)"
              }
              state.named.append((read.id, name))
              guard isNew else { continue }
              state.owners[name] = read.photo
              fresh.append((read, name))
            }
          }
          return fresh
        }
        wakeReaders()
        // A piece for each group's worth, so that a backlog is published on every thread.
        work.add(
          stride(from: 0, to: fresh.count, by: Self.piecePhotos).map { start in
            let part = fresh[start..<min(start + Self.piecePhotos, fresh.count)]
            return {
              guard !shouldStop() else { return }
              do {
                for (read, name) in part {
                  try publishNamed(read, name: name)
                }
              } catch {
                failed(error)
              }
            }
          }, true)
      } catch {
        failed(error)
      }
    }

    work.add(groupList.indices.map { index in { readGroup(index) } }, false)
    work.finish()
    let state = shared.withLock { state in
      (
        named: state.named, outcomes: state.outcomes, error: state.error,
        stopped: state.stopped
      )
    }
    if let error = state.error { throw error }
    if state.stopped || stopping() { return ([:], []) }
    // Within its bound once this build's entries are stored (and the ones it used marked).
    cache?.trim()
    return result(named: state.named, outcomes: state.outcomes)
  }

  /// The photos by possession id, and a warning for each possession whose photo could not be
  /// published.
  private func result(
    named: [(id: Int64, name: String)], outcomes: [String: Result<PublishedPhoto, Vips.Failure>]
  ) -> (photos: [Int64: PublishedPhoto], warnings: [BuildWarning]) {
    var photos: [Int64: PublishedPhoto] = [:]
    var warnings: [BuildWarning] = []
    for (id, name) in named {
      switch outcomes[name] {
      case .success(let published): photos[id] = published
      case .failure(let failure):
        warnings.append(
          BuildWarning(
            file: source.path, location: "possessions id=\(id)",
            message: "photo not published: \(failure.reason); the pages show no photo"))
      case nil: continue
      }
    }
    return (photos, warnings)
  }

  // MARK: - Names

  /// The `ContentHash` of a photo too large to hold, streamed from the database.
  private func streamedHash(_ photo: PhotoInfo) throws -> ContentHash {
    var hasher = ContentHasher()
    try sourceLock.withLock { _ in try source.streamPhoto(photo) { hasher.update($0) } }
    return hasher.finalize()
  }

  /// The hash of a photo's bytes under `key` (`bytes` when they are held, else streamed from the
  /// database), after `prefix`.
  private func keyedHash(
    _ photo: PhotoInfo, bytes: [UInt8]?, key: HashKey, prefix: [UInt8] = []
  ) throws -> KeyedHash {
    var hasher = SipHasher(key: key)
    hasher.update(prefix)
    if let bytes {
      hasher.update(bytes)
    } else {
      try sourceLock.withLock { _ in try source.streamPhoto(photo) { hasher.update($0) } }
    }
    return hasher.finalize()
  }

  /// Whether two photos have the same bytes (read again: a hash matches rarely).
  private func same(_ owner: PhotoInfo, _ photo: PhotoInfo, bytes: [UInt8]?) throws -> Bool {
    guard owner.row != photo.row else { return true }
    guard owner.byteCount == photo.byteCount else { return false }
    return try sourceLock.withLock { _ in
      try source.readPhoto(owner) == (bytes ?? source.readPhoto(photo))
    }
  }

  /// The key of the renditions of the photo named `name`: besides its content (the name), what
  /// decides their bytes (its size, the widths, the quality, the metadata switch and the
  /// libvips version), hashed into 16 hexadecimal digits.
  private func renditionKey(_ photo: PhotoInfo, name: String) -> String {
    ContentHash.hex(of: Array("\(name) \(photo.byteCount) \(settings.renditionKey)".utf8))
  }

  /// The key of a photo in `cache`: the hash, under the cache's own key, of every setting that
  /// decides whether and how it is decoded and of the photo's bytes (`bytes` when they are
  /// held, else streamed), 32 hexadecimal digits.
  func cacheKey(_ photo: PhotoInfo, bytes: [UInt8]?, in cache: PhotoCache) throws -> String {
    let settings = Array(
      ("photo-cache 2 \(photo.byteCount) \(photo.format.rawValue) "
        + "\(settings.renditionKey) max-pixels \(settings.maxPixels)\n").utf8)
    return try keyedHash(photo, bytes: bytes, key: cache.key, prefix: settings).hex
  }

  /// Whether `path` names a rendition libvips made, `photos/KEY-WIDTHw.webp`.
  static func isRendition(_ path: String) -> Bool { renditionName(path) != nil }

  /// The key and width of `path` when it names a rendition, `photos/KEY-WIDTHw.webp` or its
  /// AVIF twin `photos/KEY-WIDTHw.avif`.
  private static func renditionName(_ path: String) -> (key: String, width: Int)? {
    guard path.hasPrefix("photos/"), path.hasSuffix("w.webp") || path.hasSuffix("w.avif") else {
      return nil
    }
    let parts = path.dropFirst(7).dropLast(6).split(separator: "-")
    guard parts.count == 2, parts[0].utf8.count == 16, let width = Int(parts[1]) else {
      return nil
    }
    return (String(parts[0]), width)
  }

  /// The path of the rendition `width` pixels wide of the photo whose key is `key`: the WebP,
  /// or with `avif` its AVIF twin.
  private static func renditionPath(_ key: String, _ width: Int, avif: Bool = false) -> String {
    "photos/\(key)-\(width)w.\(avif ? "avif" : "webp")"
  }

  // MARK: - Renditions

  /// Makes the renditions of `photos` on up to `jobs` threads; their outcomes by name.
  private func makeRenditions(
    _ photos: [(name: String, photo: PhotoInfo)], jobs: Int,
    stopping: @escaping @Sendable () -> Bool
  ) throws -> [String: Result<PublishedPhoto, Vips.Failure>] {
    guard !photos.isEmpty else { return [:] }
    struct Shared {
      var outcomes: [String: Result<PublishedPhoto, Vips.Failure>] = [:]
      var error: (any Error)?
    }
    let shared = Mutex(Shared())
    let next = Atomic(0)
    DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, photos.count))) { _ in
      while true {
        let index = next.add(1, ordering: .relaxed).oldValue
        guard index < photos.count, !stopping(), shared.withLock({ $0.error == nil }) else {
          return
        }
        do {
          let (name, photo) = photos[index]
          let outcome = try makeRenditions(photo, name: name)
          shared.withLock { $0.outcomes[name] = outcome }
        } catch {
          shared.withLock { $0.error = $0.error ?? error }
          return
        }
      }
    }
    let state = shared.withLock { $0 }
    if let error = state.error { throw error }
    return state.outcomes
  }

  /// Makes the renditions of one photo, from one decode; a photo that cannot be published is a
  /// failure with the reason, and nothing of it is added to the site.
  private func makeRenditions(_ photo: PhotoInfo, name: String) throws -> Result<
    PublishedPhoto, Vips.Failure
  > {
    // The bytes, when the photo is small enough to hold: hashed, and decoded from.
    let held =
      photo.byteCount <= Self.bufferLimit
      ? try sourceLock.withLock { _ in try source.readPhoto(photo) } : nil
    let madeFrom = try keyedHash(photo, bytes: held, key: writer.hashKey)
    let entryKey = try cache.map { try self.cacheKey(photo, bytes: held, in: $0) }
    // With AVIF, an entry holds the WebP renditions, then their AVIF twins.
    if let cache, let entryKey, let stored = cache.read(entryKey),
      settings.avif == nil || stored.count % 2 == 0
    {
      let key = renditionKey(photo, name: name)
      sources.withLock { $0[key] = madeFrom }
      let webp = settings.avif == nil ? stored[...] : stored.prefix(stored.count / 2)
      let renditions = webp.map {
        PublishedPhoto.Rendition(
          path: Self.renditionPath(key, $0.nameWidth), width: $0.width, height: $0.height)
      }
      for (rendition, entry) in zip(renditions, webp) {
        try writer.add(rendition.path, bytes: entry.bytes)
      }
      var avif: [String] = []
      for entry in stored.dropFirst(webp.count) {
        let path = Self.renditionPath(key, entry.nameWidth, avif: true)
        try writer.add(path, bytes: entry.bytes)
        avif.append(path)
      }
      photosFromCache.add(1, ordering: .relaxed)
      return .success(PublishedPhoto(renditions: renditions, avif: avif))
    }
    let loader: tpv_format
    let reader: PhotoBytes
    if photo.format == .bmp {
      do {
        (loader, reader) = try bmpAsPPM(photo)
      } catch let failure as Vips.Failure {
        return .failure(failure)
      }
    } else if let format = Vips.loader(photo.format) {
      loader = format
      reader = held.map { PhotoBytes($0) } ?? streamed(photo)
    } else {
      return .failure(
        Vips.Failure(
          reason:
            "\(photo.format.rawValue.uppercased()) cannot be decoded without ImageMagick, "
            + "which taskpress does not use; store the photo as JPEG or PNG"))
    }
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
      let key = renditionKey(photo, name: name)
      let widths = settings.renditionWidths(forShownWidth: header.shownWidth)
      photosDecoded.add(1, ordering: .relaxed)
      let images = try Vips.renditions(
        loader, reader, widths: widths, quality: settings.quality, jpeg: false,
        keepMetadata: settings.keepMetadata, avif: settings.avif)
      var made: [(PublishedPhoto.Rendition, [UInt8])] = []
      var stored: [PhotoCache.Rendition] = []
      for (width, image) in zip(widths, images.prefix(widths.count)) {
        var encoded = image.bytes
        if !settings.keepMetadata {
          guard case .stripped(let stripped) = LosslessStrip.webp(encoded) else {
            return .failure(Vips.Failure(reason: "libvips wrote a WebP taskpress cannot read"))
          }
          encoded = stripped
        }
        stored.append(
          .init(nameWidth: width, width: image.width, height: image.height, bytes: encoded))
        made.append(
          (
            .init(path: Self.renditionPath(key, width), width: image.width, height: image.height),
            encoded
          ))
      }
      // The AVIF twins: their metadata left out by libvips (`strip`, and the fields removed
      // before encoding), as `PhotoTests` checks with exiftool.
      var avif: [(path: String, bytes: [UInt8])] = []
      for (width, image) in zip(widths, images.dropFirst(widths.count)) {
        avif.append((Self.renditionPath(key, width, avif: true), image.bytes))
        stored.append(
          .init(nameWidth: width, width: image.width, height: image.height, bytes: image.bytes))
      }
      // Only once every rendition is made: a photo that fails leaves no file behind.
      for (rendition, bytes) in made {
        try writer.add(rendition.path, bytes: bytes)
      }
      for (path, bytes) in avif {
        try writer.add(path, bytes: bytes)
      }
      if let cache, let entryKey { cache.store(stored, key: entryKey) }
      sources.withLock { $0[key] = madeFrom }
      return .success(PublishedPhoto(renditions: made.map(\.0), avif: avif.map(\.path)))
    } catch let failure as Vips.Failure {
      return .failure(failure)
    }
  }

  /// A JPEG, PNG or WebP no wider than `settings.asStoredWidth`, or a JPEG, PNG, WebP or GIF of
  /// at most `PhotoSettings.asStoredBytes` whatever its width, upright as stored: published as
  /// stored, without its metadata. Nil when the photo must be decoded instead.
  private func publishAsStored(
    _ photo: PhotoInfo, name: String, bytes: [UInt8], hash: ContentHash
  ) throws -> Result<PublishedPhoto, Vips.Failure>? {
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
      let path = "photos/\(name)\(suffix).\(photo.format.fileExtension)"
      try writer.add(path, bytes: published, hash: nil)
      return .success(
        PublishedPhoto(renditions: [.init(path: path, width: width, height: height)]))
    }
  }

  /// A BMP photo as a PPM, made row by row from the database as libvips reads it.
  private func bmpAsPPM(_ photo: PhotoInfo) throws -> (tpv_format, PhotoBytes) {
    let head = try sourceLock.withLock { _ in
      try source.readPhoto(photo, offset: 0, count: BMPAsPPM.headerBytes)
    }
    let ppm = try BMPAsPPM(head: head, byteCount: Int(photo.byteCount)) { [self] offset, count in
      try sourceLock.withLock { _ in try source.readPhoto(photo, offset: offset, count: count) }
    }
    return (TPV_PPM, PhotoBytes(count: ppm.count, read: ppm.read))
  }

  /// Bytes of a streamed photo read from the database at once (see `streamed`).
  static let streamWindow = 1 << 20

  /// The photo read from the database piece by piece as libvips asks for it, a window of
  /// `streamWindow` bytes at a time. libvips asks for 4 KB at a time, and each read of a blob at
  /// an offset walks SQLite's chain of overflow pages from the start (the blob handle is moved
  /// between photos, which drops its cache of the chain): read 4 KB at a time, a 5.7 MB photo
  /// took some 130,000 page reads (`pread`) where a window takes a few thousand.
  private func streamed(_ photo: PhotoInfo) -> PhotoBytes {
    var window: [UInt8] = []
    var windowStart = 0
    // Every read is filled whole (but at the photo's end), as a read of the blob is: some
    // decoders (libtiff) take a short read for a damaged file.
    return PhotoBytes(count: Int(photo.byteCount)) { [self] offset, buffer in
      var done = 0
      while done < buffer.count {
        let position = offset + done
        if position < windowStart || position >= windowStart + window.count {
          window = try sourceLock.withLock { _ in
            try source.readPhoto(
              photo, offset: position, count: max(buffer.count - done, Self.streamWindow))
          }
          windowStart = position
        }
        let length = min(buffer.count - done, window.count - (position - windowStart))
        guard length > 0 else { break }
        window.withUnsafeBytes { bytes in
          let from = position - windowStart
          UnsafeMutableRawBufferPointer(rebasing: buffer[done..<done + length]).copyMemory(
            from: UnsafeRawBufferPointer(rebasing: bytes[from..<from + length]))
        }
        done += length
      }
      return done
    }
  }

  // MARK: - Renditions already in the site

  /// The renditions the previous build wrote for the photo named `name`, when they were made
  /// from this photo's bytes (the keyed hash it recorded, `RenditionSources`) and every one is
  /// still there untouched: added to the site as they are, their sizes read from their headers,
  /// nothing decoded. Nil when the photo must be decoded. `bytes` are the photo's, when held.
  private func previousRenditions(
    of photo: PhotoInfo, name: String, bytes: [UInt8]?
  ) throws -> PublishedPhoto? {
    let key = renditionKey(photo, name: name)
    guard let previous = previousRenditions[key], let recorded = previousSources[key],
      try keyedHash(photo, bytes: bytes, key: writer.hashKey) == recorded
    else { return nil }
    var kept: [(PublishedPhoto.Rendition, [UInt8])] = []
    var avif: [(path: String, bytes: [UInt8])] = []
    for (path, _) in previous {
      guard let entry = writer.previous.files[path], let bytes = readSite(path, entry) else {
        return nil
      }
      if path.hasSuffix(".avif") {
        avif.append((path, bytes))
        continue
      }
      guard case .image(_, let width?, let height?) = ImageSniffer.sniff(bytes, isComplete: true)
      else { return nil }
      kept.append((.init(path: path, width: width, height: height), bytes))
    }
    // Every WebP with its AVIF twin when AVIF is asked for (the key says so), none otherwise.
    guard avif.count == (settings.avif == nil ? 0 : kept.count) else { return nil }
    for (rendition, bytes) in kept {
      try writer.add(rendition.path, bytes: bytes)
    }
    for (path, bytes) in avif {
      try writer.add(path, bytes: bytes)
    }
    sources.withLock { $0[key] = recorded }
    return PublishedPhoto(renditions: kept.map(\.0), avif: avif.map(\.path))
  }

  /// The bytes of a file the previous build wrote, when its size and modification time are
  /// those it recorded.
  private func readSite(_ path: String, _ entry: Manifest.Entry) -> [UInt8]? {
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
      renditions: published.renditions, avif: published.avif)
  }
}
