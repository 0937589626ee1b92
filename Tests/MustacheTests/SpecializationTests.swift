import Synchronization
import Testing

@testable import Mustache

/// Partials by name, counting how often it is asked.
private final class CountingResolver: PartialResolver {
  let templates: [String: Template]
  let calls = Atomic<Int>(0)

  init(templates: [String: Template]) {
    self.templates = templates
  }

  func partial(named name: String, includedFrom includer: String) -> Template? {
    calls.add(1, ordering: .relaxed)
    return templates[name]
  }
}

/// Some of a root's keys, as constants to specialize for.
private struct Constants: MustacheObject {
  let fields: [String: MustacheValue]

  var keys: [String] { fields.keys.sorted() }

  func value(forKey key: String) -> MustacheValue? { fields[key] }
}

@Suite struct SpecializationTests {
  /// The subsets of `keys` a case is specialized for: none, all, each one alone, and every
  /// other one.
  private static func subsets(of keys: [String]) -> [[String]] {
    var result: [[String]] = [[], keys]
    result += keys.map { [$0] }
    result.append(keys.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
    return result
  }

  @Test("a specialized spec template renders as the original, whatever keys are constant")
  func specCases() throws {
    var specialized = 0
    var folded = 0
    for specCase in try SpecCase.all {
      guard case .object(let data) = specCase.data else { continue }
      let template = try Template(source: specCase.template, name: "test")
      let partials = try DictionaryPartialResolver(sources: specCase.partials)
      let expected = try template.render(specCase.data, partials: partials)
      for keys in Self.subsets(of: data.keys.sorted()) {
        let constants = Constants(fields: data.filter { keys.contains($0.key) })
        let shared = template.specialized(for: constants, partials: partials)
        let output = try shared.render(specCase.data, partials: partials)
        #expect(output == expected, "\(specCase.testDescription), constant: \(keys)")
        specialized += 1
        if !shared.program.folds.isEmpty { folded += 1 }
      }
    }
    #expect(specialized > 500)
    // Most cases have a tag that reads only constants, or text next to one.
    #expect(folded > specialized / 2)
  }

  @Test("what reads other keys stays live; what reads only constants is rendered once")
  func foldsOnlyConstants() throws {
    // In the second loop `page` is not in the items, so it is looked up in the root; so would
    // `current` be in an item without it, which is why both items have it here.
    let template = try Template(
      source: "<{{site}}> {{page}} {{#nav}}[{{label}}{{#current}}*{{/current}}]{{/nav}}"
        + " {{#nav}}({{page}}){{/nav}} {{missing}}|{{> footer}}|{{> body}}",
      name: "layout.html")
    let partials = try DictionaryPartialResolver(sources: [
      "footer": "{{site}} footer", "body": "{{page}} body",
    ])
    let constants = Constants(fields: [
      "site": "S&S",
      "nav": [["label": "A", "current": true], ["label": "B", "current": false]],
    ])
    let shared = template.specialized(for: constants, partials: partials)
    for page in ["one", "two"] {
      let root: MustacheValue = [
        "site": "S&S", "page": .string(page),
        "nav": [["label": "A", "current": true], ["label": "B", "current": false]],
      ]
      let expected =
        "<S&amp;S> \(page) [A*][B] (\(page))(\(page)) |S&amp;S footer|\(page) body"
      #expect(try template.render(root, partials: partials) == expected)
      #expect(try shared.render(root, partials: partials) == expected)
    }
    // Three folds: `<{{site}}> `, the first loop with the spaces around it, and the footer
    // between its bars. `{{page}}`, the second loop (it reads `page` from the root),
    // `{{missing}}` (not a constant, so the root might have it) and the body partial stay; so
    // does the space after the second loop (text alone is not worth a fold).
    #expect(shared.program.folds.count == 3)
    let live = shared.program.ops.indices.filter { index in
      var top = 0
      while top < index { top = shared.program.extent(of: top) }
      guard top == index else { return false }
      switch shared.program.ops[index] {
      case .folded, .text, .lines: return false
      default: return true
      }
    }
    #expect(live.count == 4)
  }

  @Test("a tag whose render fails stays, and fails when the page renders")
  func failingPartialStays() throws {
    let template = try Template(source: "{{site}}{{> missing}}", name: "layout.html")
    let shared = template.specialized(
      for: Constants(fields: ["site": "S"]), missingPartials: .throwError)
    #expect(shared.program.folds.count == 1)
    let error = #expect(throws: TemplateError.self) {
      try shared.render(["site": "S"], missingPartials: .throwError)
    }
    #expect(error?.description == "layout.html:1:9: partial 'missing' not found")
    #expect(try shared.render(["site": "S"]) == "S")
  }

  @Test("the partials a template names are looked up once, when it is specialized")
  func partialsLookedUpOnce() throws {
    let resolver = CountingResolver(
      templates: ["row": try Template(source: "<{{page}}>", name: "row.html")])
    let template = try Template(
      source: "{{site}}{{> row}}{{#items}}{{> row}}{{/items}}{{> *which}}", name: "layout.html")
    let shared = template.specialized(
      for: Constants(fields: ["site": "S"]), partials: resolver, missingPartials: .throwError)
    let specializing = resolver.calls.load(ordering: .relaxed)
    func root(_ page: String) -> MustacheValue {
      ["site": "S", "page": .string(page), "items": [["page": "i"]], "which": "row"]
    }
    for page in ["a", "b", "c"] {
      let output = try shared.render(root(page), partials: resolver, missingPartials: .throwError)
      #expect(output == "S<\(page)><i><\(page)>")
    }
    // The renders asked only for the dynamic `*which`, once each; the two `{{> row}}` were
    // looked up when the template was specialized.
    #expect(resolver.calls.load(ordering: .relaxed) - specializing == 3)
    #expect(
      try shared.render(root("d"), partials: resolver)
        == template.render(root("d"), partials: resolver))
  }

  @Test("with nothing to fold, the template itself comes back")
  func nothingToFold() throws {
    let template = try Template(source: "{{page}}", name: "t.html")
    let shared = template.specialized(for: Constants(fields: ["site": "S"]))
    #expect(shared.program === template.program)
  }
}
