import Foundation
import Testing

@testable import TaskpressKit

/// A page's templates come from the walk the template check makes: partials, parents and
/// dynamic names; where the set is not known, the page depends on every template.
@Suite("TemplateDependencyTests")
struct TemplateDependencyTests {
  static let index = """
    <h1>{{labels.tasks}}</h1>
    {{$body}}<p>{{counts.summary}}</p>{{/body}}
    <footer>FOOTER-1</footer>
    """
  static let list = """
    {{<index}}{{$body}}<ul>{{#todos}}{{> todo-item}}{{/todos}}</ul>{{/body}}{{/index}}
    """

  @Test("the templates of each kind: its body, the layout, their partials and parents")
  func templateSets() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    try writeFile(folder.sub("index.html"), Self.index)
    try writeFile(folder.sub("list.html"), Self.list)
    let theme = try Theme.load(overrides: folder.path)
    let sets = TemplateCheck.templateFiles(theme)
    let list = try #require(sets[PageKind.list.rawValue])
    #expect(list.isSuperset(of: ["list.html", "index.html", "todo-item.html", "layout.html"]))
    #expect(!list.contains("todo.md") && !list.contains("board.html"))
    let todo = try #require(sets[PageKind.todo.rawValue])
    #expect(!todo.contains("index.html") && !todo.contains("list.html"))
    // A dynamic name: the set is not known.
    try writeFile(folder.sub("list.html"), "{{>*list.title}}")
    let dynamic = TemplateCheck.templateFiles(try Theme.load(overrides: folder.path))
    #expect(dynamic[PageKind.list.rawValue] == nil)
    #expect(dynamic[PageKind.todo.rawValue] != nil)
  }

  @Test(
    "a list template whose parent is index.html: an edit of its footer rebuilds every list page")
  func parentTemplate() throws {
    let (_, rebuild) = try IncrementalTests.expectSameAsCold(
      "a parent template",
      setUp: { inputs in
        try inputs.writeTemplate("index.html", Self.index)
        try inputs.writeTemplate("list.html", Self.list)
      },
      change: { inputs in
        try inputs.writeTemplate(
          "index.html", Self.index.replacingOccurrences(of: "FOOTER-1", with: "FOOTER-2"))
      })
    let lists = rebuild.writtenPaths.filter { !$0.hasPrefix("todos/") && $0.contains("/") }
    #expect(!lists.isEmpty, "\(rebuild.writtenPaths)")
  }

  @Test("a dynamic partial: the page depends on every template")
  func dynamicPartial() throws {
    try IncrementalTests.expectSameAsCold(
      "a dynamic partial",
      setUp: { inputs in
        // `list.kind` is `status` or `priority`: the partial is named by the page's values.
        try inputs.writeTemplate("list.html", "<h1>{{list.title}}</h1>{{>*list.kind}}")
        try inputs.writeTemplate("status.html", "<p>STATUS</p>")
        try inputs.writeTemplate("priority.html", "<p>PRIORITY-1</p>")
      },
      change: { inputs in
        try inputs.writeTemplate("priority.html", "<p>PRIORITY-2</p>")
      })
  }
}
