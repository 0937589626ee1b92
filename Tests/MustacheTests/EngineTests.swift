import Foundation
import Testing

@testable import Mustache

@Suite struct EngineTests {
  @Test(
    "escaping is chosen by the template's extension",
    arguments: [
      ("todo.md", Escaping.markdown), ("Templates/page.MD", .markdown), ("a.markdown", .markdown),
      ("layout.html", .html), ("x.txt", .html), ("noextension", .html), (".md", .html),
      ("dir.md/file", .html),
    ])
  func escapingForPath(_ path: String, _ escaping: Escaping) {
    #expect(Escaping(forPath: path) == escaping)
  }

  @Test("HTML escaping escapes & < > \" and '") func htmlEscaping() {
    #expect(
      Escaping.html.escape(#"<a href="x">Tom & 'Jerry'</a>"#)
        == "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;")
  }

  @Test(
    "Markdown escaping",
    arguments: [
      ("# Title", "\\# Title"),
      ("1. one", "1\\. one"),
      ("a\nb", "a\\\nb"),
      ("a\r\nb\rc", "a\\\nb\\\nc"),
      ("    code", "&#32;&#32;&#32;&#32;code"),
      ("a\n  - b", "a\\\n&#32;&#32;\\- b"),
      ("trailing  \nx", "trailing&#32;&#32;\\\nx"),
      ("end\n\n", "end"),
      ("tab\there", "tab\there"),
      ("\u{202E}é", "\u{202E}é"),
      ("{{x}}", "\\{\\{x\\}\\}"),
      ("a\u{0}b\u{7}", "a&#65533;b\u{2407}"),
      ("\u{1B}[31m\u{7F}\u{C}", "\u{241B}\\[31m\u{2421}&#12;"),
      ("\u{85}\u{9F}\u{A0}", "\u{FFFD}\u{FFFD}\u{A0}"),
    ])
  func markdownEscaping(_ value: String, _ escaped: String) {
    #expect(Escaping.markdown.escape(value) == escaped)
  }

  @Test(
    "HTML escaping: markup characters as references, forbidden code points as symbols",
    arguments: [
      ("<a href='x'>&\"", "&lt;a href=&#39;x&#39;&gt;&amp;&quot;"),
      ("tab\there\nline\r\nff\u{C}", "tab\there\nline\r\nff\u{C}"),
      ("a\u{0}b\u{7}\u{B}\u{1B}\u{7F}", "a\u{FFFD}b\u{2407}\u{240B}\u{241B}\u{2421}"),
      ("\u{80}\u{9F}\u{A0}é", "\u{FFFD}\u{FFFD}\u{A0}é"),
    ])
  func htmlEscaping(_ value: String, _ escaped: String) {
    #expect(Escaping.html.escape(value) == escaped)
  }

