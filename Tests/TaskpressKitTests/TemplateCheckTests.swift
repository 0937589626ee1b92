import Foundation
import Mustache
import Testing

@testable import TaskpressKit

/// A templates folder of a few files over the built-in theme, checked as a build loads it.
struct ThemeFolder {
  let path: String

  init(_ files: [String: String]) throws {
    path = NSTemporaryDirectory() + "taskpress-theme-" + UUID().uuidString
    for (name, text) in files {
      let file = path + "/" + name
      try FileManager.default.createDirectory(
        atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try text.write(toFile: file, atomically: true, encoding: .utf8)
    }
  }

  /// The warnings of the check, as printed.
  func check() throws -> [String] {
    var check = TemplateCheck(theme: try Theme.load(overrides: path))
    return try check.run().map(\.description)
  }

  /// The errors of the check, one a line; empty when it passes.
  func errors() throws -> [String] {
    do {
      _ = try check()
      return []
    } catch let error as ThemeError {
      return error.problems
    }
  }
}

@Suite struct TemplateCheckTests {
  @Test("the built-in theme sees only variables it has, and the check warns of nothing")
  func builtInTheme() throws {
    var check = TemplateCheck(theme: .builtIn)
    #expect(try check.run().isEmpty)
  }

  @Test("misspelled names in todo.md are errors with file, line, column and the closest name")
  func misspelledNames() throws {
    let theme = try ThemeFolder([
      "todo.md": """
      {{todo.titel}}
      ===

      - {{labels.priorty}}: **{{todo.priority.lable}}**
      """
    ])
    #expect(
      try theme.errors() == [
        "\(theme.path)/todo.md:1:1: unknown variable 'todo.titel'; did you mean 'todo.title'?",
        "\(theme.path)/todo.md:4:3: unknown variable 'labels.priorty'; did you mean 'labels.priority'?",
        "\(theme.path)/todo.md:4:25: unknown variable 'todo.priority.lable'; did you mean 'todo.priority.label'?",
      ])
  }

