import Synchronization
import Testing

@testable import Mustache

@Suite struct ListTests {
  @Test("a lazy list renders as the same array would")
  func rendersLikeArray() throws {
    let template = try Template(
      source: "{{#items}}<{{name}}>{{/items}}{{^items}}none{{/items}}|{{items}}", name: "t.html")
    let names = ["a", "b&c", "d"]
    let array = MustacheValue.array(names.map { .object(["name": .string($0)]) })
    let list = MustacheValue.list(
      MustacheList(count: names.count) { .object(["name": .string(names[$0])]) })
    #expect(try template.render(["items": list]) == template.render(["items": array]))
    #expect(try template.render(["items": .list(MustacheList(count: 0) { _ in .null })]) == "none|")
    #expect(list == array.asList)
  }

  @Test("elements are made one at a time, when the section reaches them")
  func madeOnDemand() throws {
    let made = Atomic<Int>(0)
    let list = MustacheList(count: 1000) { index in
      made.add(1, ordering: .relaxed)
      return .int(Int64(index))
    }
    #expect(made.load(ordering: .relaxed) == 0)
    let template = try Template(source: "{{#items}}{{.}},{{/items}}", name: "t.html")
    let text = try template.render(["items": .list(list)])
    #expect(text.hasPrefix("0,1,2,"))
    #expect(made.load(ordering: .relaxed) == 1000)
  }
}

extension MustacheValue {
  fileprivate var asList: MustacheValue {
    guard case .array(let items) = self else { return self }
    return .list(MustacheList(count: items.count) { items[$0] })
  }
}
