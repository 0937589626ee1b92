import Foundation
import Mustache
import Testing

@testable import TaskpressKit

@Suite struct ThemeTests {
  static let templates = URL(filePath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appending(path: "Templates").path

  @Test("the compiled-in theme is Templates/ exactly (run Scripts/embed-theme after a change)")
  func embeddedThemeIsCurrent() throws {
    var onDisk: [String: String] = [:]
    let enumerator = try #require(FileManager.default.enumerator(atPath: Self.templates))
    while let path = enumerator.nextObject() as? String {
      var isFolder: ObjCBool = false
      let full = Self.templates + "/" + path
      guard FileManager.default.fileExists(atPath: full, isDirectory: &isFolder),
        !isFolder.boolValue, path != "README.md"
      else { continue }
      onDisk[path] = try String(contentsOfFile: full, encoding: .utf8)
    }
    #expect(onDisk.keys.sorted() == BuiltinTheme.files.keys.sorted())
    let readme = try String(contentsOfFile: Self.templates + "/README.md", encoding: .utf8)
    #expect(BuiltinTheme.readme == readme, "README.md differs: run Scripts/embed-theme")
    for (path, text) in onDisk {
      #expect(BuiltinTheme.files[path] == text, "\(path) differs: run Scripts/embed-theme")
    }
  }

  @Test("a theme's partial is its name with the includer's extension, then its name as written")
  func partialRule() throws {
    let templates = try ThemeTemplates(theme: .builtIn).partials
    #expect(
      templates.partial(named: "nav", includedFrom: "(built-in)/layout.html")?.name
        == "(built-in)/nav.html")
    #expect(
      templates.partial(named: "nav.html", includedFrom: "(built-in)/todo.md")?.name
        == "(built-in)/nav.html")
    #expect(templates.partial(named: "nav", includedFrom: "(built-in)/todo.md") == nil)
  }

  @Test("every body template of the theme exists and parses")
  func bodiesParse() throws {
    let theme = Theme.builtIn
    for kind in PageKind.allCases {
      let path = try theme.bodyTemplate(kind.name)
      #expect(path == kind.name + ".html" || path == kind.name + ".md")
    }
    let templates = try ThemeTemplates(theme: theme)
    #expect(templates.pairs.map(\.layout.name).allSatisfy { $0 == "(built-in)/layout.html" })
  }

  @Test("a missing templates folder and a file given as one are errors naming them")
  func badTemplatesFolder() throws {
    #expect(throws: ThemeError("/nonexistent/theme: no such templates folder")) {
      try Theme.load(overrides: "/nonexistent/theme")
    }
    let file = NSTemporaryDirectory() + "taskpress-theme-\(UUID().uuidString)"
    try "x".write(toFile: file, atomically: true, encoding: .utf8)
    #expect(throws: ThemeError("\(file): the templates path is a file, not a folder")) {
      try Theme.load(overrides: file)
    }
  }

  @Test("init writes the theme and a config, and refuses to overwrite")
  func scaffold() throws {
    let folder = NSTemporaryDirectory() + "taskpress-init-\(UUID().uuidString)"
    let written = try Scaffold.write(into: folder)
    #expect(written.contains("taskpress.json"))
    #expect(written.contains("templates/layout.html"))
    #expect(written.count == BuiltinTheme.files.count + 2)
    #expect(written.contains("templates/README.md"))
    let layout = try String(contentsOfFile: folder + "/templates/layout.html", encoding: .utf8)
    #expect(layout == BuiltinTheme.files["layout.html"])
    try "mine".write(toFile: folder + "/templates/todo.md", atomically: true, encoding: .utf8)
    #expect(
      throws: BuildError(
        "\(folder)/taskpress.json: already exists; init writes into a new or empty folder and never overwrites"
      )
    ) { try Scaffold.write(into: folder) }
    #expect(try String(contentsOfFile: folder + "/templates/todo.md", encoding: .utf8) == "mine")
  }
}
