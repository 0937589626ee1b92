extension Build {
  /// Photos up to this size are read once into memory, hashed and staged from there; larger ones
  /// are streamed twice (once to name them, once to write them), so memory never grows with a
  /// photo's size.
  static let photoBufferLimit: Int64 = 1 << 20

  /// Stages the photos of `possessions`, each file once; returns the photo files by possession
  /// id. Stops, with an empty result, when `stopping` says so (checked before each photo).
  static func exportPhotos(
    _ possessions: [Possession], from source: PossessionSource, to writer: OutputWriter,
    stopping: () -> Bool
  ) throws -> [Int64: PageContext.PhotoFile] {
    var files: [Int64: PageContext.PhotoFile] = [:]
    var staged: Set<String> = []
    var large: [String: PhotoInfo] = [:]
    for possession in possessions {
      guard let photo = possession.photo else { continue }
      if stopping() { return [:] }
      let path: String
      if photo.byteCount <= photoBufferLimit {
        let bytes = try source.readPhoto(photo)
        let hash = ContentHash(of: bytes)
        path = "photos/\(hash.hex).\(photo.format.fileExtension)"
        if staged.insert(path).inserted {
          try writer.add(path, bytes: bytes, hash: hash)
        }
      } else {
        var hasher = ContentHasher()
        try source.streamPhoto(photo) { hasher.update($0) }
        path = "photos/\(hasher.finalize().hex).\(photo.format.fileExtension)"
        if !staged.contains(path), large[path] == nil {
          large[path] = photo
        }
      }
      files[possession.id] = PageContext.PhotoFile(
        path: path, width: photo.width, height: photo.height)
    }
    for (path, photo) in large.sorted(by: { $0.key < $1.key }) where !staged.contains(path) {
      try writer.add(path) { sink in
        try source.streamPhoto(photo) { try sink.write($0) }
      }
    }
    return files
  }
}