  @Test("noncharacters become U+FFFD; their neighbours stay")
  func noncharacters() throws {
    func text(_ code: UInt32) throws -> String {
      "a" + String(Character(try #require(Unicode.Scalar(code)))) + "b"
    }
    for code: UInt32 in [0xFDD0, 0xFDEF, 0xFFFE, 0xFFFF, 0x1FFFE, 0x2FFFF, 0x10FFFE, 0x10FFFF] {
      #expect(Escaping.html.escape(try text(code)) == "a\u{FFFD}b", "\(code)")
      #expect(Escaping.markdown.escape(try text(code)) == "a\u{FFFD}b", "\(code)")
    }
    for code: UInt32 in [0xFDCF, 0xFDF0, 0xFFFD, 0x1EFFE, 0x1FFFD, 0x10FFFD] {
      #expect(Escaping.html.escape(try text(code)) == (try text(code)), "\(code)")
      #expect(Escaping.markdown.escape(try text(code)) == (try text(code)), "\(code)")
    }
  }

  @Test("triple mustache and ampersand never escape") func unescaped() throws {
    let template = try Template(source: "{{x}}|{{{x}}}|{{& x}}", name: "page.md")
    #expect(try template.render(["x": "*a*"]) == "\\*a\\*|*a*|*a*")
  }

  @Test("standalone partials indent every line of the partial, not the values") func indent()
    throws
  {
    let template = try Template(source: "<ul>\n  {{> item}}\n</ul>\n", name: "list.html")
    let partials = try DictionaryPartialResolver(sources: [
      "item.html": "{{#items}}\n<li>\n  {{text}}\n</li>\n{{/items}}\n"
    ])
    let output = try template.render(
      ["items": [["text": "a\nb"], ["text": "c"]]], partials: partials)
    #expect(output == "<ul>\n  <li>\n    a\nb\n  </li>\n  <li>\n    c\n  </li>\n</ul>\n")
  }

  @Test("a partial uses the including template's extension") func partialExtension() throws {
    let partials = try DictionaryPartialResolver(sources: [
      "note.md": "*{{text}}*", "note.html": "<em>{{text}}</em>",
    ])
    let data: MustacheValue = ["text": "a<b"]
    let markdown = try Template(source: "{{> note}}", name: "todo.md")
    let html = try Template(source: "{{> note}}", name: "layout.html")
    #expect(try markdown.render(data, partials: partials) == "*a\\<b*")
    #expect(try html.render(data, partials: partials) == "<em>a&lt;b</em>")
  }

  @Test("a layout with blocks, a section and a partial") func layout() throws {
    let partials = try DictionaryPartialResolver(sources: [
      "layout.html":
        "<title>{{$title}}Tasks{{/title}}</title>\n<main>\n  {{$body}}{{/body}}\n</main>\n",
      "row.html": "<li>{{text}}</li>\n",
    ])
    let page = try Template(
      source: """
        {{<layout}}
        {{$title}}{{name}}{{/title}}
        {{$body}}
        {{#todos}}
        {{> row}}
        {{/todos}}
        {{/body}}
        {{/layout}}
        """, name: "index.html")
    let data: MustacheValue = [
      "name": "Home & Away", "todos": [["text": "milk"], ["text": "eggs"]],
    ]
    let output = try page.render(data, partials: partials)
    #expect(
      output
        == "<title>Home &amp; Away</title>\n<main>\n  <li>milk</li>\n  <li>eggs</li>\n\n</main>\n")
  }

  @Test("the directory resolver reads, caches and refuses paths out of its folder")
  func directoryResolver() throws {
    let folder = NSTemporaryDirectory() + "mustache-test-" + UUID().uuidString
    try FileManager.default.createDirectory(
      atPath: folder + "/sub", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try Data("[{{x}}]".utf8).write(to: URL(fileURLWithPath: folder + "/part.html"))
    try Data("<{{x}}>".utf8).write(to: URL(fileURLWithPath: folder + "/sub/deep.html"))
    try Data("secret".utf8).write(to: URL(fileURLWithPath: folder + "/../secret.html"))
    defer { try? FileManager.default.removeItem(atPath: folder + "/../secret.html") }
    let resolver = DirectoryPartialResolver(directory: folder)
    let template = try Template(
      source: "{{> part}}{{> sub/deep}}{{>*name}}{{> missing}}", name: "page.html")
    let data: MustacheValue = ["x": "&", "name": "../secret"]
    #expect(try template.render(data, partials: resolver) == "[&amp;]<&amp;>")
    // A cached partial is not read again.
    try FileManager.default.removeItem(atPath: folder + "/part.html")
    #expect(try template.render(data, partials: resolver) == "[&amp;]<&amp;>")
    let strict = #expect(throws: TemplateError.self) {
      try template.render(data, partials: resolver, missingPartials: .throwError)
    }
    #expect(strict?.description == "page.html:1:25: partial '../secret' not found")
  }

  @Test("renders concurrently from many threads with one shared template and resolver")
  func concurrentRendering() async throws {
    let template = try Template(source: "{{#items}}{{> item}}{{/items}}", name: "list.html")
    let partials = try DictionaryPartialResolver(sources: ["item.html": "<{{.}}>"])
    let outputs = try await withThrowingTaskGroup(of: String.self) { group in
      for task in 0..<16 {
        group.addTask {
          let items = MustacheValue.array((0..<100).map { .int(Int64($0 + task)) })
          return try template.render(["items": items], partials: partials)
        }
      }
      var outputs: [String] = []
      for try await output in group { outputs.append(output) }
      return outputs
    }
    #expect(outputs.count == 16)
    #expect(Set(outputs).count == 16)
  }

  @Test("a render buffer is appended to, emptied and reused with the same results")
  func renderBufferReuse() throws {
    let template = try Template(source: "<p>{{a}}</p>{{#list}}[{{.}}]{{/list}}", name: "x.html")
    let buffer = RenderBuffer(capacity: 8)
    let values: [MustacheValue] = [
      ["a": "<", "list": [1, 2]], ["a": "a longer text, past the room it started with"], [:],
    ]
    for value in values {
      buffer.removeAll()
      #expect(buffer.count == 0)
      try template.render(value, appendingTo: buffer)
      #expect(String(decoding: buffer.bytes, as: UTF8.self) == (try template.render(value)))
    }
    // Without emptying, a render appends.
    let before = Array(buffer.bytes)
    try template.render(["a": "b"], appendingTo: buffer)
    #expect(Array(buffer.bytes) == before + Array("<p>b</p>".utf8))
  }

  @Test("rendering into bytes appends") func renderIntoBytes() throws {
    let template = try Template(source: "{{a}}", name: "x.html")
    var output = Array("start:".utf8)
    try template.render(["a": "<"], into: &output)
    #expect(String(decoding: output, as: UTF8.self) == "start:&lt;")
  }
}
