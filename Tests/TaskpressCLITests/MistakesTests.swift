import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressCLI
@testable import TaskpressKit

/// A site made as a new user makes one: `taskpress init`, a database, then a change to the
/// theme or the config, and `taskpress build` as the config init wrote says.
struct InitProject {
  let folder: String
  var templates: String { folder + "/templates" }
  var config: String { folder + "/taskpress.json" }

  init(contacts: [String] = []) throws {
    folder = try makeTemporaryFolder()
    let result = runTaskpress(["init", folder])
    #expect(result.status == 0, "\(result.stderr)")
    try Database.createForTesting(
      at: folder + "/todo.sqlite",
      sql: """
        CREATE TABLE todo(pk INTEGER PRIMARY KEY, text VARCHAR(25), priority INTEGER, complete BOOLEAN);
        INSERT INTO todo VALUES (1, 'Take out the trash', 3, 1);
        INSERT INTO todo VALUES (2, 'Renew passport', 1, 0);
        INSERT INTO todo VALUES (3, 'Call the plumber', 2, 0);
        """)
    if !contacts.isEmpty {
      try Database.createForTesting(
        at: folder + "/contacts.sqlite",
        sql: "CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT, address TEXT, phone TEXT);"
          + contacts.enumerated().map {
            "INSERT INTO contacts VALUES (\($0 + 1), '\($1)', 'a', 'p');"
          }
          .joined())
      try write(
        "taskpress.json",
        #"{"todos": "todo.sqlite", "contacts": "contacts.sqlite", "templates": "templates", "output": "site"}"#
      )
    }
  }

  /// Writes `text` to `path` in the project folder.
  func write(_ path: String, _ text: String) throws {
    try text.write(toFile: folder + "/" + path, atomically: true, encoding: .utf8)
  }

  /// Replaces `old` by `new` in the theme file `path`.
  func edit(_ path: String, _ old: String, _ new: String) throws {
    let file = templates + "/" + path
    let text = try String(contentsOfFile: file, encoding: .utf8)
    #expect(text.contains(old), "\(path) has no '\(old)'")
    try text.replacingOccurrences(of: old, with: new).write(
      toFile: file, atomically: true, encoding: .utf8)
  }

  func build(_ extra: [String] = []) -> (status: Int32, stdout: String, stderr: String) {
    runTaskpress(["build", "--config", config] + extra)
  }

  func page(_ path: String) throws -> String {
    try String(contentsOfFile: folder + "/site/" + path, encoding: .utf8)
  }
}

