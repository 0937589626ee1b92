import Foundation
import Mustache
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

/// Database texts declared Markdown (`BuildOptions.markdown`, `"markdown"` in
/// `taskpress.json`): rendered inline where the HTML pages show them, plain everywhere else,
/// and safe with any text.
@Suite struct MarkdownFieldTests {
  // MARK: - The inline renderer

  @Test(
    "inline Markdown: emphasis, code and http, https and mailto links; everything else is text",
    arguments: [
      (
        "Fix **login** bug in `auth.py`",
        "Fix <strong>login</strong> bug in <code>auth.py</code>"
      ),
      ("*em* _em_ ***both***", "<em>em</em> <em>em</em> <em><strong>both</strong></em>"),
      (
        "[docs](https://example.com/a?b=1&c=2)",
        #"<a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener">docs</a>"#
      ),
      (
        "see <https://example.com/>",
        #"see <a href="https://example.com/" rel="nofollow noopener">https://example.com/</a>"#
      ),
      (
        "<someone@example.com>",
        #"<a href="mailto:someone@example.com" rel="nofollow noopener">someone@example.com</a>"#
      ),
      (
        "[x](HTTP://EXAMPLE.COM)",
        #"<a href="HTTP://EXAMPLE.COM" rel="nofollow noopener">x</a>"#
      ),
      (
        #"[x](<https://e.example/" onmouseover="alert(1)>)"#,
        #"<a href="https://e.example/%22%20onmouseover=%22alert(1)" rel="nofollow noopener">x</a>"#
      ),
      ("[x](javascript:alert(1))", "x"),
      ("[x](JavaScript:alert(1))", "x"),
      ("[x](&#106;avascript:alert(1))", "x"),
      ("[x](java&#x73;cript:alert(1))", "x"),
      ("[x](vbscript:msgbox(1))", "x"),
      ("[x](data:text/html;base64,PHNjcmlwdD4=)", "x"),
      ("[x](file:///etc/passwd)", "x"),
      ("[x](/relative) [y](other.html)", "x y"),
      ("[x](https:)", "x"),
      ("<javascript:alert(1)>", "javascript:alert(1)"),
      ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
      ("**<script>**", "<strong>&lt;script&gt;</strong>"),
      ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
      ("a <b onclick=\"x\">b</b>", "a &lt;b onclick=&quot;x&quot;&gt;b&lt;/b&gt;"),
      ("&lt;script&gt; &#60;b&#62; &#x3C;i&#x3E;", "&lt;script&gt; &lt;b&gt; &lt;i&gt;"),
      ("&amp;lt; &copy; & 'q'", "&amp;lt; © &amp; &#39;q&#39;"),
      ("`unclosed code **x**", "`unclosed code <strong>x</strong>"),
      ("``a ` b``", "<code>a ` b</code>"),
      ("`<b>`", "<code>&lt;b&gt;</code>"),
      ("![alt **text**](x.png)", "alt text"),
      ("![x](javascript:alert(1))", "x"),
      ("line one  \nline two\nthree", "line one line two three"),
      ("# heading **x**", "# heading **x**"),
      ("- item *x*", "- item *x*"),
      ("> quote", "&gt; quote"),
      ("<div>block</div>", "&lt;div&gt;block&lt;/div&gt;"),
      ("    indented", "    indented"),
      ("para one\n\npara two", "para one\n\npara two"),
      // The definition is read as one (and shown as nothing); its link is refused.
      ("[ref]\n\n[ref]: javascript:alert(1)", "ref"),
      ("[ref]: https://example.com/", "[ref]: https://example.com/"),
      ("\\\nafter a backslash", "after a backslash"),
      ("{{x}} {{{y}}}", "{{x}} {{{y}}}"),
      ("bell\u{7}", "bell\u{2407}"),
      ("", ""),
    ])
  func inline(source: String, html: String) {
    #expect(InlineMarkdown.html(source) == html)
  }

