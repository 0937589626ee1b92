import Foundation
import Testing

@testable import TaskpressCLI

@Suite struct RenderCommandTests {
  func write(_ text: String, to path: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
  }

  @Test("renders with the data file and partials beside the template") func renders() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try write("# {{title}}\n\n{{> footer}}", to: folder.path + "/page.md")
    try write("by {{author}}", to: folder.path + "/footer.md")
    try write(#"{"title": "A*B", "author": "<me>"}"#, to: folder.path + "/data.json")
    let command = RenderCommand(
      template: folder.path + "/page.md", data: folder.path + "/data.json", partials: nil)
    #expect(try command.run() == "# A\\*B\n\nby \\<me\\>")
  }

  @Test("with no data file the data is an empty object") func noData() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try write("[{{missing}}]{{^missing}}none{{/missing}}", to: folder.path + "/t.html")
    let command = RenderCommand(template: folder.path + "/t.html", data: nil, partials: nil)
    #expect(try command.run() == "[]none")
  }

  @Test("partials come from --partials when given; missing ones render empty") func partials()
    throws
  {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try FileManager.default.createDirectory(
      atPath: folder.path + "/parts", withIntermediateDirectories: true)
    try write("<{{> a}}|{{> b}}>", to: folder.path + "/t.html")
    try write("A", to: folder.path + "/parts/a.html")
    let command = RenderCommand(
      template: folder.path + "/t.html", data: nil, partials: folder.path + "/parts")
    #expect(try command.run() == "<A|>")
  }

  @Test("a missing template names the file") func missingTemplate() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/x.html"
    let error = #expect(throws: RenderCommandError.self) {
      try RenderCommand(template: path, data: nil, partials: nil).run()
    }
    #expect(error?.description == "\(path): no such file")
  }

  @Test("invalid JSON names the data file, line and column") func invalidJSON() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try write("{{a}}", to: folder.path + "/t.html")
    try write("{\n  \"a\": 1,\n}", to: folder.path + "/data.json")
    let error = #expect(throws: RenderCommandError.self) {
      try RenderCommand(
        template: folder.path + "/t.html", data: folder.path + "/data.json", partials: nil
      ).run()
    }
    #expect(
      error?.description
        == "\(folder.path)/data.json:3:1: not valid JSON: expected a string key")
  }

  @Test("a template error names the template, line and column") func templateError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try write("line one\n  {{#items}}\n", to: folder.path + "/todo.md")
    let error = #expect(throws: (any Error).self) {
      try RenderCommand(template: folder.path + "/todo.md", data: nil, partials: nil).run()
    }
    #expect(
      error.map { "\($0)" } == "\(folder.path)/todo.md:2:3: section 'items' is never closed")
  }

  @Test("the folder of a template path") func folderOfPath() {
    #expect(RenderCommand.folder(of: "todo.md") == ".")
    #expect(RenderCommand.folder(of: "Templates/todo.md") == "Templates")
    #expect(RenderCommand.folder(of: "/todo.md") == "/")
  }
}
