import Foundation
@_spi(Testing) import SQLite
import Synchronization
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#endif

/// A rebuild whose possessions database and photo settings are those of the last build
/// publishes the photos that build recorded (`PhotoRecord`, `RenderPaths.recordedPhotos`)
/// without reading one, and gives the site a build that reads them gives.
@Suite struct RecordedPhotosTests {
  /// The fixture databases of to-dos and photos (good, damaged and hostile ones), last written
  /// ten seconds ago (a database written within a tick of a build is read again).
  static func databases(_ folder: FixtureFolder) throws -> BuildOptions {
    var options = BuildOptions()
    options.todos = try folder.database("todo-rules")
    options.possessions = try folder.database("photos")
    try Self.age(options.possessions)
    options.output = folder.url.appending(path: "site").path
    options.jobs = 2
    options.date = "2026-12-01"
    return options
  }

  /// Sets the file's times ten seconds back.
  static func age(_ path: String?) throws {
    var earlier = timespec()
    clock_gettime(CLOCK_REALTIME, &earlier)
    earlier.tv_sec -= 10
    try SourcesChangeTests.restore([earlier, earlier], of: try #require(path))
  }

  struct Built {
    var summary: BuildSummary
    var warnings: [String]
    /// How many times the photo publisher looked at a photo.
    var photosLookedAt: Int
  }

  static func build(_ options: BuildOptions) throws -> Built {
    let warnings = Mutex<[String]>([])
    let looked = Atomic(0)
    let summary = try Build.run(
      options, interrupt: InterruptFlag(),
      reporter: .init(warning: { w in warnings.withLock { $0.append("\(w)") } }),
      commitStepLimit: nil,
      probe: Build.Probe(beforePhoto: { _ in looked.add(1, ordering: .relaxed) }))
    return Built(
      summary: summary, warnings: warnings.withLock { $0 },
      photosLookedAt: looked.load(ordering: .relaxed))
  }

  /// Builds `options` cold, into a new folder, with `previous` as the site it replaces and no
  /// photo record; expects the same files as in `options.output`.
  static func expectSameAsCold(
    _ options: BuildOptions, previous: String, _ folder: FixtureFolder, _ name: String
  ) throws {
    var cold = options
    cold.output = folder.url.appending(path: "cold-\(UUID().uuidString)").path
    cold.previous = previous
    cold.renderPaths = RenderPaths.all.subtracting(.recordedPhotos)
    let built = try build(cold)
    #expect(built.photosLookedAt > 0)
    let expected = Tree.contents(cold.output)
    let actual = Tree.contents(options.output)
    let differences = DeterminismTests.differences(expected, actual)
    #expect(
      differences.isEmpty,
      "\(name): differs from a build that reads the photos in \(differences.count) files: \(differences.prefix(8))"
    )
  }

  /// Builds the fixtures, keeps a copy of the site, applies `change` to the inputs and
  /// rebuilds; returns the first build, the rebuild and the options of the rebuild.
  static func rebuild(
    _ folder: FixtureFolder, _ change: (inout BuildOptions) throws -> Void
  ) throws -> (first: Built, rebuild: Built, options: BuildOptions, before: String) {
    var options = try databases(folder)
    let first = try build(options)
    let before = folder.url.appending(path: "before").path
    try FileManager.default.copyItem(atPath: options.output, toPath: before)
    try change(&options)
    return (first, try build(options), options, before)
  }

