extension Build {
  /// Photos up to this size are read whole into memory; larger ones are streamed.
  static let photoBufferLimit = Int64(PhotoPublisher.bufferLimit)

  /// Publishes the photos of `possessions` (see `PhotoPublisher`); returns the photo files by
  /// possession id, the warnings of the photos that could not be published, how many
  /// renditions were decoded and the record of the photos the renditions were made from
  /// (`RenditionSources`). Stops, with an empty result, when `stopping` says so.
  ///
  /// With `sharing` (`RenderPaths.sharedPhotoWork`), the work is handed out in pieces that the
  /// page threads take before their pages (`StagingState.helpWithPhotos`); else it is done
  /// here, the photos to decode on up to `jobs` threads.
  static func exportPhotos(
    _ possessions: [Possession], from source: PossessionSource, to writer: OutputWriter,
    settings: PhotoSettings, cache: PhotoCache? = nil, jobs: Int,
    sharing staging: StagingState? = nil, stopping: @escaping @Sendable () -> Bool
  ) throws -> (
    files: [Int64: PageContext.PhotoFile], warnings: [BuildWarning], decoded: Int,
    sources: RenditionSources
  ) {
    let publisher = PhotoPublisher(
      settings: settings, source: source, writer: writer, cache: cache)
    let published =
      try staging.map { staging in
        try publisher.publish(
          possessions, jobs: jobs,
          sharing: PhotoPublisher.SharedWork(
            add: { staging.addPhotoWork($0, first: $1) }, finish: { staging.finishPhotoWork() }),
          stopping: stopping)
      } ?? publisher.publish(possessions, jobs: jobs, stopping: stopping)
    let files = published.photos.compactMapValues(PageContext.PhotoFile.init)
    return (
      files, published.warnings, publisher.photosDecoded.load(ordering: .relaxed),
      publisher.renditionSources
    )
  }

  /// The photos the previous build recorded, each of their files kept as that build left it,
  /// when this build's photos are provably those: the recorded key is `key`, the possessions
  /// database was not written since `key` was taken (its rows are read), the renditions were
  /// made by this libvips (when there are any: libvips is loaded only then), the photo files the
  /// rows name are as they were found (`photoFiles`, a part of `key`), and every recorded
  /// file is as the writer left it. Nil, with nothing added, otherwise. The record is taken
  /// from `last`, the records the last build left (`LastBuild.records`).
  static func recordedPhotos(
    key: String?, last: LastRecords, options: BuildOptions, settings: PhotoSettings,
    photoFiles: String = "", writer: OutputWriter
  ) throws -> PhotoRecord? {
    guard options.renderPaths.contains(.recordedPhotos), let key,
      let record = last.photos(), record.key == key,
      photosKey(options, settings: settings, key: writer.hashKey).map({ $0 + photoFiles }) == key,
      record.vipsVersion.map({ $0 == Vips.version }) ?? true,
      try writer.keepAll(record.paths)
    else { return nil }
    return record
  }
}