/// Each mistake a new user can make after `taskpress init`, with the exact message and status.
@Suite struct InitMistakesTests {
  @Test(
    "misspelled variables in todo.md fail the build, each with file:line:col and the closest name")
  func misspelledVariables() throws {
    let project = try InitProject()
    try project.edit("todo.md", "{{todo.title}}", "{{todo.titel}}")
    try project.edit("todo.md", "{{labels.priority}}", "{{labels.priorty}}")
    try project.edit("todo.md", "{{todo.priority.label}}", "{{todo.priority.lable}}")
    let result = project.build()
    #expect(result.status == 1)
    let file = project.templates + "/todo.md"
    #expect(
      result.stderr == """
        error: \(file):1:94: unknown variable 'todo.titel'; did you mean 'todo.title'?
        error: \(file):4:3: unknown variable 'labels.priorty'; did you mean 'labels.priority'?
        error: \(file):4:25: unknown variable 'todo.priority.lable'; did you mean 'todo.priority.label'?

        """)
    #expect(!FileManager.default.fileExists(atPath: project.folder + "/site"))
  }

  @Test("'{{content}}' in layout.html fails the build and says why")
  func escapedContent() throws {
    let project = try InitProject()
    try project.edit("layout.html", "{{{content}}}", "{{content}}")
    let layout = try String(contentsOfFile: project.templates + "/layout.html", encoding: .utf8)
    let line =
      try #require(layout.components(separatedBy: "{{content}}").first)
      .filter { $0 == "\n" }.count + 1
    let result = project.build()
    #expect(result.status == 1)
    #expect(
      result.stderr == """
        error: \(project.templates)/layout.html:\(line):1: '{{content}}' escapes the page's HTML, so every page would show its markup as text; write '{{{content}}}'

        """)
  }

  @Test("a layout without '{{{content}}}' is a warning; with --strict the build fails")
  func missingContent() throws {
    let project = try InitProject()
    try project.edit("layout.html", "{{{content}}}", "")
    let warning =
      "warning: \(project.templates)/layout.html: the layout has no '{{{content}}}', so every"
      + " page would be empty; put it where a page's body goes\n"
    let result = project.build()
    #expect(result.status == 0)
    #expect(result.stderr == warning)
    let strict = project.build(["--strict"])
    #expect(strict.status == 1)
    #expect(
      strict.stderr == warning + "error: 1 warning and --strict is set; the site was not changed\n")
  }

  @Test("an override named tdo.md is a warning with the name it was meant to have")
  func misnamedOverride() throws {
    let project = try InitProject()
    try FileManager.default.moveItem(
      atPath: project.templates + "/todo.md", toPath: project.templates + "/tdo.md")
    let result = project.build()
    #expect(result.status == 0)
    #expect(
      result.stderr
        == "warning: \(project.templates)/tdo.md: overrides no file of the theme and no template"
        + " includes it; did you mean 'todo.md'?\n")
  }

  @Test("todo.md beside todo.html: the warning says which one is used")
  func bothExtensions() throws {
    let project = try InitProject()
    try project.write("templates/todo.html", "<h1>{{todo.title}}</h1>\n")
    let result = project.build()
    #expect(result.status == 0)
    #expect(
      result.stderr
        == "warning: \(project.templates)/todo.md: ignored: 'todo.html' is in the same folder and"
        + " is used instead (when a page's template is there as both, the .html one is used);"
        + " remove one of them\n")
    #expect(try project.page("todos/1.html").contains("<h1>Take out the trash</h1>"))
  }

  @Test("labels.json without a locale level, or with a misspelled label, fails with where and why")
  func badLabels() throws {
    let project = try InitProject()
    try project.write("templates/labels.json", #"{"board": "Kanban"}"#)
    let flat = project.build()
    #expect(flat.status == 1)
    #expect(
      flat.stderr == """
        error: \(project.templates)/labels.json:1:2: 'board' is a label, not a locale: put labels in the table of a locale, e.g. {"en": {"board": "Kanban"}}

        """)
    try project.write("templates/labels.json", "{\n  \"en\": {\"bord\": \"Kanban\"}\n}")
    let misspelled = project.build()
    #expect(misspelled.status == 1)
    #expect(
      misspelled.stderr.hasPrefix(
        "error: \(project.templates)/labels.json:2:10: unknown label 'bord' in 'en'; did you mean"
          + " 'board'?\n"))
  }

  @Test("a locale of labels.json alone: --locale fr with an fr table gives French pages")
  func addedLocale() throws {
    let project = try InitProject()
    let missing = project.build(["--locale", "fr"])
    #expect(missing.status == 64)
    #expect(
      missing.stderr
        == "error: no labels for the locale 'fr': the locales are 'en', 'ja' (built in); add a"
        + " \"fr\" table of labels to labels.json in the templates folder\n")
    try project.write("templates/labels.json", #"{"fr": {"board": "Tableau", "tasks": "Tâches"}}"#)
    let result = project.build(["--locale", "fr"])
    #expect(result.status == 0)
    #expect(
      result.stderr.hasPrefix("warning: \(project.templates)/labels.json: 'fr' has no text for"))
    let board = try project.page("board.html")
    #expect(board.contains("<html lang=\"fr\">"))
    #expect(board.contains("<h1>Tableau</h1>"))
  }

  @Test("taskpress.json with a missing comma says the line and column")
  func missingComma() throws {
    let project = try InitProject()
    try project.write(
      "taskpress.json", "{\n  \"todos\": \"todo.sqlite\"\n  \"templates\": \"templates\"\n}\n")
    let result = project.build()
    #expect(result.status == 64)
    #expect(
      result.stderr
        == "error: \(project.config):3:3: not valid JSON: expected ',' or '}' in an object\n")
  }

  @Test("taskpress.json with two misspelled keys reports both, each with its suggestion")
  func twoMisspelledKeys() throws {
    let project = try InitProject()
    try project.write(
      "taskpress.json",
      "{\n  \"todos\": \"todo.sqlite\",\n  \"templtes\": \"templates\",\n  \"ouput\": \"site\"\n}\n"
    )
    let result = project.build()
    #expect(result.status == 64)
    #expect(
      result.stderr == """
        error: \(project.config):3:3: unknown key 'templtes'; did you mean 'templates'?
        error: \(project.config):4:3: unknown key 'ouput'; did you mean 'output'?

        """)
  }

  @Test("top-level hints name only commands and options that exist")
  func topLevelHints() {
    let cases = [
      ("-v", "unknown option '-v'; did you mean '--version'?"),
      ("--verison", "unknown option '--verison'; did you mean '--version'?"),
      (
        "--strict",
        "unknown option '--strict'; options come after the subcommand, e.g. 'taskpress build --strict'"
      ),
      (
        "-o",
        "unknown option '-o'; options come after the subcommand, e.g. 'taskpress build --output'"
      ),
      ("--ouput", "unknown option '--ouput'; did you mean 'taskpress build --output'?"),
      ("-x", "unknown option '-x'; a subcommand comes first: see 'taskpress --help'"),
    ]
    for (option, message) in cases {
      let result = runTaskpress([option])
      #expect(result.status == 64)
      #expect(
        result.stderr
          == "error: \(message)\nusage: taskpress <subcommand>\n  See 'taskpress --help' for the subcommands.\n"
      )
      // What a hint suggests is itself accepted (or asks for a value), never another error.
      if let range = message.range(
        of: #"'taskpress [a-z]+ --[a-z-]+'"#, options: .regularExpression)
      {
        let words = message[range].dropFirst().dropLast().split(separator: " ").dropFirst().map(
          String.init)
        #expect(!runTaskpress(words).stderr.contains("unknown option"), "\(words)")
      }
    }
  }

  @Test("contacts sort and get their letter without leading spaces, case or accents")
  func contactNames() throws {
    let project = try InitProject(contacts: ["  Zoë", "émile", "Adam", "Emma"])
    let result = project.build()
    #expect(result.status == 0, "\(result.stderr)")
    let list = try project.page("contacts/index.html")
    let names = list.components(separatedBy: "<li data-name=\"").dropFirst().map {
      String($0.prefix { $0 != "\"" })
    }
    #expect(names == ["Adam", "émile", "Emma", "  Zoë"])
    #expect(
      list.contains(
        ##"<a href="#letter-A">A</a> <a href="#letter-E">E</a> <a href="#letter-Z">Z</a>"##))
  }
}

