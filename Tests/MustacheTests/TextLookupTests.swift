import Testing

@testable import Mustache

/// A row that hands the text of `name`, `id` and `link` over itself, and answers `done` and
/// `nested` only as values.
private struct HandingRow: MustacheObject {
  let name: String
  let id: Int64

  var keys: [String] { ["name", "id", "link", "done", "nested"] }

  func value(forKey key: String) -> MustacheValue? {
    switch key {
    case "name": .string(name)
    case "id": .int(id)
    case "link": .string("rows/\(id).html")
    case "done": .bool(id % 2 == 0)
    case "nested": ["name": "inner"]
    default: nil
    }
  }

  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    switch key {
    case "name": return .hand(name, to: body)
    case "id": return .hand(id, to: body)
    case "link":
      // Written on the stack, as a link made for one interpolation would be.
      let bytes = Array("rows/\(id).html".utf8)
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { buffer in
        _ = buffer.initialize(from: bytes)
        body(UnsafeBufferPointer(buffer))
      }
      return .handed
    case "done", "nested": return .useValue
    default: return .missing
    }
  }
}

/// An object whose text and values disagree, to show which of the two a render used.
private struct Marked: MustacheObject {
  var keys: [String] { ["shown"] }

  func value(forKey key: String) -> MustacheValue? {
    key == "shown" ? "from value" : nil
  }

  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    key == "shown" ? .hand("from text", to: body) : .missing
  }
}

@Suite struct TextLookupTests {
  private static let source = """
    {{#rows}}[{{name}} {{id}} {{link}} {{done}} {{nested.name}} {{title}} {{missing}}]{{/rows}}
    {{first.name}}|{{first.link}}|{{first.missing}}|{{nothing.name}}|{{first.nested.name}}
    """

  private static func data(_ row: (HandingRow) -> MustacheValue) -> MustacheValue {
    let rows = [
      HandingRow(name: "a<b & \"c\"", id: 7), HandingRow(name: "", id: -42),
      HandingRow(name: "ü *x*", id: 0),
    ]
    return ["rows": .array(rows.map(row)), "first": row(rows[0]), "title": "T<"]
  }

  @Test("text handed over renders as the values would, escaped, in every template kind")
  func handedTextRendersAsValues() throws {
    let computed = Self.data { .computed($0) }
    let plain = Self.data { .object($0.dictionary) }
    for name in ["t.html", "t.md", "t.txt"] {
      let template = try Template(source: Self.source, name: name)
      #expect(try template.render(computed) == template.render(plain))
    }
    let html = try Template(source: Self.source, name: "t.html")
    #expect(
      try html.render(computed) == """
        [a&lt;b &amp; &quot;c&quot; 7 rows/7.html false inner T&lt; ][ -42 rows/-42.html true \
        inner T&lt; ][ü *x* 0 rows/0.html true inner T&lt; ]
        a&lt;b &amp; &quot;c&quot;|rows/7.html|||inner
        """)
  }

  @Test("Markdown values handed over are set aside as the values would be")
  func handedTextIsSetAside() throws {
    let template = try Template(source: Self.source, name: "t.md")
    var results: [[UInt8]: SetAsideValues] = [:]
    for value in [Self.data { .computed($0) }, Self.data { .object($0.dictionary) }] {
      var output: [UInt8] = []
      var values = SetAsideValues(escaping: .markdown)
      try template.render(
        value, into: &output, settingAside: &values, partials: nil,
        missingPartials: .renderEmpty)
      results[output] = values
    }
    // Both renders left the same text with the same values set aside at the same places.
    #expect(results.count == 1)
    let values = try #require(results.values.first)
    #expect(String(decoding: values.value(0), as: UTF8.self) == "a<b & \"c\"")
    // The first row's six values, then the second's: its empty name is not noted, its id is.
    #expect(String(decoding: values.value(5), as: UTF8.self) == "T<")
    #expect(String(decoding: values.value(6), as: UTF8.self) == "-42")
  }

  @Test("an interpolation takes the handed text, and a section still takes the value")
  func textIsPreferred() throws {
    let template = try Template(
      source: "{{shown}} {{{shown}}} {{&shown}} {{#shown}}{{.}}{{/shown}} {{box.shown}}",
      name: "t.html")
    let data: MustacheValue = ["shown": "outer", "box": .computed(Marked())]
    #expect(try template.render(data) == "outer outer outer outer from text")
    let inside = try Template(source: "{{#box}}{{shown}}{{/box}}", name: "t.html")
    #expect(try inside.render(data) == "from text")
  }

  @Test("numbers are handed over as {{number}} inserts them")
  func numbers() throws {
    for number: Int64 in [0, 7, -42, 1_000_000, .max, .min] {
      var bytes: [UInt8] = []
      let result = MustacheTextLookup.hand(number) { bytes.append(contentsOf: $0) }
      #expect(result == .handed)
      #expect(String(decoding: bytes, as: UTF8.self) == MustacheValue.int(number).interpolatedText)
    }
  }
}
