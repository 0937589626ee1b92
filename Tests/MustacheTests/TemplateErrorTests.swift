import Testing

@testable import Mustache

@Suite struct TemplateErrorTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var source: String
    var message: String
    var testDescription: String { message }
  }

  static let cases: [Case] = [
    Case(
      source: "# Todo\n\n{{#items}}\n  - {{text}}\n",
      message: "Templates/todo.md:3:1: section 'items' is never closed"),
    Case(
      source: "a\n    {{^empty}}none",
      message: "Templates/todo.md:2:5: section 'empty' is never closed"),
    Case(
      source: "{{#a}}\n  {{#b}}x{{/a}}",
      message: "Templates/todo.md:2:10: closing tag 'a' does not match open section 'b'"),
    Case(
      source: "{{<layout}}{{$body}}x{{/layout}}",
      message: "Templates/todo.md:1:22: closing tag 'layout' does not match open section 'body'"),
    Case(
      source: "ok\n{{/items}}",
      message: "Templates/todo.md:2:1: closing tag 'items' has no open section"),
    Case(
      source: "line 1\nline 2 {{title",
      message: "Templates/todo.md:2:8: tag is never closed; expected '}}'"),
    Case(
      source: "{{{raw}}",
      message: "Templates/todo.md:1:1: tag is never closed; expected '}}}'"),
    Case(
      source: "{{=<% %>=}}\n<%name",
      message: "Templates/todo.md:2:1: tag is never closed; expected '%>'"),
    Case(
      source: "é {{= =}}",
      message:
        "Templates/todo.md:1:3: bad delimiter change '{{= =}}'; write two delimiters, e.g. '{{=<% %>=}}'"
    ),
    Case(
      source: "{{=<% %> x=}}",
      message:
        "Templates/todo.md:1:1: bad delimiter change '{{=<% %> x=}}'; write two delimiters, e.g. '{{=<% %>=}}'"
    ),
    Case(
      source: "{{=a= b=}}",
      message:
        "Templates/todo.md:1:1: bad delimiter change '{{=a= b=}}'; write two delimiters, e.g. '{{=<% %>=}}'"
    ),
    Case(source: "x {{ }}", message: "Templates/todo.md:1:3: empty tag name in '{{ }}'"),
    Case(source: "{{#}}{{/}}", message: "Templates/todo.md:1:1: empty tag name in '{{#}}'"),
    Case(source: "{{> * }}", message: "Templates/todo.md:1:1: empty tag name in '{{> * }}'"),
    Case(source: "{{{}}}", message: "Templates/todo.md:1:1: empty tag name in '{{{}}}'"),
  ]

  @Test("each parse error has its exact message", arguments: cases)
  func parseError(_ errorCase: Case) throws {
    let error = #expect(throws: TemplateError.self) {
      try Template(source: errorCase.source, name: "Templates/todo.md")
    }
    #expect(error?.description == errorCase.message)
  }

  @Test("the error carries kind, template, line and column") func fields() throws {
    let error = #expect(throws: TemplateError.self) {
      try Template(source: "\n\n  {{#items}}", name: "todo.md")
    }
    #expect(
      error == TemplateError(.unclosedSection("items"), template: "todo.md", line: 3, column: 3))
  }

  @Test("a missing partial is an error when strict, naming the template that asked")
  func missingPartialStrict() throws {
    let template = try Template(source: "<main>\n  {{> header}}\n</main>", name: "page.html")
    let partials = DictionaryPartialResolver(templates: [])
    let error = #expect(throws: TemplateError.self) {
      try template.render([:], partials: partials, missingPartials: .throwError)
    }
    #expect(error?.description == "page.html:2:3: partial 'header' not found")
    #expect(try template.render([:], partials: partials) == "<main>\n</main>")
  }

  @Test("a missing parent is an error when strict") func missingParentStrict() throws {
    let template = try Template(source: "{{<layout}}{{$a}}x{{/a}}{{/layout}}", name: "p.md")
    let error = #expect(throws: TemplateError.self) {
      try template.render([:], missingPartials: .throwError)
    }
    #expect(error?.description == "p.md:1:1: partial 'layout' not found")
  }

  @Test("a missing dynamic partial names the resolved name") func missingDynamicStrict() throws {
    let template = try Template(source: "{{#items}}{{>*kind}}{{/items}}", name: "list.html")
    let partials = try DictionaryPartialResolver(sources: ["text.html": "{{body}}"])
    let data: MustacheValue = ["items": [["kind": "text", "body": "a"], ["kind": "image"]]]
    let error = #expect(throws: TemplateError.self) {
      try template.render(data, partials: partials, missingPartials: .throwError)
    }
    #expect(error?.description == "list.html:1:11: partial 'image' not found")
    #expect(try template.render(data, partials: partials) == "a")
  }

  @Test("an error inside a partial names the partial's file") func errorInPartial() throws {
    let error = #expect(throws: TemplateError.self) {
      try DictionaryPartialResolver(sources: ["broken.html": "ok\n{{#x}}"])
    }
    #expect(error?.description == "broken.html:2:1: section 'x' is never closed")
  }

  @Test("endless partial recursion is an error, not a crash") func endlessRecursion() throws {
    let template = try Template(source: "{{> loop}}", name: "page.html")
    let partials = try DictionaryPartialResolver(sources: ["loop.html": "x{{> loop}}"])
    let error = #expect(throws: TemplateError.self) {
      try template.render([:], partials: partials)
    }
    #expect(
      error?.description
        == "loop.html:1:2: sections or partials are nested more than 256 levels deep")
  }

  @Test("endless inheritance is an error, not a crash") func endlessInheritance() throws {
    let template = try Template(source: "{{<a}}{{/a}}", name: "page.html")
    let partials = try DictionaryPartialResolver(sources: ["a.html": "{{<a}}{{$b}}{{/b}}{{/a}}"])
    let error = #expect(throws: TemplateError.self) {
      try template.render([:], partials: partials)
    }
    #expect(
      error?.description == "a.html:1:1: sections or partials are nested more than 256 levels deep")
  }

  @Test("sections nested too deeply are an error") func deepSections() throws {
    let source = String(repeating: "{{#a}}", count: 300) + String(repeating: "{{/a}}", count: 300)
    let error = #expect(throws: TemplateError.self) {
      try Template(source: source, name: "deep.html")
    }
    #expect(error?.kind == .nestedTooDeeply(limit: 256))
    #expect(error?.column == 1 + 256 * 6)
  }
}
