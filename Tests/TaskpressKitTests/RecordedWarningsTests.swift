import Foundation
@_spi(Testing) import SQLite
import Synchronization
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#endif

/// A rebuild with nothing changed does not read the databases: it reports the warnings recorded
/// by the build that read them, and so behaves as that build did (`--strict` included).
@Suite struct RecordedWarningsTests {
  /// A to-do, a possession and a contact database, each with rows that warn, last written ten
  /// seconds ago (a database written within a tick of a build is read again).
  static func databases(_ folder: FixtureFolder) throws -> BuildOptions {
    var options = BuildOptions()
    options.todos = try folder.database("todo-rules")
    // The fixture's SVG stored as text would be a photo path, whose files a build must look
    // at each time (the rows are read again): here it is the BLOB it stands for.
    let svg = #"'<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>'"#
    let photos = try String(
      contentsOf: FixtureFolder.fixtures.appending(path: "photos.sql"), encoding: .utf8)
    #expect(photos.contains(svg))
    options.possessions = try folder.database(
      "photos", sql: photos.replacingOccurrences(of: svg, with: "CAST(\(svg) AS BLOB)"))
    options.contacts = try folder.database(
      "contacts",
      sql: """
        CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT, address TEXT, phone TEXT);
        INSERT INTO contacts VALUES (1, NULL, 'Main St 1', '555'), (2, 'Ann', NULL, NULL);
        """)
    var earlier = timespec()
    clock_gettime(CLOCK_REALTIME, &earlier)
    earlier.tv_sec -= 10
    for path in [options.todos, options.possessions, options.contacts].compactMap({ $0 }) {
      try SourcesChangeTests.restore([earlier, earlier], of: path)
    }
    options.output = folder.url.appending(path: "site").path
    return options
  }

  /// Builds `options`; returns the summary (or the error) and the warnings reported, in order.
  static func build(_ options: BuildOptions) -> (Result<BuildSummary, BuildError>, [String]) {
    let warnings = Mutex<[String]>([])
    let result: Result<BuildSummary, BuildError>
    do {
      result = .success(
        try Build.run(
          options, reporter: .init(warning: { w in warnings.withLock { $0.append("\(w)") } })))
    } catch let error as BuildError {
      result = .failure(error)
    } catch {
      Issue.record("unexpected error \(error)")
      result = .failure(BuildError("unexpected"))
    }
    return (result, warnings.withLock { $0 })
  }

  @Test("a rebuild with nothing changed reports the cold build's warnings without reading")
  func sameWarnings() throws {
    let folder = try FixtureFolder()
    let options = try Self.databases(folder)
    let (cold, coldWarnings) = Self.build(options)
    let coldSummary = try cold.get()
    #expect(coldSummary.sourcesRead)
    #expect(!coldWarnings.isEmpty)
    for path in [options.todos, options.possessions, options.contacts].compactMap({ $0 }) {
      #expect(coldWarnings.contains { $0.hasPrefix(path + ": ") }, "no warning about \(path)")
    }
    #expect(coldSummary.warnings == coldWarnings.count)

    let (again, againWarnings) = Self.build(options)
    let summary = try again.get()
    #expect(!summary.sourcesRead, "the rebuild read the databases again")
    #expect(summary.phases.isEmpty)
    #expect(againWarnings == coldWarnings)
    #expect(summary.warnings == coldSummary.warnings)
    #expect(summary.pages == coldSummary.pages)
    #expect(summary.photos == coldSummary.photos)
    #expect(summary.unchanged == coldSummary.written)

    // The plain twin reads the databases, and reports the same.
    var plain = options
    plain.renderPaths = .all.subtracting(.recordedWarnings)
    let (read, readWarnings) = Self.build(plain)
    #expect(try read.get().sourcesRead)
    #expect(try read.get().phases.isEmpty)
    #expect(readWarnings == coldWarnings)
  }