/// `--locale ja` and a German table: pages that read naturally, with their `lang`.
@Suite struct LocalePagesTests {
  /// A complete German table, as a team would add it.
  static let german = """
    {"de": {
      "siteTitle": "Aufgabenbericht", "tasks": "Aufgaben", "board": "Board",
      "possessions": "Gegenstände", "contacts": "Kontakte", "high": "Hoch", "medium": "Mittel",
      "low": "Niedrig", "priorityOther": "Priorität {n}", "noPriority": "Keine Priorität",
      "priority": "Priorität", "status": "Status", "complete": "Erledigt",
      "inProgress": "In Arbeit", "previous": "Zurück", "next": "Weiter", "page": "Seite",
      "pages": "Seiten", "of": "von", "task": "Aufgabe", "photo": "Foto",
      "photoOf": "Foto von {name}", "noPhoto": "Kein Foto", "description": "Beschreibung",
      "name": "Name", "address": "Adresse", "phone": "Telefon",
      "searchByName": "Nach Namen suchen", "search": "Suchen",
      "noMatches": "Kein Kontakt passt zu diesem Namen.", "notFound": "Seite nicht gefunden",
      "notFoundText": "Unter dieser Adresse gibt es keine Seite.",
      "backHome": "Zurück zur Aufgabenliste", "skipToContent": "Zum Inhalt springen",
      "mainNavigation": "Hauptnavigation", "summary": "Übersicht", "total": "gesamt",
      "empty": "Noch nichts hier.", "generated": "Erstellt am", "data": "Daten",
      "pagination": "Seitennavigation",
      "countsSummary": "{total} gesamt · {inProgress} in Arbeit · {complete} erledigt",
      "pageOf": "Seite {current} von {total}", "pageNumber": "Seite {n}",
      "date": "{dd}.{mm}.{year}", "progress": "Fortschritt",
      "progressSummary": "{complete} von {total} erledigt ({percent} %)",
      "byPriority": "Nach Priorität und Status",
      "chartRow": "{priority}: {inProgress} in Arbeit, {complete} erledigt",
      "trend": "In Arbeit und erledigt über die Builds",
      "trendPoint": "{date}: {inProgress} in Arbeit, {complete} erledigt",
      "thisBuild": "Dieser Build", "numbers": "Die Zahlen", "andMore": "und {count} weitere",
      "otherPriorities": "Andere Prioritäten", "backToPossessions": "Zurück zu den Gegenständen",
      "backToContacts": "Zurück zu den Kontakten", "buildDate": "Datum"
    }}
    """

