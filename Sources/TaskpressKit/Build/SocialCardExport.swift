extension Build {
  /// The state file that records the social card the last build published (tied to the
  /// manifest): the keyed hash of its SVG and the libvips version that rendered it.
  static let cardRecordName = "card"

  /// Whether a build of `options` publishes a social card: with `--base-url` and to-dos, where
  /// libvips can render an SVG; where it cannot, a warning, and no card and no `og:image`.
  /// (`svgUnavailable` says why libvips cannot render an SVG, or nil; asked only with
  /// `--base-url` and to-dos.)
  static func socialCard(
    _ options: BuildOptions, svgUnavailable: () -> String? = { Vips.svgUnavailable }
  ) -> (publishes: Bool, warnings: [BuildWarning]) {
    guard options.baseURL != nil, options.todos != nil else { return (false, []) }
    guard let reason = svgUnavailable() else { return (true, []) }
    return (
      false,
      [
        BuildWarning(
          file: "--base-url",
          message:
            "the social card (\(SocialCard.path)) cannot be rendered here (\(reason)); the pages "
            + "have no og:image (install libvips with its SVG loader, Debian's libvips42 and "
            + "librsvg2-2)")
      ]
    )
  }

  /// The absolute URL of the social card under `baseURL`.
  static func socialCardURL(baseURL: String) -> String {
    (baseURL.hasSuffix("/") ? baseURL : baseURL + "/") + SocialCard.path
  }

  /// What a record of the card says: the keyed hash of the SVG and the libvips version.
  static func cardRecordBytes(svgHash: KeyedHash, vipsVersion: String) -> [UInt8] {
    Array("taskpress-card 1\n\(svgHash.hex)\n\(vipsVersion)\n".utf8)
  }

  /// Adds `cards/summary.png`, the card of `summary`, to `writer`: the file the last build left,
  /// neither rendered nor read, when that build recorded the same SVG rendered by this libvips
  /// (in `recorded`, the records it left, given when the fast path is on) and the file is as it
  /// left it; else rendered from
  /// the SVG (and written only when its bytes changed). Returns the record to keep beside the
  /// manifest, and whether the card was rendered; a card libvips cannot render is a warning, and
  /// no card.
  static func stageSocialCard(
    _ summary: SocialCard.Summary, writer: OutputWriter, recorded: LastRecords?
  ) throws -> (record: [UInt8]?, rendered: Bool, warning: BuildWarning?) {
    let svg = Array(SocialCard.svg(summary).utf8)
    let record = cardRecordBytes(svgHash: writer.hashKey.hash(svg), vipsVersion: Vips.version)
    if let recorded, recorded.card() == record,
      try writer.keepAll([SocialCard.path])
    {
      return (record, false, nil)
    }
    do {
      let image = try Vips.png(fromSVG: svg)
      try writer.add(SocialCard.path, bytes: image.bytes)
      return (record, true, nil)
    } catch let failure as Vips.Failure {
      let warning = BuildWarning(
        file: SocialCard.path,
        message:
          "the social card could not be rendered (\(failure.reason)); the pages' og:image names "
          + "a file this build did not write: build again, or without --base-url to leave the "
          + "card out")
      return (nil, false, warning)
    }
  }
}
