import Foundation
import TestFixtures
import Testing

@testable import TaskpressCLI
@testable import TaskpressKit

@Suite struct CheckCommandTests {
  @Test("check exits 0 on a site whose links all resolve")
  func clean() throws {
    let folder = try makeTemporaryFolder()
    try #"<a href="b.html">b</a>"#.write(
      toFile: folder + "/a.html", atomically: true, encoding: .utf8)
    try #"<a href="a.html">a</a>"#.write(
      toFile: folder + "/b.html", atomically: true, encoding: .utf8)
    let result = runTaskpress(["check", folder])
    #expect(result.status == 0)
    #expect(result.stdout == "2 pages, 2 links: every link resolves\n")
  }

  @Test("check exits 1 listing each broken link with its page")
  func broken() throws {
    let folder = try makeTemporaryFolder()
    try #"<a href="gone.html">x</a><img src="img/p.png" alt="">"#.write(
      toFile: folder + "/index.html", atomically: true, encoding: .utf8)
    let result = runTaskpress(["check", folder])
    #expect(result.status == 1)
    #expect(
      result.stderr == """
        error: \(folder)/index.html: 'gone.html' does not resolve: no file 'gone.html' in the site
        error: \(folder)/index.html: 'img/p.png' does not resolve: no file 'img/p.png' in the site
        2 broken links in 1 page, 2 links

        """)
  }

  @Test("check on a missing folder names it")
  func missing() throws {
    let folder = try makeTemporaryFolder() + "/nope"
    let result = runTaskpress(["check", folder])
    #expect(result.status == 1)
    #expect(
      result.stderr == "error: \(folder): no such folder; build the site first or name its folder\n"
    )
  }
}

@Suite struct InitCommandTests {
  @Test("init writes the theme and a config, then refuses to overwrite them")
  func initTwice() throws {
    let folder = try makeTemporaryFolder() + "/mysite"
    let first = runTaskpress(["init", folder])
    #expect(first.status == 0)
    #expect(
      first.stdout == """
        wrote \(BuiltinTheme.files.count + 2) files into \(folder)
        next: edit \(folder)/taskpress.json (the databases to read), change the templates in \
        \(folder)/templates/, then run 'taskpress build --config \(folder)/taskpress.json'

        """)
    #expect(FileManager.default.fileExists(atPath: folder + "/templates/layout.html"))
    #expect(FileManager.default.fileExists(atPath: folder + "/taskpress.json"))
    let second = runTaskpress(["init", folder])
    #expect(second.status == 1)
    #expect(
      second.stderr
        == "error: \(folder)/taskpress.json: already exists; init writes into a new or empty"
        + " folder and never overwrites\n")
  }

  @Test(
    "init into a folder that holds one of its files writes nothing",
    arguments: ["taskpress.json", "templates/todo.md"])
  func oneFileExists(existing: String) throws {
    let folder = try makeTemporaryFolder() + "/mysite"
    let path = folder + "/" + existing
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data("mine\n".utf8).write(to: URL(filePath: path))
    let result = runTaskpress(["init", folder])
    #expect(result.status == 1)
    #expect(result.stdout.isEmpty)
    #expect(
      result.stderr
        == "error: \(path): already exists; init writes into a new or empty folder and never"
        + " overwrites\n")
    let left = FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]
    let expected = existing == "taskpress.json" ? [existing] : ["templates", existing]
    #expect(left?.sorted() == expected)
    #expect(FileManager.default.contents(atPath: path) == Data("mine\n".utf8))
  }

  @Test("the config init writes builds with the theme init wrote")
  func initThenBuild() throws {
    let folder = try makeTemporaryFolder()
    #expect(runTaskpress(["init", folder]).status == 0)
    var layout = try String(contentsOfFile: folder + "/templates/layout.html", encoding: .utf8)
    layout = layout.replacingOccurrences(of: "<main", with: "<!-- mine --><main")
    try layout.write(toFile: folder + "/templates/layout.html", atomically: true, encoding: .utf8)
    try buildWithSampleTodos(folder)
    let index = try String(contentsOfFile: folder + "/site/index.html", encoding: .utf8)
    #expect(index.contains("<!-- mine --><main"))
  }

  /// Builds the site `init` configured in `folder`, with a real to-do database from the corpus.
  private func buildWithSampleTodos(_ folder: String) throws {
    try FileManager.default.copyItem(
      atPath: SampleDatabases.path("IdeaCore_todo_13e068b_todo.sqlite"),
      toPath: folder + "/todo.sqlite")
    let result = runTaskpress(["build", "--config", folder + "/taskpress.json", "--quiet"])
    #expect(result.status == 0, "\(result.stderr)")
  }

  @Test("a layout reading a page's values inside the navigation shows each page's own")
  func pageValuesInSharedLoops() throws {
    // The parts of the layout that show only the site, the labels and the folder's links are
    // rendered once per folder; a loop over the navigation that reads the page is not one.
    let folder = try makeTemporaryFolder()
    #expect(runTaskpress(["init", folder]).status == 0)
    try """
    <title>{{page.title}}</title>
    <nav>{{#nav}}[{{label}}: {{page.title}}{{#current}} (here){{/current}}]{{/nav}}</nav>
    <footer>{{#data}}{{name}}={{last}};{{/data}} {{site.title}}</footer>
    {{{content}}}
    """.write(toFile: folder + "/templates/layout.html", atomically: true, encoding: .utf8)
    try buildWithSampleTodos(folder)
    let pages = try FileManager.default.contentsOfDirectory(atPath: folder + "/site/todos")
    #expect(pages.count > 1)
    var titles: Set<String> = []
    for page in pages {
      let html = try String(contentsOfFile: folder + "/site/todos/" + page, encoding: .utf8)
      let title = try #require(html.split(separator: "\n").first)
        .replacingOccurrences(of: "<title>", with: "").replacingOccurrences(
          of: "</title>", with: "")
      titles.insert(title)
      #expect(
        html.contains(
          "<nav>[Tasks: \(title) (here)][Board: \(title)][Flow: \(title)][Changes: \(title)]</nav>"
        ),
        "\(page)")
      #expect(html.contains("<footer>todos.json=false;todos.csv=true; "), "\(page)")
    }
    #expect(titles.count == pages.count)
  }
}
