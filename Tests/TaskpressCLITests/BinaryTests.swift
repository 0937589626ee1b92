import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#endif

/// Promises kept by the real `taskpress` binary, run as a child process: what it prints, its
/// exit status, its files and its peak memory.
@Suite struct BinaryTests {
  @Test("render prints exactly the result and exits 0; a bad template exits 1 naming it")
  func render() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try Data("# {{title}}\n\n{{> footer}}".utf8).write(to: URL(filePath: folder + "/page.md"))
    try Data("by {{author}}".utf8).write(to: URL(filePath: folder + "/footer.md"))
    try Data(#"{"title": "A*B", "author": "<me>"}"#.utf8)
      .write(to: URL(filePath: folder + "/data.json"))
    let result = try runBinary(["render", "page.md", "--data", "data.json"], in: folder)
    #expect(result.status == 0)
    #expect(result.stdout == "# A\\*B\n\nby \\<me\\>")
    #expect(result.stderr.isEmpty)

    try Data("{{#a}}".utf8).write(to: URL(filePath: folder + "/bad.html"))
    let bad = try runBinary(["render", "bad.html"], in: folder)
    #expect(bad.status == 1)
    #expect(bad.stdout.isEmpty)
    #expect(bad.stderr == "error: bad.html:1:1: section 'a' is never closed\n")
  }

  /// A possessions database with one photo of `bytes` bytes: a real 3×2 PNG with a private
  /// chunk of zeros.
  private func photoDatabase(_ path: String, bytes: Int) throws {
    let png = TestPNG.make()
    let zeros = bytes - png.count - 12
    let header = TestPNG.hex(Array(png[..<33]))
    let rest = TestPNG.hex(Array(png[33...]))
    let length = TestPNG.hex(TestPNG.bigEndian(UInt32(zeros)))
    let crc = TestPNG.hex(TestPNG.bigEndian(TestPNG.crcOfZeroChunk("prVt", count: zeros)))
    try Database.createForTesting(
      at: path,
      sql: """
        CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);
        INSERT INTO possessions VALUES (1, 'photo', '', CAST(
          X'\(header)\(length)70725674' || zeroblob(\(zeros)) || X'\(crc)\(rest)' AS BLOB));
        """)
  }

  @Test("a page past the file size limit (ulimit -f): exit 1 naming it, the site as it was")
  func fileSizeLimit() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let small = folder + "/small.sqlite"
    try SafetyFixtures.todos(at: small, count: 5)
    let site = folder + "/site"
    let first = runTaskpress(["build", "--todos", small, "--output", site, "--quiet"])
    try #require(first.status == 0, "\(first.stderr)")
    let before = FolderSnapshot(site, includingState: true)
    // One to-do of 3 MB: its page, and the list and data copies that show it, pass the limit.
    let big = folder + "/big.sqlite"
    try Database.createForTesting(
      at: big,
      sql: SafetyFixtures.todoTable
        + "INSERT INTO todo VALUES (1, replace(hex(zeroblob(1500000)), '0', 'x'), 1, 0);")

