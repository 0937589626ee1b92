import Foundation
@_spi(Testing) import SQLite
import Synchronization
import Testing

@testable import TaskpressKit

/// The photos' work handed out in pieces that the page threads take (`RenderPaths
/// .sharedPhotoWork`) gives the site and the warnings of the photo thread publishing them on
/// its own, with the same names: the first of two photos whose hashes collide, in the
/// possessions' order, keeps the plain name, however the pieces were spread over the threads.
@Suite struct SharedPhotoWorkTests {
  /// The photo fixtures (good, damaged and hostile ones, some decoded, some published as
  /// stored) eight times over in varied orders, two photos whose hashes collide at ids far
  /// apart (in different pieces), and the to-dos whose pages the page threads render.
  static func options(_ fixtures: FixtureFolder) throws -> (BuildOptions, first: [UInt8]) {
    var jpeg: [UInt8] = []
    let photos = try fixtures.database("photos")
    try Database(path: photos).prepare("SELECT photo FROM possessions WHERE id = 2")
      .forEachRow { row in jpeg = row.bytes(at: 0) ?? [] }
    let app0: [UInt8] = [0xFF, 0xE0, 0x00, 2 + 90] + [UInt8](repeating: 0x41, count: 90)
    let (first, second) = PhotoIdentityTests.collision(
      [0xFF, 0xD8] + app0 + jpeg.dropFirst(2), at: 32)
    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }
    let sql =
      try String(
        contentsOf: FixtureFolder.fixtures.appending(path: "photos.sql"), encoding: .utf8)
        + """

        INSERT INTO possessions(name, description, photo)
          SELECT name || ' again', description, photo FROM possessions ORDER BY id DESC;
        INSERT INTO possessions(name, description, photo)
          SELECT name || ' once more', description, photo FROM possessions ORDER BY length(photo);
        INSERT INTO possessions VALUES (1000, 'collides, first seen', '', X'\(hex(second))');
        INSERT INTO possessions(name, description, photo)
          SELECT name || ' and again', description, photo FROM possessions ORDER BY name;
        INSERT INTO possessions VALUES (3000, 'collides, seen again', '', X'\(hex(second))');
        INSERT INTO possessions VALUES (5000, 'collides, later', '', X'\(hex(first))');
        INSERT INTO possessions VALUES (5001, 'collides, later again', '', X'\(hex(first))');
        """
    var options = BuildOptions()
    options.todos = try fixtures.database("todo-rules")
    options.possessions = try fixtures.database("many-photos", sql: sql)
    options.date = "2026-12-01"
    return (options, first)
  }

  static func build(_ options: BuildOptions) throws -> [String] {
    let warnings = Mutex<[String]>([])
    _ = try Build.run(
      options, interrupt: InterruptFlag(),
      reporter: .init(warning: { w in warnings.withLock { $0.append("\(w)") } }))
    return warnings.withLock { $0 }
  }

  @Test("shared among the threads or on a thread of their own, the photos are the same files")
  func sameSite() throws {
    let fixtures = try FixtureFolder()
    let (options, first) = try Self.options(fixtures)
    let configurations: [(RenderPaths, Int)] = [
      (RenderPaths.all.subtracting(.sharedPhotoWork), 2), (.all, 1), (.all, 2), (.all, 4),
      (.reference, 1),
    ]
    var expected: (files: [String: [UInt8]], warnings: [String])?
    for (index, (paths, jobs)) in configurations.enumerated() {
      var options = options
      options.renderPaths = paths
      options.jobs = jobs
      options.output = fixtures.url.appending(path: "site-\(index)").path
      let warnings = try Self.build(options)
      let files = Tree.contents(options.output)
      guard let expected else {
        #expect(files.keys.contains { $0.hasPrefix("possessions/") })
        #expect(!warnings.isEmpty, "the damaged photos are warned about")
        // The photo first seen keeps the plain name; the other gets `-2`.
        let hash = ContentHash(of: first).hex
        #expect(files["photos/\(hash).jpg"] != nil)
        #expect(files["photos/\(hash)-2.jpg"] != nil)
        let page = String(decoding: files["possessions/5000.html"] ?? [], as: UTF8.self)
        #expect(page.contains("../photos/\(hash)-2.jpg"))
        expected = (files, warnings)
        continue
      }
      let differences = DeterminismTests.differences(expected.files, files)
      #expect(
        differences.isEmpty,
        "\(paths), \(jobs) jobs: \(differences.count) files differ: \(differences.prefix(8))")
      #expect(warnings == expected.warnings, "\(paths), \(jobs) jobs")
    }
  }
}
