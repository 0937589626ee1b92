import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressKit

/// Every fast path of page rendering against the plain path (DESIGN §6, "plain path first"):
/// the same inputs built with the reference renderer, with every fast path on one job and four,
/// and with each fast path off alone, give identical trees.
@Suite struct DifferentialTests {
  /// A way to build a site: which render paths, how many jobs.
  struct Configuration: CustomStringConvertible {
    var paths: RenderPaths
    var jobs: Int
    var description: String { "\(paths), \(jobs) job\(jobs == 1 ? "" : "s")" }
  }

  /// The reference first: every other build is compared with it.
  static let main: [Configuration] = [
    Configuration(paths: .reference, jobs: 1), Configuration(paths: .all, jobs: 1),
    Configuration(paths: .all, jobs: 4),
  ]
  /// `main`, and each fast path off alone.
  static let every: [Configuration] =
    main
    + RenderPaths.names.map { Configuration(paths: RenderPaths.all.subtracting($0.1), jobs: 2) }

  /// Builds `options` once for each configuration into folders of `folder`; expects every
  /// tree to be the first's, naming the files that differ; returns the first tree.
  @discardableResult
  static func expectSameSites(
    _ options: BuildOptions, in folder: TemporaryFolder, name: String,
    configurations: [Configuration] = every, sourceDateEpoch: String? = nil
  ) throws -> [String: [UInt8]] {
    var first: [String: [UInt8]]?
    for (index, configuration) in configurations.enumerated() {
      var options = options
      options.renderPaths = configuration.paths
      options.jobs = configuration.jobs
      options.output = folder.sub("\(name)-site-\(index)")
      _ = try Build.run(
        options, sourceDateEpoch: sourceDateEpoch, interrupt: InterruptFlag(),
        reporter: Build.Reporter { _ in })
      let files = Tree.contents(options.output)
      guard let reference = first else {
        first = files
        continue
      }
      let differences = DeterminismTests.differences(reference, files)
      #expect(
        differences.isEmpty,
        "\(name): \(configuration) differs from \(configurations[0]) in \(differences.count) files: \(differences.prefix(8)) \(firstDifference(reference, files, differences.first))"
      )
    }
    return first ?? [:]
  }

  /// The first bytes where `path` differs in two trees, for the message of a failing test.
  static func firstDifference(
    _ left: [String: [UInt8]], _ right: [String: [UInt8]], _ difference: String?
  ) -> String {
    guard let difference, let colon = difference.firstIndex(of: ":") else { return "" }
    let path = String(difference[..<colon])
    guard let one = left[path], let other = right[path] else { return "" }
    let start =
      (0..<min(one.count, other.count)).first { one[$0] != other[$0] }
      ?? min(one.count, other.count)
    func around(_ bytes: [UInt8]) -> String {
      String(decoding: bytes[max(0, start - 40)..<min(bytes.count, start + 40)], as: UTF8.self)
    }
    return "\n  first: …\(around(one))…\n  then:  …\(around(other))…"
  }

  /// Options reading the three databases made from `strings` (see `SiteSafetyTests.sql`).
  static func options(
    _ strings: [String], in folder: TemporaryFolder, name: String, templates: String? = nil
  ) throws -> BuildOptions {
    let sql = SiteSafetyTests.sql(strings)
    let data = folder.sub(name + "-data")
    try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
    var options = BuildOptions()
    options.todos = data + "/todo.sqlite"
    options.possessions = data + "/possessions.sqlite"
    options.contacts = data + "/contacts.sqlite"
    try Database.createForTesting(at: data + "/todo.sqlite", sql: sql.todos)
    try Database.createForTesting(at: data + "/possessions.sqlite", sql: sql.possessions)
    try Database.createForTesting(at: data + "/contacts.sqlite", sql: sql.contacts)
    options.baseURL = "https://example.org/tasks/"
    options.templates = templates
    return options
  }

  // MARK: - Inputs

  /// What Markdown reads apart from text, each at the start, in the middle and at the end of
  /// a value, and alone; with the hostile strings of the safety tests.
  static let hostile: [String] = {
    let marks = [
      "\u{FEFF}", "\u{0}", "\r", "\r\n", "\t", "===", "---", "#", ">", "1.", "1)", "*", "_", "[",
      "]", "<", "&", "&amp;", "&#65;", "&#x41;", "`", "\\", "  ", "~~~", "|", "!", "-", "+",
    ]
    var strings = SiteSafetyTests.hostile
    for mark in marks {
      strings += [mark, "\(mark)Buy milk", "Buy \(mark) milk", "Buy milk\(mark)"]
    }
    return strings
  }()

  /// `count` texts of up to 12 characters drawn from Markdown's special characters, letters,
  /// digits, spaces and line breaks, seeded; every 97th is a lone byte order mark.
  static func randomTexts(_ count: Int, seed: UInt64) -> [String] {
    let alphabet = Array("aZ9 \n\r\t*_`#>-=+.)([]!<&;\\|~:\"'/\u{FEFF}é日")
    var generator = SplitMix(seed: seed)
    return (0..<count).map { index in
      if index % 97 == 0 { return "\u{FEFF}" }
      let length = Int(generator.next() % 13)
      return String(
        (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }
  }

  /// A small seeded generator (SplitMix64), so the corpus is the same on every run.
  struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  /// A templates folder overriding every page kind with a template of `suffix` (`.md` or
  /// `.html`), each using a partial, and the to-do page a parent with blocks.
  static func customTemplates(_ suffix: String, in folder: TemporaryFolder) throws -> String {
    let path = folder.sub("templates" + suffix.replacingOccurrences(of: ".", with: "-"))
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let markdown = suffix == ".md"
    let files: [String: String] = [
      "row" + suffix: markdown
        ? "- [{{title}}]({{url}}) *{{text}}* {{priority.label}}\n"
        : "<li><a href=\"{{url}}\">{{title}}</a> {{text}}</li>\n",
      "frame" + suffix: markdown
        ? "# {{$heading}}Tasks{{/heading}}\n\n{{$body}}{{/body}}\n"
        : "<h1>{{$heading}}Tasks{{/heading}}</h1>\n{{$body}}{{/body}}\n",
      "index" + suffix: "{{<frame}}{{$body}}{{#todos}}{{> row}}{{/todos}}{{/body}}{{/frame}}",
      "board" + suffix:
        "{{#columns}}\n{{label}} {{count}}\n\n{{#todos}}{{> row}}{{/todos}}\n{{/columns}}",
      "todo" + suffix: markdown
        ? "{{<frame}}{{$heading}}{{todo.title}}{{/heading}}{{$body}}{{todo.text}}\n\n> {{todo.status}} _{{todo.pk}}_\n{{#previous}}{{> row}}{{/previous}}{{#next}}{{> row}}{{/next}}{{/body}}{{/frame}}"
        : "{{<frame}}{{$heading}}{{todo.title}}{{/heading}}{{$body}}<p>{{todo.text}}</p>{{#next}}{{> row}}{{/next}}{{/body}}{{/frame}}",
      "possessions" + suffix: "{{#possessions}}{{> row}}{{/possessions}}",
      "possession" + suffix: markdown
        ? "{{possession.name}}\n---\n\n{{possession.description}}\n\n{{{possession.description}}}\n"
        : "<h1>{{possession.name}}</h1><p>{{possession.description}}</p>",
      "contacts" + suffix: "{{#contacts}}{{> row}}{{/contacts}}",
      "contact" + suffix: markdown
        ? "1. {{contact.name}}\n2. {{contact.address}}\n3. {{contact.phone}}\n"
        : "<ol><li>{{contact.name}}<li>{{contact.address}}<li>{{contact.phone}}</ol>",
      "404" + suffix: "{{labels.notFound}} {{site.title}}",
    ]
    for (name, text) in files {
      #expect(FileManager.default.createFile(atPath: path + "/" + name, contents: Data(text.utf8)))
    }
    // The theme's own bodies have the other extension: the override must be the one used.
    return path
  }

  // MARK: - Tests

  @Test("the demo data: the reference renderer, 1 job, 4 jobs and each fast path off agree")
  func demo() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let demo = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appending(path: "Demo")
    var options = BuildOptions()
    for (source, keyPath) in [
      ("todos", \BuildOptions.todos), ("possessions", \.possessions), ("contacts", \.contacts),
    ] {
      let sql = try String(contentsOf: demo.appending(path: "\(source).sql"), encoding: .utf8)
      let path = folder.sub("\(source).sqlite")
      try Database.createForTesting(at: path, sql: sql)
      options[keyPath: keyPath] = path
    }
    let site = try Self.expectSameSites(options, in: folder, name: "demo")
    #expect(site.keys.filter { $0.hasPrefix("todos/") }.count > 20)
    options.prettyURLs = true
    options.pageSize = 3
    // Three pages of the gallery's 8 possessions.
    options.galleryPageSize = 3
    options.baseURL = "https://example.org/r/"
    try Self.expectSameSites(options, in: folder, name: "demo-pretty")
  }

  @Test("the six sample databases of the tutorial app")
  func samples() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let samples = SampleDatabases.folder
    let names = try FileManager.default.contentsOfDirectory(atPath: samples.path).sorted()
    #expect(names.count == 6)
    for (index, name) in names.enumerated() {
      var options = BuildOptions()
      options.todos = samples.appending(path: name).path
      let site = try Self.expectSameSites(options, in: folder, name: "sample-\(index)")
      #expect(site["index.html"] != nil, "\(name)")
    }
  }

  @Test("hostile strings, with Markdown's special characters at the start, middle and end")
  func hostileStrings() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let options = try Self.options(Self.hostile, in: folder, name: "hostile")
    let site = try Self.expectSameSites(options, in: folder, name: "hostile")
    #expect(site.count > 3 * Self.hostile.count)
    // More possessions than a page of the gallery holds.
    #expect(site["possessions/page/2.html"] != nil)
  }

  @Test("due dates of hostile text, dates and numbers, some overdue: every path agrees")
  func dueDates() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let dues = Self.hostile.map(SiteSafetyTests.literal)
    let values = dues + ["'2008-07-24'", "'2008-07-25T23:59:59Z'", "1216990000", "NULL"]
    var sql =
      "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete, due);\n"
    for (row, due) in values.enumerated() {
      sql +=
        "INSERT INTO todo VALUES (\(row + 1), 'Buy milk \(row)', \(row % 3 + 1), \(row % 2), \(due));\n"
    }
    try Database.createForTesting(at: folder.sub("due.sqlite"), sql: sql)
    var options = BuildOptions()
    options.todos = folder.sub("due.sqlite")
    options.mapping.todos.columns["due"] = "due"
    let site = try Self.expectSameSites(
      options, in: folder, name: "due", sourceDateEpoch: "1217073600")
    let overdue = site.filter { $0.key.hasPrefix("todos/") }.values.filter {
      String(decoding: $0, as: UTF8.self).contains("Overdue")
    }
    // The three dated rows are all before 2008-07-26; the open ones (even rows) are overdue.
    let dated = (dues.count..<dues.count + 3).filter { $0 % 2 == 0 }
    #expect(overdue.count == dated.count)
    #expect(!overdue.isEmpty)
  }

  @Test("custom templates for every page kind, Markdown and HTML, with partials and a parent")
  func customTemplates() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    for suffix in [".md", ".html"] {
      let templates = try Self.customTemplates(suffix, in: folder)
      let options = try Self.options(
        Self.hostile, in: folder, name: "custom\(suffix)", templates: templates)
      let site = try Self.expectSameSites(options, in: folder, name: "custom\(suffix)")
      let page = String(decoding: try #require(site["todos/2.html"]), as: UTF8.self)
      #expect(page.contains(suffix == ".md" ? "<blockquote>" : "<p>"), "the override is used")
    }
  }

  /// 20,000 with `TASKPRESS_LONG_TESTS=1` (a scale run), else 1,000.
  static let corpusSize = TestEnvironment.size(long: 20_000, short: 1_000)

  @Test("seeded random texts of Markdown's special characters (20,000 in the long tests)")
  func randomCorpus() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let texts = Self.randomTexts(Self.corpusSize, seed: 97)
    let sql = SiteSafetyTests.sql(texts)
    var options = BuildOptions()
    options.todos = folder.sub("random.sqlite")
    try Database.createForTesting(at: folder.sub("random.sqlite"), sql: sql.todos)
    let site = try Self.expectSameSites(
      options, in: folder, name: "random", configurations: Self.main)
    #expect(site.keys.filter { $0.hasPrefix("todos/") }.count == Self.corpusSize)
  }

  @Test("a byte order mark in every 97th to-do: six builds with 2 jobs give the same bytes")
  func byteOrderMarks() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let texts = (0..<Self.corpusSize).map { $0 % 97 == 0 ? "\u{FEFF}" : "Buy milk \($0)" }
    let sql = SiteSafetyTests.sql(texts)
    var options = BuildOptions()
    options.todos = folder.sub("bom.sqlite")
    try Database.createForTesting(at: folder.sub("bom.sqlite"), sql: sql.todos)
    let builds =
      [Configuration(paths: .reference, jobs: 1)]
      + Array(repeating: Configuration(paths: .all, jobs: 2), count: 6)
    let site = try Self.expectSameSites(options, in: folder, name: "bom", configurations: builds)
    // cmark drops the mark at the start of the document, so the heading's underline is text;
    // a shape that kept the mark would make a heading of it.
    let page = String(decoding: try #require(site["todos/98.html"]), as: UTF8.self)
    #expect(page.contains("<p>===</p>"))
    #expect(!page.contains("<h1>\u{FEFF}</h1>"))
  }
}
