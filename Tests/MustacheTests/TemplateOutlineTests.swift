import Testing

@testable import Mustache

@Suite struct TemplateOutlineTests {
  typealias Tag = TemplateOutline.Tag

  @Test("tags keep their names, positions and nesting; comments and delimiter changes are left out")
  func nesting() throws {
    let source = """
      {{! a comment }}
      # {{title}}
      {{#items}}
        - {{{name}}} {{& raw}}{{^done}}…{{/done}}
      {{/items}}
      {{=<% %>=}}
      <%> footer%> <%a.b.c%>
      """
    let outline = try TemplateOutline(source: source, name: "list.md")
    #expect(outline.template == "list.md")
    #expect(
      outline.tags == [
        Tag(kind: .variable(escaped: true), name: "title", line: 2, column: 3),
        Tag(
          kind: .section(inverted: false), name: "items", line: 3, column: 1,
          children: [
            Tag(kind: .variable(escaped: false), name: "name", line: 4, column: 5),
            Tag(kind: .variable(escaped: false), name: "raw", line: 4, column: 16),
            Tag(
              kind: .section(inverted: true), name: "done", line: 4, column: 25,
              children: []),
          ]),
        Tag(kind: .partial, name: "footer", line: 7, column: 1),
        Tag(kind: .variable(escaped: true), name: "a.b.c", line: 7, column: 14),
      ])
    #expect(outline.tags[3].nameParts == ["a", "b", "c"])
  }

  @Test("parents hold their blocks; dynamic names keep their star; columns count scalars")
  func inheritance() throws {
    let source = "é {{<frame}}{{$body}}{{x}}{{/body}}{{/frame}}{{> *which}}{{.}}"
    let outline = try TemplateOutline(source: source, name: "t.html")
    #expect(
      outline.tags == [
        Tag(
          kind: .parent, name: "frame", line: 1, column: 3,
          children: [
            Tag(
              kind: .block, name: "body", line: 1, column: 13,
              children: [Tag(kind: .variable(escaped: true), name: "x", line: 1, column: 22)])
          ]),
        Tag(kind: .partial, name: "*which", line: 1, column: 46),
        Tag(kind: .variable(escaped: true), name: ".", line: 1, column: 58),
      ])
    #expect(outline.tags[1].isDynamic)
    #expect(outline.tags[2].nameParts.isEmpty)
  }

  @Test("a malformed template is the error a render would give")
  func malformed() {
    let source = "a\n{{#items}}\n"
    #expect(throws: TemplateError(.unclosedSection("items"), template: "t.md", line: 2, column: 1))
    {
      try TemplateOutline(source: source, name: "t.md")
    }
  }
}

@Suite struct JSONElementTests {
  @Test("every value and key has its line and column; objects keep their order and repeats")
  func positions() throws {
    let text = "\u{FEFF}{\n  \"b\": [1, 2.5],\n  \"é\": \"x\", \"b\": null\n}"
    let document = try JSONElement(jsonBytes: Array(text.utf8))
    #expect(document.line == 1 && document.column == 1)
    guard case .object(let members) = document.value else {
      Issue.record("not an object")
      return
    }
    #expect(members.map(\.key) == ["b", "é", "b"])
    #expect(members.map { "\($0.line):\($0.column)" } == ["2:3", "3:3", "3:13"])
    #expect(members.map { "\($0.value.line):\($0.value.column)" } == ["2:8", "3:8", "3:18"])
    guard case .array(let numbers) = members[0].value.value else {
      Issue.record("not an array")
      return
    }
    #expect(numbers.map(\.value) == [.int(1), .double(2.5)])
    #expect(numbers.map(\.column) == [9, 12])
    // As template data, the later of two members of one key wins.
    #expect(document.mustacheValue == ["b": .null, "é": "x"])
    #expect(try MustacheValue(json: text) == document.mustacheValue)
  }

  @Test("a missing comma is reported where the next member starts")
  func missingComma() {
    let text = "{\n  \"todos\": \"todo.sqlite\"\n  \"output\": \"site\"\n}\n"
    #expect(
      throws: JSONError(message: "expected ',' or '}' in an object", line: 3, column: 3)
    ) {
      try JSONElement(jsonBytes: Array(text.utf8))
    }
  }
}