  @Test("without links (inside a link of the template), a link is its text")
  func withoutLinks() {
    #expect(
      InlineMarkdown.html("**a** [b](https://example.com/) <https://c.example/>", links: false)
        == "<strong>a</strong> b https://c.example/")
  }

  // MARK: - A site

  /// A to-do database, a possession database, and options to build them.
  static func inputs(
    _ folder: TemporaryFolder, todos: [String], descriptions: [String]
  ) throws -> BuildOptions {
    var sql = "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);\n"
    for (index, text) in todos.enumerated() {
      sql +=
        "INSERT INTO todo VALUES (\(index + 1), \(SiteSafetyTests.literal(text)), 1, \(index % 2));\n"
    }
    try Database.createForTesting(at: folder.sub("todo.sqlite"), sql: sql)
    sql =
      "CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);\n"
    for (index, text) in descriptions.enumerated() {
      sql +=
        "INSERT INTO possessions VALUES (\(index + 1), 'Thing \(index + 1)', "
        + "\(SiteSafetyTests.literal(text)), NULL);\n"
    }
    try Database.createForTesting(at: folder.sub("possessions.sqlite"), sql: sql)
    var options = BuildOptions()
    options.todos = folder.sub("todo.sqlite")
    options.possessions = folder.sub("possessions.sqlite")
    options.baseURL = "https://example.org/tasks/"
    options.jobs = 2
    return options
  }

  static func build(_ options: BuildOptions, into output: String) throws -> [String: String] {
    var options = options
    options.output = output
    _ = try Build.run(
      options, sourceDateEpoch: "1217073600", interrupt: InterruptFlag(),
      reporter: Build.Reporter { _ in })
    return Tree.contents(output).mapValues { String(decoding: $0, as: UTF8.self) }
  }

  @Test(
    "on: **bold** is <strong> on the list, the board and the possession's page; plain elsewhere")
  func rendered() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    var options = try Self.inputs(
      folder, todos: ["Fix **login** bug in `auth.py`", "Read [docs](https://example.com/)"],
      descriptions: ["A *red* bike, see <https://bikes.example/>"])
    let off = try Self.build(options, into: folder.sub("off"))
    options.markdown = [.todoText, .possessionDescription]
    let on = try Self.build(options, into: folder.sub("on"))

    let title = "Fix <strong>login</strong> bug in <code>auth.py</code>"
    let lists = on.keys.filter { $0.hasPrefix("priority/") || $0.hasPrefix("status/") }
    #expect(lists.contains { on[$0]?.contains(">\(title)</a>") == true })
    for file in ["index.html", "board.html"] {
      let page = try #require(on[file], "\(file)")
      #expect(page.contains(">\(title)</a>"), "\(file)")
      // A link in a to-do's text is its text inside the row's link to the to-do.
      #expect(!page.contains("https://example.com/"), "\(file)")
      #expect(try #require(off[file]).contains("Fix **login** bug in `auth.py`"), "\(file)")
    }
    let possession = try #require(on["possessions/1.html"])
    #expect(
      possession.contains(
        #"A <em>red</em> bike, see <a href="https://bikes.example/" rel="nofollow noopener">"#
          + "https://bikes.example/</a>"))
    #expect(try #require(off["possessions/1.html"]).contains("A *red* bike, see &lt;https://"))

    // The feeds, the data copies and the <title> keep the text as stored.
    for file in [
      "feed.xml", "feed.json", "data/todos.json", "data/todos.csv", "data/possessions.json",
    ] {
      #expect(on[file] == off[file], "\(file)")
    }
    #expect(try #require(on["data/todos.json"]).contains("Fix **login** bug in `auth.py`"))
    let page = try #require(on["todos/1.html"])
    #expect(page.contains("<title>Fix **login** bug in `auth.py`"))
    #expect(page.contains("<h1>\(title)</h1>"))
    #expect(try #require(off["todos/1.html"]).contains("<h1>Fix **login** bug in `auth.py`</h1>"))
    // The link of to-do 2 is text in its heading too.
    #expect(try #require(on["todos/2.html"]).contains("<h1>Read docs</h1>"))
    #expect(
      Set(on.keys.filter { on[$0] != off[$0] }).isSuperset(of: [
        "index.html", "board.html", "possessions/1.html", "todos/1.html",
      ]))

    // The changes pages: a changed text and description, rendered; the feed keeps them plain.
    let todos = try Database.openWritableForTesting(at: folder.sub("todo.sqlite"))
    try todos.execute("UPDATE todo SET text = 'Fix **logout** too' WHERE pk = 1")
    let possessions = try Database.openWritableForTesting(at: folder.sub("possessions.sqlite"))
    try possessions.execute("UPDATE possessions SET description = 'A _blue_ bike' WHERE id = 1")
    let rebuilt = try Self.build(options, into: folder.sub("on"))
    let changes = try #require(rebuilt["changes.html"])
    #expect(changes.contains(">Fix <strong>logout</strong> too</a>"))
    #expect(
      changes.contains(
        "Fix <strong>login</strong> bug in <code>auth.py</code> → Fix <strong>logout</strong> too"))
    #expect(changes.contains("A <em>red</em> bike, see "))
    #expect(changes.contains("A <em>blue</em> bike</span>"))
    #expect(try #require(rebuilt["index.html"]).contains("Fix <strong>logout</strong> too"))
    #expect(try #require(rebuilt["feed.xml"]).contains("Fix **logout** too"))
  }

  @Test("the Markdown for a .md template renders as the HTML for a link does")
  func markdownForTemplates() {
    let strings =
      SiteSafetyTests.hostile + Self.extraHostile + DifferentialTests.hostile
      + [
        "Fix **login** bug in `auth.py`", "`` ` ``", "` a `", "`  `", "*a* **b** ***c***",
        "a*b*c", "**a *b* c**", "*(x)*", "**\"q\"**", "` code with\u{1}control `",
      ]
    var mismatches: [String] = []
    for source in strings {
      let inline = InlineMarkdown.html(source, links: false)
      let viaMarkdown = String(
        decoding: Markdown.htmlBytes(from: Array(InlineMarkdown.markdown(source).utf8)),
        as: UTF8.self)
      let isParagraph = viaMarkdown.hasPrefix("<p>") && viaMarkdown.hasSuffix("</p>\n")
      if isParagraph, String(viaMarkdown.dropFirst(3).dropLast(5)) == inline { continue }
      // A text that is not one paragraph is escaped whole, as `{{title}}` escapes it.
      if InlineMarkdown.markdown(source) == Escaping.markdown.escape(source) { continue }
      if source.isEmpty { continue }
      mismatches.append("\(String(reflecting: source)): \(inline) ≠ \(viaMarkdown)")
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(20).joined(separator: "\n"))")
  }

  @Test("off, the theme's titleHTML and descriptionHTML give the bytes {{title}} gave")
  func offIsToday() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    var options = try Self.inputs(
      folder, todos: SiteSafetyTests.hostile, descriptions: SiteSafetyTests.hostile)
    let theme = try Self.build(options, into: folder.sub("theme"))
    // The theme's templates as they were before the Markdown values.
    let templates = folder.sub("templates")
    for (file, from, to) in [
      ("todo-item.html", "{{{titleHTML}}}", "{{title}}"),
      ("board.html", "{{{titleHTML}}}", "{{title}}"),
      ("possession.html", "{{{possession.descriptionHTML}}}", "{{possession.description}}"),
    ] {
      let text = String(decoding: try #require(Theme.builtIn.files[file]).contents, as: UTF8.self)
      #expect(text.contains(from), "\(file)")
      try writeFile(templates + "/" + file, text.replacingOccurrences(of: from, with: to))
    }
    options.templates = templates
    let plain = try Self.build(options, into: folder.sub("plain"))
    #expect(theme.keys.sorted() == plain.keys.sorted())
    for (file, text) in theme where !file.hasPrefix(".") {
      // The theme's templates are in the inputs key of the state folder only.
      #expect(plain[file] == text, "\(file)")
    }
  }

  @Test("on, with hostile text in both fields: no element, attribute or scheme but the rule's")
  func hostileIsSafe() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let strings =
      SiteSafetyTests.hostile + MarkdownFieldTests.extraHostile + DifferentialTests.hostile
    var options = try Self.inputs(folder, todos: strings, descriptions: strings.reversed())
    options.markdown = [.todoText, .possessionDescription]
    let hostile = try Self.build(options, into: folder.sub("hostile"))
    let benignFolder = try TemporaryFolder()
    defer { benignFolder.cleanUp() }
    let benignOptions = try Self.inputs(
      benignFolder, todos: strings.map(SiteSafetyTests.benign),
      descriptions: strings.reversed().map(SiteSafetyTests.benign))
    var benignWithMarkdown = benignOptions
    benignWithMarkdown.markdown = options.markdown
    let benign = try Self.build(benignWithMarkdown, into: folder.sub("benign"))

    var themeElements: Set<String> = []
    var themeLinks: Set<String> = []
    // The theme's own scripts (the contacts' filter, the site search): their `src` as the
    // benign build writes it, absolute on a page with the base URL (404.html).
    var themeScripts: Set<String> = []
    for page in SiteChecker.pages(benign.mapValues { Array($0.utf8) }) {
      for case .start(let name, let attributes, _) in page.tokens {
        themeElements.insert(name)
        if name == "script", let src = attributes.first(where: { $0.name == "src" }) {
          themeScripts.insert(src.value)
        }
        if name == "a", let href = attributes.first(where: { $0.name == "href" }) {
          themeLinks.insert(href.value)
        }
      }
    }
    let allowed = themeElements.union(["em", "strong", "code", "a"])
    var violations: [String] = []
    var links = 0
    for page in SiteChecker.pages(hostile.mapValues { Array($0.utf8) }) {
      let report = { (message: String) in violations.append("\(page.file): \(message)") }
      page.problems.forEach(report)
      var openLinks = 0
      for token in page.tokens {
        switch token {
        case .start(let name, let attributes, _):
          if !allowed.contains(name) { report("<\(name)>") }
          for attribute in attributes
          where attribute.name.hasPrefix("on") || attribute.name == "style" {
            report("<\(name) \(attribute.name)>")
          }
          let values = Dictionary(
            attributes.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
          if name == "script", !themeScripts.contains(values["src"] ?? "") {
            report("a <script>")
          }
          if let src = values["src"], src.contains(":"), !themeScripts.contains(src) {
            report("src \(src)")
          }
          if name == "a" {
            openLinks += 1
            if openLinks > 1 { report("a link inside a link") }
            let href = values["href"] ?? ""
            let scheme = href.prefix { !"/?#".contains($0) }
            if scheme.contains(":"), !themeLinks.contains(href) {
              let lowered = href.lowercased()
              if !["http://", "https://", "mailto:"].contains(where: { lowered.hasPrefix($0) }) {
                report("<a href=\(href)>")
              }
              if values["rel"] != "nofollow noopener" { report("<a href=\(href)> without rel") }
              links += 1
            }
          }
        case .end(let name) where name == "a":
          openLinks -= 1
        case .comment(let text):
          report("a comment \(text.prefix(40))")
        default: break
        }
      }
    }
    #expect(violations.isEmpty, "\(violations.prefix(40).joined(separator: "\n"))")
    // Some links are made: the rule is exercised, not everything refused.
    #expect(links > 0)
    // Raw HTML stays visible as text.
    let board = try #require(hostile["board.html"])
    #expect(board.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    #expect(board.contains("&lt;img src=x onerror=alert(1)&gt;"))
  }

  /// Markdown aimed at the inline renderer.
  static let extraHostile: [String] = [
    "**<script>alert(1)</script>**",
    "*<img src=x onerror=alert(1)>*",
    "[x](&#106;avascript:alert(1))",
    "[x](JAVASCRIPT:alert(1))",
    "[x](javascript&colon;alert(1))",
    "[x]( javascript:alert(1))",
    "[x](<javascript:alert(1)>)",
    "[<b>x</b>](https://example.com/)",
    "[x](https://example.com/\"onmouseover=\"alert(1))",
    #"[x](<https://e.example/" onmouseover="alert(1)>)"#,
    "[x](https://example.com/ \"title\\\" onclick=\\\"alert(1)\")",
    "<https://example.com/\"onmouseover=alert(1)>",
    "<someone@example.com>",
    "[a [b](https://b.example/)](https://a.example/)",
    "[![img](https://i.example/x.png)](https://l.example/)",
    "`unclosed code <b>",
    "``code with ` and <i>``",
    "&#x3C;script&#x3E;alert(1)&#x3C;/script&#x3E;",
    "&lt;a href=javascript:alert(1)&gt;x&lt;/a&gt;",
    "***[x](https://example.com/)***",
  ]

  @Test("on, hostile Markdown: the reference renderer and every fast path give the same bytes")
  func differential() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    var options = try DifferentialTests.options(
      SiteSafetyTests.hostile + Self.extraHostile, in: folder, name: "markdown")
    options.markdown = [.todoText, .possessionDescription]
    let site = try DifferentialTests.expectSameSites(options, in: folder, name: "markdown")
    #expect(
      String(decoding: try #require(site["board.html"]), as: UTF8.self).contains("<strong>"))
  }
}