  @Test("sections push what they name, inverted sections push nothing, lower frames stay visible")
  func sections() throws {
    let good = try ThemeFolder([
      "index.md": """
      {{#groups}}{{label}} {{#todos}}{{title}} {{priority.label}} {{labels.tasks}}{{/todos}}{{/groups}}
      {{^groups}}{{labels.empty}}{{/groups}}{{#pagination.previous}}{{.}}{{/pagination.previous}}
      """
    ])
    #expect(try good.errors().isEmpty)
    let bad = try ThemeFolder([
      "index.md": "{{#groups}}{{#todos}}{{titel}}{{/todos}}{{/groups}}"
        + "{{^groups}}{{label}}{{/groups}}{{#grups}}{{x}}{{/grups}}"
    ])
    #expect(
      try bad.errors() == [
        // Inside a group's to-do: the to-do's names first.
        "\(bad.path)/index.md:1:22: unknown variable 'titel'; did you mean 'title'?",
        // An inverted section shows its content when there is no group, so no group's names.
        "\(bad.path)/index.md:1:63: unknown variable 'label'; did you mean 'labels'?",
        // A section of an unknown name is one error; what is inside it is not checked.
        "\(bad.path)/index.md:1:83: unknown variable 'grups'; did you mean 'groups'?",
      ])
  }

  @Test("a partial is checked where it is included; a name it resolves in any of them is fine")
  func partials() throws {
    // prevnext.md is included from todo.md and contact.md: `todo` exists only in the first.
    let shared = try ThemeFolder(["prevnext.md": "{{#previous}}{{title}}{{/previous}}{{todo.pk}}"])
    #expect(try shared.errors().isEmpty)
    let bad = try ThemeFolder([
      "prevnext.md": "{{#previous}}{{titl}}{{/previous}}",
      "todo.md": "{{> prevnext}}{{> prevnxt}}",
    ])
    #expect(
      try bad.errors() == [
        "\(bad.path)/prevnext.md:1:14: unknown variable 'titl'; did you mean 'title'?",
        "\(bad.path)/todo.md:1:15: partial 'prevnxt' not found; did you mean 'prevnext'?",
      ])
  }

  @Test("a partial that includes itself is checked, and the check ends")
  func recursivePartial() throws {
    let theme = try ThemeFolder([
      "nav.html": "{{#nav}}{{> nav}}{{lable}}{{> nav}}{{/nav}}{{^nav}}{{> nav}}{{> nav}}{{/nav}}"
    ])
    #expect(
      try theme.errors() == [
        "\(theme.path)/nav.html:1:18: unknown variable 'lable'; did you mean 'label'?"
      ])
  }

  @Test("inheritance: a parent is checked with the blocks given to it, in the caller's context")
  func inheritance() throws {
    let good = try ThemeFolder([
      "frame.md": "# {{$heading}}{{labels.tasks}}{{/heading}}\n{{$body}}{{/body}}",
      "todo.md": "{{<frame}}{{$heading}}{{todo.title}}{{/heading}}{{/frame}}",
    ])
    #expect(try good.errors().isEmpty)
    let bad = try ThemeFolder([
      "frame.md": "# {{$heading}}{{labels.tsks}}{{/heading}}\n{{$body}}{{todo.txt}}{{/body}}",
      "todo.md": "{{<frame}}{{$heading}}{{todo.titel}}{{/heading}}{{/frame}}",
    ])
    #expect(
      try bad.errors() == [
        // The default body is shown, so it is checked; the heading given replaces the default.
        "\(bad.path)/frame.md:2:10: unknown variable 'todo.txt'; did you mean 'todo.text'?",
        "\(bad.path)/todo.md:1:23: unknown variable 'todo.titel'; did you mean 'todo.title'?",
      ])
  }

  @Test("a dynamic partial's name is checked as a variable")
  func dynamicPartial() throws {
    let theme = try ThemeFolder(["todo.md": "{{> *page.knd}}"])
    #expect(
      try theme.errors() == [
        "\(theme.path)/todo.md:1:1: unknown variable 'page.knd'; did you mean 'page.kind'?"
      ])
  }

  @Test("'{{content}}' escaped in the layout is an error that says why; in a body, where it is")
  func escapedContent() throws {
    let layout = try #require(BuiltinTheme.files["layout.html"])
    let theme = try ThemeFolder([
      "layout.html": layout.replacingOccurrences(of: "{{{content}}}", with: "{{content}}"),
      "404.md": "{{{content}}}",
    ])
    // The line of the theme's own `{{{content}}}` (the tag starts its line).
    let line =
      try #require(layout.components(separatedBy: "{{{content}}}").first)
      .filter { $0 == "\n" }.count + 1
    #expect(
      try theme.errors() == [
        "\(theme.path)/404.md:1:1: unknown variable 'content'; only layout.html has the page's body,"
          + " as '{{{content}}}'",
        "\(theme.path)/layout.html:\(line):1: '{{content}}' escapes the page's HTML, so every page would"
          + " show its markup as text; write '{{{content}}}'",
      ])
  }

  @Test("a layout without '{{{content}}}', or with two, is a warning naming the file")
  func contentPlacements() throws {
    let layout = try #require(BuiltinTheme.files["layout.html"])
    let none = try ThemeFolder([
      "layout.html": layout.replacingOccurrences(of: "{{{content}}}", with: "")
    ])
    #expect(
      try none.check() == [
        "\(none.path)/layout.html: the layout has no '{{{content}}}', so every page would be"
          + " empty; put it where a page's body goes"
      ])
    let twice = try ThemeFolder([
      "layout.html": layout.replacingOccurrences(
        of: "{{{content}}}", with: "{{{content}}}{{& content}}")
    ])
    #expect(
      try twice.check() == [
        "\(twice.path)/layout.html: '{{{content}}}' is in the layout 2 times, so every page would"
          + " show its body 2 times; keep one"
      ])
  }

  @Test(
    "a file that overrides nothing is a warning with the closest name; partials of yours are used")
  func overridesNothing() throws {
    let theme = try ThemeFolder([
      "tdo.md": "{{todo.title}}",
      "footer.html": "{{site.title}}",
      "layout.html": "{{{content}}}{{> footer}}",
      "assets/extra.css": "p {}",
      "label.json": "{}",
    ])
    #expect(
      try theme.check() == [
        "\(theme.path)/tdo.md: overrides no file of the theme and no template includes it; did you"
          + " mean 'todo.md'?",
        "\(theme.path)/label.json: is not used: only templates (.html, .md), labels.json and"
          + " assets/ are; did you mean 'labels.json'?",
      ])
  }

  @Test("flow.html and report.html are overridable and checked: a misspelled name, a suggestion")
  func flowPages() throws {
    for (file, text, suggestion) in [
      ("flow.html", "{{#burnup}}{{svg}}{{/burnup}}{{#cycle}}{{medain}}{{/cycle}}", "median"),
      ("report.html", "{{#due}}{{#todos}}{{overdeu}}{{/todos}}{{/due}}", "overdue"),
      ("flow.html", "{{{burnup.svg}}}{{labels.flowBurnupp}}", "labels.flowBurnup"),
    ] {
      let theme = try ThemeFolder([file: text])
      let error = #expect(throws: ThemeError.self) { try theme.check() }
      #expect(error?.description.contains("did you mean '\(suggestion)'?") == true, "\(text)")
      #expect(error?.description.hasPrefix("\(theme.path)/\(file):1:") == true, "\(text)")
    }
    let theme = try ThemeFolder(["report.html": "{{#aging}}{{#todos}}{{title}}{{/todos}}{{/aging}}"]
    )
    #expect(try theme.check() == [])
    #expect(try Theme.load(overrides: theme.path).bodyTemplate("report") == "report.html")
  }

  @Test("a page template given as both .md and .html: the .md is ignored, with a warning")
  func bothExtensions() throws {
    let theme = try ThemeFolder(["todo.md": "{{todo.title}}", "todo.html": "{{todo.title}}"])
    #expect(
      try theme.check() == [
        "\(theme.path)/todo.md: ignored: 'todo.html' is in the same folder and is used instead (when"
          + " a page's template is there as both, the .html one is used); remove one of them"
      ])
    #expect(try Theme.load(overrides: theme.path).bodyTemplate("todo") == "todo.html")
  }

  @Test(
    "a build with a mistake in a template fails before reading anything; --strict fails on warnings"
  )
  func buildFails() throws {
    let site = try SiteFixture()
    let theme = try ThemeFolder(["tdo.md": "x"])
    var options = BuildOptions()
    options.todos = try site.database("todo.sqlite", todoTable)
    options.templates = theme.path
    try site.build(options)
    options.strict = true
    #expect(throws: BuildError("1 warning and --strict is set; the site was not changed")) {
      try site.build(options)
    }
    options.templates = try ThemeFolder(["board.html": "{{colums}}"]).path
    options.strict = false
    let error = #expect(throws: ThemeError.self) { try site.build(options) }
    #expect(
      error?.description
        == "\(try #require(options.templates))/board.html:1:1: unknown variable 'colums';"
        + " did you mean 'columns'?")
  }
}

