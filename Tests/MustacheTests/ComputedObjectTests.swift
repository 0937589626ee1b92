import Synchronization
import Testing

@testable import Mustache

/// How many lookups a row answered.
private final class Counter: Sendable {
  let count = Atomic<Int>(0)
}

/// A row that answers lookups itself and counts them.
private struct Row: MustacheObject {
  let name: String
  let done: Bool
  let lookups = Counter()

  var keys: [String] { ["name", "done", "nested"] }

  func value(forKey key: String) -> MustacheValue? {
    lookups.count.add(1, ordering: .relaxed)
    switch key {
    case "name": return .string(name)
    case "done": return .bool(done)
    case "nested": return .object(["level": "high"])
    default: return nil
    }
  }
}

@Suite struct ComputedObjectTests {
  @Test("a computed object renders as the same dictionary would")
  func rendersLikeObject() throws {
    let template = try Template(
      source: "{{#row}}<{{name}}>{{#done}}✓{{/done}}{{^done}}…{{/done}}{{/row}}"
        + "{{row.nested.level}}|{{row.missing}}|{{row}}|{{title}}",
      name: "t.html")
    for done in [true, false] {
      let row = Row(name: "a&b", done: done)
      let computed: MustacheValue = ["row": .computed(row), "title": "T"]
      let plain: MustacheValue = ["row": .object(row.dictionary), "title": "T"]
      #expect(try template.render(computed) == template.render(plain))
      #expect(computed == plain)
    }
    let row = Row(name: "x", done: false)
    #expect(try template.render(["row": .computed(row), "title": "T"]) == "<x>…high|||T")
  }

  @Test("values are made only when a template looks them up, and outer names still resolve")
  func madeOnDemand() throws {
    let template = try Template(source: "{{#row}}{{name}} {{title}}{{/row}}", name: "t.html")
    let row = Row(name: "n", done: false)
    let text = try template.render(["row": .computed(row), "title": "outer"])
    #expect(text == "n outer")
    // `row` itself is found in the root; then `name` and `title` are looked up in the row
    // (`title` is not there, so it falls through to the root).
    #expect(row.lookups.count.load(ordering: .relaxed) == 2)
  }

  @Test("a computed object differs from an object with other values, and from a non-object")
  func equality() {
    let row = Row(name: "n", done: true)
    #expect(MustacheValue.computed(row) != .object(["name": "n"]))
    #expect(MustacheValue.computed(row) != .string("n"))
    #expect(MustacheValue.computed(row) == .computed(Row(name: "n", done: true)))
  }
}