  @Test("--locale ja: counts, pages, dates and the board in natural Japanese")
  func japanese() throws {
    let project = try InitProject()
    let result = runTaskpress(
      ["build", "--config", project.config, "--quiet", "--locale", "ja", "--page-size", "2"],
      environment: ["SOURCE_DATE_EPOCH": "1796083200"])
    #expect(result.status == 0, "\(result.stderr)")
    let index = try project.page("index.html")
    #expect(index.contains("<html lang=\"ja\">"))
    #expect(index.contains("<p class=\"counts\">合計 3件・進行中 2件・完了 1件</p>"))
    #expect(index.contains("<p class=\"progress-summary\">3件中 1件完了（33%）</p>"))
    #expect(index.contains("1 / 2 ページ"))
    #expect(index.contains("<time datetime=\"2026-12-01\">2026年12月1日</time>"))
    #expect(try project.page("page/2.html").contains("<title>タスク · 2ページ目 · タスクレポート</title>"))
    let board = try project.page("board.html")
    #expect(
      board.contains(
        "<h2 id=\"column-in-progress\"><a href=\"status/in-progress/index.html\">進行中</a> <span class=\"count\">2</span></h2>"
      ))
    #expect(board.contains("<use href=\"#icon-high\"></use></svg>高</span>"))
  }

  @Test("a de table in labels.json gives German pages with lang=\"de\", with no warning")
  func german() throws {
    let project = try InitProject()
    try project.write("templates/labels.json", Self.german)
    let result = runTaskpress(
      ["build", "--config", project.config, "--locale", "de", "--quiet"],
      environment: ["SOURCE_DATE_EPOCH": "1796083200"])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    let index = try project.page("index.html")
    #expect(index.contains("<html lang=\"de\">"))
    #expect(index.contains("<p class=\"counts\">3 gesamt · 2 in Arbeit · 1 erledigt</p>"))
    #expect(index.contains("<time datetime=\"2026-12-01\">01.12.2026</time>"))
    #expect(try project.page("todos/2.html").contains("Priorität: <strong>Hoch</strong>"))
  }
}

/// The contact list's search field, run by node over a stand-in for the page's elements.
@Suite struct ContactSearchTests {
  /// The names search.js shows after typing `query` into its field, for `names`.
  static func shown(_ names: [String], typing query: String) throws -> [String] {
    let script = try #require(BuiltinTheme.files["assets/search.js"])
    let folder = try makeTemporaryFolder()
    let json = { (text: String) in
      "\""
        + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
          of: "\"", with: "\\\"") + "\""
    }
    let program = """
      function element(attributes) {
        return {
          attributes: attributes, hidden: false, children: [], listeners: {},
          getAttribute: function (name) { return this.attributes[name]; },
          setAttribute: function (name, value) { this.attributes[name] = value; },
          appendChild: function (child) { this.children.push(child); },
          addEventListener: function (type, f) { this.listeners[type] = f; },
          querySelector: function () { return null; },
        };
      }
      var host = element({"data-label": "Search", "data-empty": "None"});
      var items = [\(names.map { "element({\"data-name\": \(json($0))})" }.joined(separator: ", "))];
      var input;
      global.document = {
        getElementById: function () { return host; },
        createElement: function (tag) { var made = element({}); if (tag === "input") input = made; return made; },
        querySelectorAll: function (selector) { return selector === "li[data-name]" ? items : []; },
      };
      require("./search.js");
      input.value = \(json(query));
      input.listeners.input();
      console.log(JSON.stringify(items.filter(function (i) { return !i.hidden; }).map(function (i) { return i.attributes["data-name"]; })));
      """
    try script.write(toFile: folder + "/search.js", atomically: true, encoding: .utf8)
    try program.write(toFile: folder + "/run.js", atomically: true, encoding: .utf8)
    let node = try TestEnvironment.requireTool(
      "node", candidates: nodes, install: "apt-get install nodejs")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: node)
    process.arguments = [folder + "/run.js"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return try JSONDecoder().decode([String].self, from: data)
  }

  static let nodes = ["/usr/bin/node", "/usr/local/bin/node", "/usr/bin/nodejs"]

  @Test(
    "typing 'emile' finds Émile: the search ignores case and accents (NFKD)",
    TestEnvironment.needs("node", candidates: nodes, install: "apt-get install nodejs"))
  func accents() throws {
    let names = ["Émile Zola", "emilie", "Chloë", "Ｅｍｉｌｙ", "Bob"]
    #expect(try Self.shown(names, typing: "emil") == ["Émile Zola", "emilie", "Ｅｍｉｌｙ"])
    #expect(try Self.shown(names, typing: "  CHLOE ") == ["Chloë"])
    #expect(try Self.shown(names, typing: "Émile") == ["Émile Zola"])
  }
}