  @Test("--strict fails a rebuild with nothing changed as it fails the build that read the data")
  func strictFailsTheSame() throws {
    let folder = try FixtureFolder()
    var options = try Self.databases(folder)
    let (cold, coldWarnings) = Self.build(options)
    _ = try cold.get()
    options.strict = true
    let (again, againWarnings) = Self.build(options)
    var plain = options
    plain.renderPaths = .all.subtracting(.recordedWarnings)
    let (read, readWarnings) = Self.build(plain)
    var fresh = options
    fresh.output = folder.url.appending(path: "other-site").path
    let (first, firstWarnings) = Self.build(fresh)

    let message = "\(coldWarnings.count) warnings and --strict is set; the site was not changed"
    for result in [again, read, first] {
      #expect(throws: BuildError(message)) { try result.get() }
    }
    #expect(againWarnings == coldWarnings)
    #expect(readWarnings == coldWarnings)
    #expect(firstWarnings == coldWarnings)
    // Still nothing read: the strict rebuild used the record too.
    options.strict = false
    #expect(try !Self.build(options).0.get().sourcesRead)
  }

  @Test("a changed database is read again, and its new warnings reported")
  func changeIsRead() throws {
    let folder = try FixtureFolder()
    let options = try Self.databases(folder)
    let (_, coldWarnings) = Self.build(options)
    let path = try #require(options.todos)
    // A new warning, in a file whose size and times are put back as they were.
    let times = try SourcesChangeTests.times(path)
    let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
    do {
      let database = try Database.openWritableForTesting(at: path)
      try database.execute("UPDATE todo SET priority = 8 WHERE pk = 3")
    }
    try SourcesChangeTests.restore(times, of: path)
    #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == size)

    let (again, againWarnings) = Self.build(options)
    #expect(try again.get().sourcesRead)
    let added = "\(path): todo pk=3: priority 8 is not 1, 2 or 3"
    #expect(againWarnings.contains(added))
    #expect(againWarnings.count == coldWarnings.count + 1)
    // And the build after that reports the new warnings from the record.
    let (third, thirdWarnings) = Self.build(options)
    #expect(try !third.get().sourcesRead)
    #expect(thirdWarnings == againWarnings)
  }

  @Test("a database given by another path is read again: warnings name the file as given")
  func otherSpelling() throws {
    let folder = try FixtureFolder()
    var options = try Self.databases(folder)
    let (_, coldWarnings) = Self.build(options)
    let todos = try #require(options.todos)
    let url = URL(filePath: todos)
    options.todos =
      url.deletingLastPathComponent().path + "/./" + url.lastPathComponent
    let (again, againWarnings) = Self.build(options)
    #expect(try again.get().sourcesRead)
    #expect(againWarnings.contains { $0.hasPrefix(options.todos! + ": ") })
    #expect(againWarnings.count == coldWarnings.count)
  }

  @Test(
    "the record keeps every warning as it was",
    arguments: [
      BuildWarning(file: "todo.sqlite", location: "todo pk=1", message: "text is NULL"),
      BuildWarning(file: "a\tb\\c.sqlite", location: nil, message: "line\none\r\ntwo\\n"),
      BuildWarning(file: "\u{301}x", location: "-", message: "\n\u{301}é 牛乳"),
      BuildWarning(file: "", location: "", message: ""),
      BuildWarning(file: "+", location: "+", message: "\t"),
    ])
  func recordRoundTrip(warning: BuildWarning) throws {
    let record = InputsRecord(
      key: "abc", pages: 3, photos: 1, sourceWarnings: [warning, warning])
    let read = try #require(InputsRecord(record.text))
    #expect(read == record)
    // A record of an earlier version has no warnings; the rebuild then reads the databases.
    #expect(InputsRecord("abc\n3\n1\n")?.sourceWarnings == nil)
    #expect(InputsRecord("abc\n3\n1\nwarnings 2\nx\t-\ty\n")?.sourceWarnings == nil)
    #expect(InputsRecord("abc\n3\n1\nwarnings 1\nx\t-\ty\\q\n")?.sourceWarnings == nil)
    #expect(InputsRecord("abc\n3\n1\nwarnings 0\n")?.sourceWarnings == [])
  }
}