/// `TemplateModel` against the values pages are rendered with: every name a page's values
/// answer is declared, and every name declared as always there is answered.
@Suite struct TemplateModelTests {
  static func context() -> PageContext {
    var data = SiteData()
    data.hasTodos = true
    data.hasPossessions = true
    data.hasContacts = true
    // Eight index pages: the window of page numbers has a gap.
    // Due dates: one overdue, one later, seven on one day (more than a day of calendar.html
    // lists), one that is not a date.
    data.hasDueDates = true
    let dues: [Int64: String] = [3: "2026-11-30", 4: "2027-01-05", 14: "soon"]
    data.todos = (1...15).map {
      Todo(
        pk: $0, text: "t\($0)", priority: $0 == 5 ? .other(7) : .high, complete: $0 == 2,
        due: dues[$0] ?? ((6...12).contains($0) ? "2026-12-24" : nil))
    }
    data.possessions = (1...3).map {
      Possession(id: $0, name: "p", description: "d", photo: nil)
    }
    data.contacts = (1...3).map { Contact(id: $0, name: "c\($0)", address: "a", phone: "p") }
    let plan = SitePlan(data: data, pageSize: 2, routes: Routes(prettyURLs: false))
    var context = PageContext(
      plan: plan, labels: .builtIn(.en), lang: "en", baseURL: "https://example.org",
      generated: "2026-12-01",
      photoFiles: [1: PageContext.PhotoFile(path: "photos/a.png", width: 10, height: 20)])
    // A record of changes with a change of each shape: linked, with from and to, removed.
    let changes = [
      Change(source: .todos, change: .priority, id: 1, text: "t1", from: "Low", to: "High"),
      Change(source: .todos, change: .removed, id: 99, text: "gone"),
    ]
    var report = ChangeReport(
      feedID: "tag:example.org,2026:feed",
      history: [
        HistoryEntry(
          build: 1, date: nil, changes: 0,
          todos: TodoCounts(data.todos.map { ($0.priority, $0.complete) }), possessions: 3,
          contacts: 3),
        HistoryEntry(build: 2, date: "2026-12-01T00:00:00Z", changes: 2, todos: nil),
      ],
      builds: [
        BuildChanges(
          build: 2, id: "tag:example.org,2026-12-01:build-2", date: "2026-12-01T00:00:00Z",
          counts: ["todo-priority": 1, "todo-removed": 1], changes: changes)
      ], changed: true)
    report.builds[0].changes[0].route = "todos/1"
    // Flow numbers with a dated and an undated point, a measured cycle time and an open to-do
    // of a dated and one of an undated first build.
    let counts = TodoCounts(data.todos.map { ($0.priority, $0.complete) })
    report.flow = FlowReport(
      date: "2026-12-01",
      points: [
        .init(
          build: 1, date: nil, scope: 15, done: 0, added: 15, removed: 0,
          byPriority: counts.byPriority),
        .init(
          build: 2, date: "2026-12-01", scope: 15, done: 1, added: 0, removed: 0,
          byPriority: counts.byPriority),
      ],
      cycleTime: .init(
        count: 1, median: 3, percentile85: 3, bins: FlowReport.binStarts.map { $0 == 3 ? 1 : 0 }),
      throughput: [.init(week: "2026-W49", completed: 1)],
      aging: [
        .init(pk: 1, first: 1, firstDate: nil, days: nil),
        .init(pk: 3, first: 2, firstDate: "2026-12-01", days: 0),
      ])
    context.changes = report
    return context
  }

