import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

/// The safety property end to end (DESIGN §3): hostile text in every field of every source,
/// through a whole build, creates no element, attribute, URL scheme or template tag, and stays
/// visible as text on its page.
@Suite struct SiteSafetyTests {
  static let baseURL = "https://example.org/reports/"

  /// Strings that would become markup, links or template tags if anything let them through.
  static let hostile: [String] = [
    "<script>alert(1)</script>",
    "<style>body { display: none }</style>",
    "<img src=x onerror=alert(1)>",
    "<a href=\"javascript:alert(1)\">click</a>",
    "<div onclick=\"alert(1)\" style=\"color: red\">div</div>",
    "\" onmouseover=\"alert(1)",
    "' onfocus='alert(1)' autofocus x='",
    "<svg onload=alert(1)>",
    "<iframe src=\"https://example.com/\"></iframe>",
    "<base href=\"https://evil.example/\">",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    "</main></body></html>",
    "[x](javascript:alert(1))",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[x](file:///etc/passwd)",
    "<javascript:alert(1)>",
    "<https://example.com/>",
    "<mailto:someone@example.com>",
    "https://example.com/ www.example.com someone@example.com",
    "[ref]\n\n[ref]: javascript:alert(1)",
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "&#x3C;script&#x3E; &#60;b&#62;",
    "&amp;lt; &nbsp; &copy; &",
    "<!-- comment -->",
    "<!-- unclosed",
    "-->",
    "<![CDATA[ <b>cdata</b> ]]>",
    "<?php echo 1; ?>",
    "{{x}}",
    "{{{x}}}",
    "{{> layout}}",
    "{{=<% %>=}}",
    "{{#site}}section{{/site}}",
    "{{& content}} {{! comment }}",
    "# h",
    "## h2",
    "> q",
    "- l",
    "* l",
    "1. l",
    "2) l",
    "```\ncode\n```",
    "~~~",
    "    code",
    "\tcode",
    "---",
    "***",
    "===",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "![img](x.png)",
    "![x](javascript:alert(1))",
    "*em* _em_ **strong** `code` ~~strike~~ \\*",
    "\u{202E}gnp.exe",
    "zero\u{200B}width\u{200C}non\u{200D}joiner\u{FEFF}",
    "nul\u{0}byte\u{0}",
    "bell\u{7} escape\u{1B}[31m tab\t vt\u{B} ff\u{C} del\u{7F} c1\u{85} non"
      + MarkdownEscapingTests.noncharacters,
    String(repeating: "long <b>text</b> & {{more}} ", count: 800),
    "line one\nline two",
    "crlf one\r\ncrlf two",
    "cr\ronly",
    "\n\nblank lines\n\n\nin between\n",
    "trailing backslash \\",
    "\\\nbackslash newline",
    "  leading and trailing spaces  ",
    "日本語 😀 é",
    "",
  ]

  /// The same shape without anything hostile: letters, digits, spaces and line breaks stay,
  /// everything else becomes `x`.
  static func benign(_ text: String) -> String {
    String(
      String.UnicodeScalarView(
        text.unicodeScalars.map { scalar in
          scalar == "\n" || scalar == "\r" || scalar == " "
            || (scalar.isASCII && scalar.properties.isAlphabetic)
            || ("0"..."9").contains(scalar) ? scalar : "x"
        }))
  }

  /// Field `field` of row `row`: every field sees every string, each row a different mix.
  static func value(_ strings: [String], row: Int, field: Int) -> String {
    strings[(row + field * 7) % strings.count]
  }

  /// A 3×2 PNG.
  static let photo =
    "89504E470D0A1A0A0000000D49484452000000030000000208020000001216F14D0000001C49444154789C6364"
    + "6868F8AFDAC0C0C0C0F07F29034343C3FFFFFF01435C0847455B753B0000000049454E44AE426082"

  static func literal(_ text: String) -> String {
    let hex = text.utf8.map { byte in
      let digits = String(byte, radix: 16, uppercase: true)
      return digits.count == 1 ? "0" + digits : digits
    }.joined()
    return hex.isEmpty ? "''" : "CAST(X'\(hex)' AS TEXT)"
  }

  /// The SQL of the three databases, one row per string.
  static func sql(_ strings: [String]) -> (todos: String, possessions: String, contacts: String) {
    var todos =
      "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);\n"
    var possessions =
      "CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);\n"
    var contacts =
      "CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT, address TEXT, phone TEXT);\n"
    for row in strings.indices {
      let id = row + 1
      todos +=
        "INSERT INTO todo VALUES (\(id), \(literal(value(strings, row: row, field: 0))), "
        + "\(row % 3 + 1), \(row % 2));\n"
      // Every third row's photo is a path: the name's text (hostile paths: `..`, markup,
      // NUL bytes, line breaks, 20,000 characters), a warning naming the row.
      let photo =
        row % 3 == 0
        ? "X'\(photo)'" : row % 3 == 1 ? literal(value(strings, row: row, field: 1)) : "NULL"
      possessions +=
        "INSERT INTO possessions VALUES (\(id), \(literal(value(strings, row: row, field: 1))), "
        + "\(literal(value(strings, row: row, field: 2))), \(photo));\n"
      contacts +=
        "INSERT INTO contacts VALUES (\(id), \(literal(value(strings, row: row, field: 3))), "
        + "\(literal(value(strings, row: row, field: 4))), "
        + "\(literal(value(strings, row: row, field: 5))));\n"
    }
    return (todos, possessions, contacts)
  }

  /// What must be visible where: a to-do on its page, the board and the index; a possession's
  /// name and description on its page; a contact's fields on its page.
  static func expectations(_ strings: [String]) -> [SiteChecker.Expectation] {
    var result: [SiteChecker.Expectation] = []
    for row in strings.indices {
      let id = row + 1
      func visible(_ field: Int) -> String {
        MarkdownEscapingTests.visible(
          value(strings, row: row, field: field).replacingOccurrences(of: "\u{0}", with: ""))
      }
      for file in ["todos/\(id).html", "board.html", "index.html"] {
        result.append(.init(file: file, text: visible(0)))
      }
      result.append(.init(file: "possessions/\(id).html", text: visible(1)))
      result.append(.init(file: "possessions/\(id).html", text: visible(2)))
      for field in 3...5 {
        result.append(.init(file: "contacts/\(id).html", text: visible(field)))
      }
    }
    return result
  }

  /// Builds a site from `strings` into a folder of `folder` and returns its files.
  static func buildSite(
    _ strings: [String], in folder: TemporaryFolder, name: String, templates: String? = nil,
    jobs: Int = 2, sourceDateEpoch: String? = nil
  ) throws -> (files: [String: [UInt8]], warnings: [BuildWarning]) {
    let sql = sql(strings)
    let data = folder.sub(name + "-data")
    try makeFolders(data)
    var options = BuildOptions()
    options.todos = data + "/todo.sqlite"
    options.possessions = data + "/possessions.sqlite"
    options.contacts = data + "/contacts.sqlite"
    try Database.createForTesting(at: try #require(options.todos), sql: sql.todos)
    try Database.createForTesting(at: try #require(options.possessions), sql: sql.possessions)
    try Database.createForTesting(at: try #require(options.contacts), sql: sql.contacts)
    options.output = folder.sub(name)
    options.baseURL = baseURL
    options.templates = templates
    options.jobs = jobs
    let warnings = WarningLog()
    _ = try Build.run(
      options, sourceDateEpoch: sourceDateEpoch, interrupt: InterruptFlag(),
      reporter: Build.Reporter(warning: warnings.append))
    return (Tree.contents(options.output), warnings.all)
  }

  @Test("hostile text in every field makes no markup and stays visible")
  func hostileDataIsText() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let hostile = try Self.buildSite(Self.hostile, in: folder, name: "hostile")
    let benign = try Self.buildSite(Self.hostile.map(Self.benign), in: folder, name: "benign")

    // The reader drops NUL bytes and says so, once per field that had them.
    let nulRows = hostile.warnings.filter { $0.message.contains("NUL bytes") }
    #expect(nulRows.count == 6)
    // Each photo path is one warning naming its row, on one line; none is published.
    for build in [hostile, benign] {
      let photoWarnings = build.warnings.filter { $0.message.hasPrefix("photo '") }
      let rows = Self.hostile.indices.filter {
        $0 % 3 == 1 && !Self.value(Self.hostile, row: $0, field: 1).isEmpty
      }
      #expect(photoWarnings.map(\.location) == rows.map { "possessions id=\($0 + 1)" })
      #expect(photoWarnings.allSatisfy { !$0.description.contains("\n") })
      #expect(photoWarnings.allSatisfy { $0.message.hasSuffix("; not published") })
    }
    #expect(benign.warnings.allSatisfy { $0.message.hasPrefix("photo '") })

    // Every page is there, in both builds.
    let pages = SiteChecker.pages(hostile.files).map(\.file)
    #expect(pages == SiteChecker.pages(benign.files).map(\.file))
    // A page per row of each source, 8 more (flow.html and report.html among them), the lists:
    // two statuses, High, Medium, Low, and the possession list's later pages.
    let laterGalleryPages = (Self.hostile.count - 1) / BuildOptions().galleryPageSize
    #expect(laterGalleryPages > 0)
    #expect(pages.count == 3 * Self.hostile.count + 8 + 5 + laterGalleryPages)

    let checker = SiteChecker(baseURL: Self.baseURL, hostile: hostile.files, benign: benign.files)
    let violations = checker.violations(expecting: Self.expectations(Self.hostile))
    #expect(violations.isEmpty, "\(violations.prefix(40).joined(separator: "\n"))")
  }

  /// Template overrides that insert a value unescaped: the checker must catch each.
  static let unescapedOverrides: [(file: String, from: String, to: String)] = [
    ("board.html", "{{{titleHTML}}}", "{{{title}}}"),
    ("todo.md", "{{todo.title}}", "{{{todo.title}}}"),
    ("contact.md", "{{contact.address}}", "{{{contact.address}}}"),
    ("possession.html", "{{{possession.descriptionHTML}}}", "{{{possession.description}}}"),
  ]

  @Test("an unescaped template is caught", arguments: unescapedOverrides.indices)
  func unescapedTemplateIsCaught(_ index: Int) throws {
    let override = Self.unescapedOverrides[index]
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let source = try #require(Theme.builtIn.files[override.file]).contents
    let text = String(decoding: source, as: UTF8.self)
    #expect(text.contains(override.from))
    let templates = folder.sub("templates")
    try writeFile(
      templates + "/" + override.file,
      text.replacingOccurrences(of: override.from, with: override.to))

    let hostile = try Self.buildSite(
      Self.hostile, in: folder, name: "hostile", templates: templates)
    let benign = try Self.buildSite(
      Self.hostile.map(Self.benign), in: folder, name: "benign", templates: templates)
    let checker = SiteChecker(baseURL: Self.baseURL, hostile: hostile.files, benign: benign.files)
    let violations = checker.violations(expecting: Self.expectations(Self.hostile))
    #expect(!violations.isEmpty)
    // The page the override renders is among those named.
    let page = override.file.replacingOccurrences(of: ".md", with: "")
      .replacingOccurrences(of: ".html", with: "")
    #expect(violations.contains { $0.contains(page) }, "\(violations.prefix(5))")
  }
}

/// Warnings a build reported, collected from any thread.
final class WarningLog: @unchecked Sendable {
  private let lock = NSLock()
  private var warnings: [BuildWarning] = []

  var all: [BuildWarning] { lock.withLock { warnings } }

  func append(_ warning: BuildWarning) {
    lock.withLock { warnings.append(warning) }
  }
}