  @Test("a rebuild after a to-do change reads no photo, warns as before and gives the same site")
  func toDoChange() throws {
    let folder = try FixtureFolder()
    let (first, rebuild, options, before) = try Self.rebuild(folder) { options in
      try Database.openWritableForTesting(at: try #require(options.todos)).execute(
        "UPDATE todo SET text = 'Changed' WHERE pk = 3")
    }
    #expect(first.photosLookedAt > 0)
    #expect(first.warnings.contains { $0.contains("photo not published") })
    #expect(rebuild.summary.sourcesRead)
    #expect(rebuild.photosLookedAt == 0)
    #expect(rebuild.warnings == first.warnings)
    #expect(rebuild.summary.photos == first.summary.photos)
    #expect(rebuild.summary.written > 0)
    try Self.expectSameAsCold(options, previous: before, folder, "a to-do change")

    // With --strict, the recorded photos' warnings fail the build as the first build's did.
    var strict = options
    strict.strict = true
    try Database.openWritableForTesting(at: try #require(options.todos)).execute(
      "UPDATE todo SET text = 'Again' WHERE pk = 3")
    let site = Tree.contents(options.output)
    #expect(
      throws: BuildError(
        "\(first.warnings.count) warnings and --strict is set; the site was not changed")
    ) {
      _ = try Self.build(strict)
    }
    #expect(Tree.contents(options.output) == site)
  }

  @Test(
    "photos are read again when a photo file was changed by hand, the possessions changed, or the photo settings did",
    arguments: [
      "a photo file edited", "a photo file deleted", "a photo file edited and a to-do changed",
      "a photo file deleted and a to-do changed", "a possession", "the settings",
      "another libvips",
    ])
  func readAgain(change: String) throws {
    let folder = try FixtureFolder()
    let (first, rebuild, options, before) = try Self.rebuild(folder) { options in
      let photos = options.output + "/photos"
      let files = try FileManager.default.contentsOfDirectory(atPath: photos).sorted()
      let file = photos + "/" + (try #require(files.first))
      // With a to-do changed, the rebuild reads its sources at once and checks the last
      // build's files while it does (`RenderPaths.earlyFileCheck`); the recorded photos'
      // files are looked at on their own either way, and the changed one is found.
      if change.hasSuffix("and a to-do changed") {
        try Database.openWritableForTesting(at: try #require(options.todos)).execute(
          "UPDATE todo SET text = 'Changed' WHERE pk = 3")
      }
      switch change {
      case "a photo file edited", "a photo file edited and a to-do changed":
        var bytes = try #require(FileManager.default.contents(atPath: file))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(filePath: file))
      case "a photo file deleted", "a photo file deleted and a to-do changed":
        try FileManager.default.removeItem(atPath: file)
      case "a possession":
        try Database.openWritableForTesting(at: try #require(options.possessions)).execute(
          "UPDATE possessions SET name = 'Renamed' WHERE id = 1")
        // Its times as old as before: its header and size still tell the change.
        try Self.age(options.possessions)
      case "another libvips":
        // The record of renditions made by another version of libvips.
        let record =
          options.output.replacingOccurrences(of: "/site", with: "/.site.taskpress")
          + "/photos"
        let text = try String(contentsOfFile: record, encoding: .utf8)
        let version = "vips \(Vips.version)\n"
        #expect(text.contains(version))
        try text.replacingOccurrences(of: version, with: "vips 0.0.1\n").write(
          toFile: record, atomically: true, encoding: .utf8)
        // And a to-do changed, so that the rebuild is not skipped as unchanged.
        try Database.openWritableForTesting(at: try #require(options.todos)).execute(
          "UPDATE todo SET text = 'Changed' WHERE pk = 3")
      default:
        options.keepPhotoMetadata = true
      }
    }
    #expect(first.photosLookedAt > 0)
    #expect(rebuild.photosLookedAt > 0, "\(change)")
    #expect(rebuild.warnings == first.warnings)
    try Self.expectSameAsCold(options, previous: before, folder, change)
  }

  @Test("without the recorded photos (no-recorded-photos) a rebuild reads them, to the same site")
  func plainTwin() throws {
    var sites: [[String: [UInt8]]] = []
    for paths in [RenderPaths.all, RenderPaths.all.subtracting(.recordedPhotos)] {
      let folder = try FixtureFolder()
      let (_, rebuild, options, _) = try Self.rebuild(folder) { options in
        options.renderPaths = paths
        try Database.openWritableForTesting(at: try #require(options.todos)).execute(
          "UPDATE todo SET text = 'Changed' WHERE pk = 3")
      }
      #expect((rebuild.photosLookedAt == 0) == paths.contains(.recordedPhotos))
      sites.append(Tree.contents(options.output))
    }
    let differences = DeterminismTests.differences(sites[0], sites[1])
    #expect(differences.isEmpty, "\(differences.prefix(8))")
  }

  @Test("the inputs key changes with every option that reaches the site")
  func inputsKeyCoverage() throws {
    let mutations: [String: (inout BuildOptions) -> Void] = [
      "baseURL": { $0.baseURL = "https://example.org/" },
      "locale": { $0.locale = .ja },
      "pageSize": { $0.pageSize = 3 },
      "boardLimit": { $0.boardLimit = 7 },
      "galleryPageSize": { $0.galleryPageSize = 3 },
      "prettyURLs": { $0.prettyURLs = true },
      "title": { $0.title = "Other" },
      "dataCopies": { $0.dataCopies = [.todos] },
      "noindex": { $0.noindex = true },
      "search": { $0.search = false },
      "csvByteOrderMark": { $0.csvByteOrderMark = true },
      "maxPhotoPixels": { $0.maxPhotoPixels = 1000 },
      "keepPhotoMetadata": { $0.keepPhotoMetadata = true },
      "mapping": { $0.mapping.possessions.table = "things" },
      "photoFormats": { $0.photoFormats = [.webp, .avif] },
      "markdown": { $0.markdown = [.todoText] },
    ]
    // The fast paths give the same bytes; the templates are in the key as the theme's files.
    #expect(
      Set(mutations.keys)
        == PageFingerprints.optionsShown.subtracting(["renderPaths", "templates"])
    )
    var base = BuildOptions()
    base.possessions = "/nonexistent/possessions.sqlite"
    let key = Build.inputsKey(base, theme: .builtIn, sourceDateEpoch: nil, key: .test)
    #expect(Build.inputsKey(base, theme: .builtIn, sourceDateEpoch: nil, key: .test) == key)
    for (name, mutate) in mutations {
      var options = base
      mutate(&options)
      #expect(
        Build.inputsKey(options, theme: .builtIn, sourceDateEpoch: nil, key: .test) != key,
        "\(name)")
    }
  }

  @Test(
    "a record reads back as written; one cut short or naming a file outside photos/ is not read")
  func recordFormat() throws {
    let record = PhotoRecord(
      key: "0123456789abcdef", vipsVersion: "8.14.1",
      photos: [
        7: PublishedPhoto(renditions: [.init(path: "photos/a1.jpg", width: 320, height: 240)]),
        -2: PublishedPhoto(renditions: [
          .init(path: "photos/b2-240w.webp", width: 240, height: 180),
          .init(path: "photos/b2-640w.webp", width: 640, height: 480),
        ]),
      ],
      warnings: [
        BuildWarning(
          file: "p.sqlite", location: "possessions id=3", message: "photo not\tpublished"),
        BuildWarning(file: "p.sqlite", location: nil, message: "other"),
      ])
    let bytes = record.bytes
    #expect(PhotoRecord(bytes: bytes) == record)
    var asStored = record
    asStored.vipsVersion = nil
    #expect(PhotoRecord(bytes: asStored.bytes) == asStored)
    #expect(record.paths == ["photos/a1.jpg", "photos/b2-240w.webp", "photos/b2-640w.webp"])
    // A file two possessions share is kept once.
    var sharing = record
    let shared = record.photos[7]
    #expect(shared != nil)
    sharing.photos[9] = shared
    #expect(sharing.paths == ["photos/a1.jpg", "photos/b2-240w.webp", "photos/b2-640w.webp"])
    for count in 0..<bytes.count {
      #expect(PhotoRecord(bytes: Array(bytes.prefix(count))) == nil, "cut at \(count)")
    }
    for (from, to) in [
      ("photos/a1.jpg", "photos/../a1.jpg"), ("photos/a1.jpg", "photos/a//../../a1.jpg"),
      ("photos/a1.jpg", "site/a1.jpg"),
      ("taskpress-photos 1", "taskpress-photos 2"), (" 320 240", " 320 -240"),
      ("vips 8.14.1\n", ""),
    ] {
      let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: from, with: to)
      #expect(PhotoRecord(bytes: Array(text.utf8)) == nil, "\(to)")
    }
    // A name that only starts with two dots is no way out of `photos/`.
    let dotted = String(decoding: bytes, as: UTF8.self).replacingOccurrences(
      of: "photos/a1.jpg", with: "photos/..a1.jpg")
    #expect(PhotoRecord(bytes: Array(dotted.utf8))?.paths.contains("photos/..a1.jpg") == true)
  }
}
