import Testing

@testable import Mustache

@Suite struct ValueTests {
  @Test(
    "numbers print as the spec prints them",
    arguments: [
      (MustacheValue.int(85), "85"), (.double(1.21), "1.21"), (.double(85.0), "85"),
      (.double(-0.5), "-0.5"), (.double(1e21), "1e+21"), (.int(-7), "-7"),
      (.double(.nan), "NaN"), (.double(-.infinity), "-Infinity"), (.bool(true), "true"),
      (.null, ""), (.object(["a": 1]), ""), (.array([1, "b", 2.5]), "1,b,2.5"),
    ])
  func interpolation(_ value: MustacheValue, _ text: String) {
    #expect(value.interpolatedText == text)
  }

  @Test("JSON keeps booleans, integers and doubles apart") func jsonKinds() throws {
    let value = try MustacheValue(
      json: #"{"t": true, "f": false, "one": 1, "oneDouble": 1.0, "big": 15000000000000000000, "#
        + #""e": 2e3, "n": null, "s": "x\u00e9\ud83d\ude00\n", "a": [0, -0.5]}"#)
    #expect(
      value
        == .object([
          "t": .bool(true), "f": .bool(false), "one": .int(1), "oneDouble": .double(1),
          "big": .double(1.5e19), "e": .double(2000), "n": .null,
          "s": .string("xé😀\n"), "a": .array([.int(0), .double(-0.5)]),
        ]))
  }

  @Test("a boolean renders as true or false and a 1 as 1") func jsonBooleansRender() throws {
    let template = try Template(
      source: "{{t}} {{one}} {{oneDouble}} {{#f}}no{{/f}}", name: "x.html")
    let data = try MustacheValue(json: #"{"t": true, "one": 1, "oneDouble": 1.0, "f": false}"#)
    #expect(try template.render(data) == "true 1 1 ")
  }

  @Test(
    "invalid JSON is an error with line and column",
    arguments: [
      ("", "line 1, column 1: unexpected end of input"),
      ("{\"a\" 1}", "line 1, column 6: expected ':' after an object key"),
      ("[1,\n 2,,]", "line 2, column 4: unexpected character ','"),
      ("\"abc", "line 1, column 5: a string is never closed"),
      ("tru", "line 1, column 1: unexpected character 't'"),
      ("1 2", "line 1, column 3: unexpected character '2' after the end of the document"),
      ("01", "line 1, column 2: unexpected character '1' after the end of the document"),
      ("\"\\x\"", "line 1, column 2: invalid escape '\\x' in a string"),
    ])
  func invalidJSON(_ json: String, _ message: String) {
    let error = #expect(throws: JSONError.self) { try MustacheValue(json: json) }
    #expect(error?.description == message)
  }

  @Test("deeply nested JSON is an error, not a crash") func deepJSON() {
    let json = String(repeating: "[", count: 100_000)
    let error = #expect(throws: JSONError.self) { try MustacheValue(json: json) }
    #expect(error?.description == "line 1, column 513: nested more than 512 levels deep")
  }

  @Test("truthiness follows JavaScript's !!value") func truthiness() {
    let falsey: [MustacheValue] = [.null, false, 0, 0.0, .double(.nan), "", []]
    let truthy: [MustacheValue] = [true, 1, -1, 0.5, "0", " ", [0], [:]]
    #expect(falsey.allSatisfy { !$0.isTruthy })
    #expect(truthy.allSatisfy { $0.isTruthy })
  }

  @Test("object key order does not change the output") func keyOrder() throws {
    let template = try Template(source: "{{#o}}{{a}}{{b}}{{c}}{{/o}}", name: "x.html")
    let first = try MustacheValue(json: #"{"o": {"a": 1, "b": 2, "c": 3}}"#)
    let second = try MustacheValue(json: #"{"o": {"c": 3, "a": 1, "b": 2}}"#)
    #expect(try template.render(first) == "123")
    #expect(try template.render(second) == "123")
    #expect(first == second)
  }
  @Test("text given as UTF-8 bytes renders, tests and compares as the same string")
  func utf8Bytes() throws {
    let text = "<a href=\"x\">Søren & co</a>"
    let bytes = MustacheValue.utf8(Array(text.utf8))
    #expect(bytes == .string(text))
    #expect(MustacheValue.string(text) == bytes)
    #expect(bytes != .string("other"))
    #expect(bytes.isTruthy)
    #expect(!MustacheValue.utf8([]).isTruthy)
    #expect(bytes.interpolatedText == text)
    for source in ["{{v}}", "{{{v}}}", "{{#v}}[{{.}}]{{/v}}", "{{^v}}none{{/v}}"] {
      for name in ["t.html", "t.md", "t.txt"] {
        let template = try Template(source: source, name: name)
        #expect(
          try template.render(["v": bytes]) == template.render(["v": .string(text)]),
          "\(source) in \(name)")
      }
    }
  }
}
