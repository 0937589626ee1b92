import Synchronization
import Testing

@testable import Mustache

/// A resolver that counts the questions it is asked.
private final class CountingResolver: PartialResolver {
  let templates: DictionaryPartialResolver
  let questions = Mutex<[String]>([])

  init(sources: [String: String]) throws {
    templates = try DictionaryPartialResolver(sources: sources)
  }

  func partial(named name: String, includedFrom includer: String) -> Template? {
    questions.withLock { $0.append(name + " from " + includer) }
    return templates.partial(named: name, includedFrom: includer)
  }
}

/// An object whose values are made on lookup.
private struct Computed: MustacheObject {
  let fields: [String: MustacheValue]
  var keys: [String] { Array(fields.keys) }
  func value(forKey key: String) -> MustacheValue? { fields[key] }
}

/// How the compiled templates render: the context stack, partials asked for once per render,
/// text over several lines, integers, and what is kept when a render fails.
@Suite struct RendererTests {
  @Test("a render asks the resolver once for each tag, however often the tag renders")
  func partialsAskedOnce() throws {
    let resolver = try CountingResolver(sources: [
      "item.html": "<{{.}}>{{> mark}}", "mark.html": "!", "a.html": "A", "b.html": "B",
    ])
    let template = try Template(
      source: "{{#items}}{{> item}}{{/items}}{{#kinds}}{{>*.}}{{/kinds}}{{> missing}}",
      name: "list.html")
    let data: MustacheValue = ["items": [1, 2, 3], "kinds": ["a", "b", "a", "b"]]
    #expect(try template.render(data, partials: resolver) == "<1>!<2>!<3>!ABAB")
    #expect(
      resolver.questions.withLock { $0 }
        == [
          "item from list.html", "mark from item.html", "a from list.html", "b from list.html",
          "missing from list.html",
        ])
    // The next render asks again.
    _ = try template.render(data, partials: resolver)
    #expect(resolver.questions.withLock { $0.count } == 10)
  }

  @Test("names resolve through a deep context stack, innermost first")
  func deepStack() throws {
    let template = try Template(
      source: """
        {{#a}}{{#b}}{{#c}}{{#d}}{{x}} {{y}} {{z}} {{w}} {{v}} {{.}}|{{b.y}} {{a.c.z}}{{/d}}{{/c}}\
        {{/b}}{{/a}}
        """, name: "t.html")
    let data: MustacheValue = [
      "v": "root", "w": "w-root",
      "a": [
        "w": "w-a", "x": "x-a", "b": ["y": "y-b", "x": "x-b", "c": ["z": "z-c", "d": "top"]],
      ],
    ]
    #expect(try template.render(data) == "x-b y-b z-c w-a root top|y-b ")
  }

  @Test("a computed root and computed sections answer like objects")
  func computedRootAndTop() throws {
    let template = try Template(
      source: "{{title}}:{{#row}}{{name}}/{{title}}/{{#inner}}{{name}}{{/inner}}{{/row}}",
      name: "t.html")
    let inner = Computed(fields: ["name": "in"])
    let row = Computed(fields: ["name": "r&w", "inner": .computed(inner)])
    let root = Computed(fields: ["title": "T", "row": .computed(row)])
    #expect(try template.render(.computed(root)) == "T:r&amp;w/T/in")
  }

  @Test("a standalone partial indents every line of text, variables and nested partials")
  func indentedLines() throws {
    let partials = try DictionaryPartialResolver(sources: [
      "outer.html": "one\n{{x}}\n  {{> inner}}\nlast {{x}}\n",
      "inner.html": "a\nb {{x}}\n\nc",
    ])
    let template = try Template(source: "<div>\n    {{> outer}}\n</div>\n", name: "t.html")
    #expect(
      try template.render(["x": "X"], partials: partials)
        == "<div>\n    one\n    X\n      a\n      b X\n      \n      c    last X\n</div>\n")
  }

  @Test("a render can set the values it escapes for Markdown aside, and only those")
  func markdownValuesSetAside() throws {
    let partials = try DictionaryPartialResolver(sources: [
      "row.md": "- {{name}}\n", "badge.html": "<b>{{name}}</b>",
    ])
    let template = try Template(
      source: "# {{title}}\n{{{raw}}}{{empty}}{{#rows}}{{> row}}{{/rows}}{{> badge.html}}{{n}}",
      name: "t.md")
    let data: MustacheValue = [
      "title": "A*B", "raw": "*raw*", "empty": "", "name": "top",
      "rows": [["name": "x"], ["name": "y_z"]], "n": .int(-7),
    ]
    var output = Array("before".utf8)
    var values = SetAsideValues(escaping: .markdown)
    try template.render(data, into: &output, settingAside: &values, partials: partials)
    #expect(String(decoding: output, as: UTF8.self) == "before# \n*raw*- \n- \n<b>top</b>")
    // Not the raw value, not the empty one, not the one the HTML partial escaped.
    let texts = (0..<values.count).map { String(decoding: values.value($0), as: UTF8.self) }
    #expect(texts == ["A*B", "x", "y_z", "-7"])
    #expect(values.places == [8, 16, 19, 30])
    // Escaped back into their places, they make what a plain render writes.
    var plain = Array("before".utf8)
    try template.render(data, into: &plain, partials: partials)
    #expect(values.escaped(into: output) == plain)
    // Emptied, the same values take the next render's, as new ones would.
    values.removeAll()
    #expect(values.count == 0)
    var again = Array("before".utf8)
    try template.render(data, into: &again, settingAside: &values, partials: partials)
    #expect(again == output)
    #expect(values.places == [8, 16, 19, 30])
    #expect(values.escaped(into: again) == plain)
    // Into a render buffer, reused: the same text and values, places counted from its start.
    let buffer = RenderBuffer(capacity: 4)
    for _ in 0..<2 {
      buffer.removeAll()
      values.removeAll()
      try template.render(data, appendingTo: buffer, settingAside: &values, partials: partials)
      #expect(Array(buffer.bytes) == Array(output.dropFirst(6)))
      #expect(values.places == [2, 10, 13, 24])
      #expect(values.escaped(into: Array(buffer.bytes)) == Array(plain.dropFirst(6)))
      // The buffer keeps no values: a plain render into it after that writes them all.
      try template.render(data, appendingTo: buffer, partials: partials)
      #expect(Array(buffer.bytes) == Array(output.dropFirst(6)) + Array(plain.dropFirst(6)))
    }
  }

  @Test(
    "integers render as Swift prints them, escaped",
    arguments: [
      (Int64.min, "-9223372036854775808", "\\-9223372036854775808"),
      (Int64.max, "9223372036854775807", "9223372036854775807"),
      (0, "0", "0"), (-7, "-7", "\\-7"), (1000, "1000", "1000"),
    ])
  func integers(_ number: Int64, _ html: String, _ markdown: String) throws {
    #expect(try Template(source: "{{n}}", name: "t.html").render(["n": .int(number)]) == html)
    #expect(try Template(source: "{{n}}", name: "t.md").render(["n": .int(number)]) == markdown)
    #expect(try Template(source: "{{{n}}}", name: "t.md").render(["n": .int(number)]) == html)
  }

  @Test(
    "Markdown escaping of spaces between words, at line starts and at line ends",
    arguments: [
      ("a b", "a b"), ("a  b", "a  b"), ("a\tb", "a\tb"), (" a", "&#32;a"), ("a ", "a&#32;"),
      ("a b\n c d \ne", "a b\\\n&#32;c d&#32;\\\ne"), ("a - b", "a \\- b"), ("é é", "é é"),
    ])
  func markdownSpaces(_ value: String, _ escaped: String) {
    #expect(Escaping.markdown.escape(value) == escaped)
  }

  @Test("a failed render keeps what it rendered before the error in the output")
  func outputBeforeError() throws {
    let template = try Template(source: "before {{x}}\n{{> missing}}after", name: "t.html")
    var output = Array("start:".utf8)
    let error = #expect(throws: TemplateError.self) {
      try template.render(["x": "<"], into: &output, missingPartials: .throwError)
    }
    #expect(error?.description == "t.html:2:1: partial 'missing' not found")
    #expect(String(decoding: output, as: UTF8.self) == "start:before &lt;\n")
  }

  @Test("a render fills a buffer larger than its first guess")
  func largeOutput() throws {
    let template = try Template(source: "{{#rows}}{{text}},{{/rows}}", name: "t.html")
    let rows = MustacheValue.array((0..<5000).map { ["text": .string("row \($0) & more")] })
    let output = try template.render(["rows": rows])
    #expect(output.hasPrefix("row 0 &amp; more,row 1 &amp; more,"))
    #expect(output.utf8.count == (0..<5000).reduce(0) { $0 + "row \($1) &amp; more,".utf8.count })
  }
}