    // `ulimit -f 1024` is 512 KB or 1 MB depending on the shell: either is below 3 MB.
    let result = try ChildTaskpress(
      executable: "/bin/sh",
      arguments: [
        "-c", #"ulimit -f 1024 && exec "$0" "$@""#, try TaskpressBinary.require(),
        "build", "--todos", big, "--output", site, "--jobs", "1",
      ], in: folder
    ).wait()
    #expect(!result.killed, "taskpress was killed by signal \(result.status) (SIGXFSZ is 25)")
    #expect(result.status == 1)
    #expect(result.stdout.isEmpty)
    let reason = SystemError(code: EFBIG).reason
    #expect(
      result.stderr
        == "error: \(site)/board.html: \(reason)\nthe site in '\(site)' was not changed\n")
    let changes = FolderSnapshot(site, includingState: true).differences(from: before)
    #expect(changes.isEmpty, "the failed build changed the site: \(changes)")
  }

  /// GNU time, which measures a child it forks itself. (`wait4` here would not do: a child
  /// `posix_spawn` starts shares this process's memory until it execs, and its peak counts it.)
  static let time = "/usr/bin/time"

  @Test(
    "a 64 MB photo is streamed: the build's peak memory grows by far less than the photo",
    TestEnvironment.needs("time", candidates: [time], install: "apt-get install time"))
  func photoMemory() throws {
    _ = try TestEnvironment.requireTool(
      "time", candidates: [Self.time], install: "apt-get install time")
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let photo = 64 << 20
    var peaks: [Int: Int] = [:]
    for bytes in [2 << 20, photo] {
      let database = folder + "/possessions-\(bytes).sqlite"
      try photoDatabase(database, bytes: bytes)
      let site = folder + "/site-\(bytes)"
      let peak = folder + "/peak-\(bytes)"
      let result = try ChildTaskpress(
        executable: Self.time,
        arguments: [
          "-f", "%M", "-o", peak, try TaskpressBinary.require(), "build", "--possessions",
          database, "--output", site,
        ], in: folder
      ).wait()
      try #require(result.status == 0, "\(result.stderr)")
      // Decoded (streamed) into its one rendition, at its own width.
      let photos = try FileManager.default.contentsOfDirectory(atPath: site + "/photos")
      #expect(photos.count == 1 && photos[0].hasSuffix("-3w.webp"), "\(photos)")
      let text = try String(contentsOfFile: peak, encoding: .utf8)
      // Required as an Int, not as the dictionary's Int?: the check would then always pass.
      let peakKB: Int = try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
      peaks[bytes] = peakKB
    }
    // Read whole, the photo alone would add 62 MB; streamed in 64 KB pieces, SQLite's page
    // cache (2 MB) and the pieces are all that grow.
    let growth = (peaks[photo] ?? 0) - (peaks[2 << 20] ?? 0)
    #expect(growth < 16 << 10, "peak memory grew by \(growth) KB: \(peaks)")
  }
}

/// Templates given with `--templates`: which file wins, and what a `.md` template can link to.
@Suite struct TemplateOverrideTests {
  private func build(with templates: [String: String]) throws -> (site: String, status: Int32) {
    let folder = try makeTemporaryFolder()
    let todos = folder + "/todo.sqlite"
    try SafetyFixtures.todos(at: todos, count: 3)
    let folderOfTemplates = folder + "/templates"
    try FileManager.default.createDirectory(
      atPath: folderOfTemplates, withIntermediateDirectories: true)
    for (name, text) in templates {
      try Data(text.utf8).write(to: URL(filePath: folderOfTemplates + "/" + name))
    }
    let site = folder + "/site"
    let result = runTaskpress([
      "build", "--todos", todos, "--templates", folderOfTemplates, "--output", site, "--quiet",
    ])
    #expect(result.stderr.isEmpty)
    return (site, result.status)
  }

  private func page(_ path: String) -> String {
    String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
  }

  @Test(
    "an override wins over the theme's template whose extension differs",
    arguments: [
      (
        "todo.html", "todos/2.html", "<p class=\"mine\">{{todo.title}}</p>",
        "<p class=\"mine\">task 2</p>"
      ),
      ("index.html", "index.html", "<p class=\"mine\">{{site.title}}</p>", "<p class=\"mine\">"),
      ("board.md", "board.html", "# mine: {{labels.board}}\n", "<h1>mine: "),
    ])
  func otherExtension(name: String, page path: String, template: String, expected: String) throws {
    let (site, status) = try build(with: [name: template])
    #expect(status == 0)
    #expect(page(site + "/" + path).contains(expected), "\(page(site + "/" + path))")
  }

  @Test("javascript:, vbscript:, file: and data: links in a .md template reach no page")
  func dangerousLinks() throws {
    let template = """
      # {{todo.text}}

      [a](javascript:alert(1)) [b](vbscript:msgbox(1)) [c](file:///etc/passwd)
      [d](data:text/html;base64,PHNjcmlwdD4=) [e](JAVASCRIPT:alert(1)) [f](https://example.org/)

      """
    let (site, status) = try build(with: ["todo.md": template])
    #expect(status == 0)
    let html = page(site + "/todos/1.html")
    #expect(
      html.contains(
        """
        <p><a href="">a</a> <a href="">b</a> <a href="">c</a>
        <a href="">d</a> <a href="">e</a> <a href="https://example.org/">f</a></p>
        """), "\(html)")
    for scheme in ["javascript:", "vbscript:", "file:", "data:"] {
      #expect(!html.lowercased().contains("href=\"\(scheme)"), "\(scheme) reached the page")
    }
  }
}
