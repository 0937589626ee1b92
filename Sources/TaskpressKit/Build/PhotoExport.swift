extension Build {
  /// Photos up to this size are read once into memory, hashed and staged from there; larger ones
  /// are streamed twice (once to name them, once to write them), so memory never grows with a
  /// photo's size.
  static let photoBufferLimit: Int64 = 1 << 20

  /// Stages the photos of `possessions`, each file once; returns the photo files by possession
  /// id. Stops, with an empty result, when `stopping` says so (checked before each photo).
  ///
  /// A photo is named by its content hash. Two photos are one file only when their bytes are
  /// the same: a photo whose hash names a file of other bytes (a collision, which a crafted
  /// photo can make) is named `HASH-2`, `HASH-3`, ... instead, so no page shows another row's
  /// photo.
  static func exportPhotos(
    _ possessions: [Possession], from source: PossessionSource, to writer: OutputWriter,
    stopping: () -> Bool
  ) throws -> [Int64: PageContext.PhotoFile] {
    var files: [Int64: PageContext.PhotoFile] = [:]
    /// The photo each path was made for.
    var owners: [String: PhotoInfo] = [:]
    var large: [(path: String, photo: PhotoInfo)] = []

    /// The path of `photo`, whose hash is `hash` (and whose bytes are `bytes`, when they are in
    /// memory), and whether it is new.
    func path(of photo: PhotoInfo, hash: ContentHash, bytes: [UInt8]?) throws -> (String, Bool) {
      let base = "photos/\(hash.hex)"
      let suffix = "." + photo.format.fileExtension
      var candidate = base + suffix
      var number = 1
      while let owner = owners[candidate] {
        if try same(owner, photo, bytes: bytes) { return (candidate, false) }
        number += 1
        candidate = "\(base)-\(number)\(suffix)"
      }
      owners[candidate] = photo
      return (candidate, true)
    }
    /// Whether two photos have the same bytes (read again: a hash matches rarely).
    func same(_ owner: PhotoInfo, _ photo: PhotoInfo, bytes: [UInt8]?) throws -> Bool {
      guard owner.row != photo.row else { return true }
      guard owner.byteCount == photo.byteCount else { return false }
      return try source.readPhoto(owner) == (bytes ?? source.readPhoto(photo))
    }

    for possession in possessions {
      guard let photo = possession.photo else { continue }
      if stopping() { return [:] }
      let name: String
      if photo.byteCount <= photoBufferLimit {
        let bytes = try source.readPhoto(photo)
        let hash = ContentHash(of: bytes)
        let (path, isNew) = try path(of: photo, hash: hash, bytes: bytes)
        if isNew { try writer.add(path, bytes: bytes, hash: hash) }
        name = path
      } else {
        var hasher = ContentHasher()
        try source.streamPhoto(photo) { hasher.update($0) }
        let (path, isNew) = try path(of: photo, hash: hasher.finalize(), bytes: nil)
        if isNew { large.append((path, photo)) }
        name = path
      }
      files[possession.id] = PageContext.PhotoFile(
        path: name, width: photo.width, height: photo.height)
    }
    for (path, photo) in large.sorted(by: { $0.path < $1.path }) {
      try writer.add(path) { sink in
        try source.streamPhoto(photo) { try sink.write($0) }
      }
    }
    return files
  }
}