  /// The pages of `context`'s plan, and those of its changes.
  static func pages(_ context: PageContext) -> [SitePlan.Page] {
    context.plan.pages + [.changes(1), .calendar, .flow, .report]
  }

  /// The differences between a value and its declared shape, as `path: problem`.
  static func differences(
    _ value: MustacheValue, _ shape: TemplateModel.Shape, at path: String
  ) -> [String] {
    switch (value, shape) {
    case (.array(let elements), .list(let element)):
      return elements.enumerated().flatMap { differences($1, element, at: "\(path)[\($0)]") }
    case (.list(let list), .list(let element)):
      return (0..<list.count).flatMap { differences(list[$0], element, at: "\(path)[\($0)]") }
    case (.object, .object(let fields)), (.computed, .object(let fields)):
      let answered: [String: MustacheValue]
      if case .object(let dictionary) = value {
        answered = dictionary
      } else if case .computed(let box) = value {
        answered = box.object.dictionary
      } else {
        answered = [:]
      }
      var found: [String] = []
      for key in answered.keys.sorted() where !fields.contains(where: { $0.name == key }) {
        found.append("\(path).\(key): answered, not declared")
      }
      for field in fields {
        if let inner = answered[field.name] {
          found += differences(inner, field.shape, at: "\(path).\(field.name)")
        } else if !field.isOptional {
          found.append("\(path).\(field.name): declared, not answered")
        }
      }
      return found
    case (.string, .scalar), (.utf8, .scalar), (.int, .scalar), (.bool, .scalar),
      (.double, .scalar):
      return []
    default:
      return ["\(path): \(value) is not \(shape)"]
    }
  }

  @Test("every page kind's values are what the model declares, names and shapes")
  func valuesMatchModel() {
    let context = Self.context()
    var kinds: Set<String> = []
    for page in Self.pages(context) {
      let kind = PageKind(page).name
      kinds.insert(kind)
      let values = context.values(for: page)
      values["content"] = .string("<p>body</p>")
      let shape = TemplateModel.Shape.object(
        TemplateModel.common + (TemplateModel.pages[kind] ?? []) + [TemplateModel.content])
      #expect(Self.differences(.computed(values), shape, at: kind) == [], "\(page)")
    }
    #expect(kinds == Set(PageKind.allCases.map(\.name)))
    #expect(Set(TemplateModel.pages.keys) == Set(PageKind.allCases.map(\.name)))
  }

  @Test("the optional names are there on some page of the fixture (so the test above reaches them)")
  func optionalNamesSeen() {
    let context = Self.context()
    var seen: Set<String> = []
    func collect(_ value: MustacheValue, _ path: String) {
      switch value {
      case .array(let elements):
        for element in elements { collect(element, path) }
      case .list(let list):
        for index in 0..<list.count { collect(list[index], path) }
      case .object(let dictionary):
        for (key, inner) in dictionary {
          seen.insert(path + "." + key)
          collect(inner, path + "." + key)
        }
      case .computed(let box):
        for (key, inner) in box.object.dictionary {
          seen.insert(path + "." + key)
          collect(inner, path + "." + key)
        }
      default: break
      }
    }
    for page in Self.pages(context) {
      collect(.computed(context.values(for: page)), "")
    }
    for name in [
      ".site.generated", ".site.generatedDate", ".site.baseURL", ".page.canonical", ".page.script",
      ".previous", ".next", ".todo.priority.number", ".possessions.photo", ".pagination.previous",
      ".pagination.next", ".pagination.pages.gap", ".site.calendar", ".site.calendar.webcal",
      ".overdue", ".months.weeks.days.more", ".months.weeks.days.todos.priority.number",
    ] {
      #expect(seen.contains(name), "\(name)")
    }
  }
}
