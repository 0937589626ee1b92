import Testing

@testable import Mustache

/// Thousands of damaged templates: each renders or throws a `TemplateError`, never crashes.
@Suite struct FuzzTests {
  static let fragments = [
    "{{", "}}", "{{{", "}}}", "{{#a}}", "{{/a}}", "{{^a}}", "{{/b}}", "{{=", "=}}", "{{=<% %>=}}",
    "<%", "%>", "{{>", "{{> partial}}", "{{>*dynamic}}", "{{<parent}}", "{{/parent}}",
    "{{$block}}", "{{/block}}", "{{!", "{{&", "{{.}}", "\n", "\r\n", "  ", "\t", "é", "{{ }}",
  ]

  enum Mutation: CaseIterable {
    case cut, duplicate, shuffle, insert, delete
  }

  static func mutate(_ source: String, using generator: inout SeededGenerator) -> String {
    var characters = Array(source)
    for _ in 0..<Int.random(in: 1...3, using: &generator) {
      let count = characters.count
      switch Mutation.allCases.randomElement(using: &generator) ?? .cut {
      case .cut:
        characters = Array(characters.prefix(Int.random(in: 0...count, using: &generator)))
      case .duplicate:
        guard count > 0 else { continue }
        let start = Int.random(in: 0..<count, using: &generator)
        let end = Int.random(in: start...count, using: &generator)
        let at = Int.random(in: 0...count, using: &generator)
        characters.insert(contentsOf: characters[start..<end], at: at)
      case .shuffle:
        let size = Int.random(in: 1...6, using: &generator)
        var chunks = stride(from: 0, to: count, by: size).map {
          Array(characters[$0..<min($0 + size, count)])
        }
        chunks.shuffle(using: &generator)
        characters = chunks.flatMap { $0 }
      case .insert:
        let fragment = fragments.randomElement(using: &generator) ?? "{{"
        characters.insert(contentsOf: fragment, at: Int.random(in: 0...count, using: &generator))
      case .delete:
        guard count > 0 else { continue }
        let start = Int.random(in: 0..<count, using: &generator)
        characters.removeSubrange(
          start..<min(count, start + Int.random(in: 1...8, using: &generator)))
      }
    }
    return String(characters)
  }

  @Test("mutated spec templates render or throw TemplateError") func mutatedTemplates() throws {
    let cases = try SpecCase.load()
    try #require(!cases.isEmpty)
    var generator = SeededGenerator(seed: 0x7A5C_9E55)
    var rendered = 0
    var rejected = 0
    for _ in 0..<4000 {
      let base = cases.randomElement(using: &generator) ?? cases[0]
      let source = Self.mutate(base.template, using: &generator)
      var partialSources = base.partials
      if let key = partialSources.keys.sorted().randomElement(using: &generator),
        Bool.random(using: &generator)
      {
        partialSources[key] = Self.mutate(partialSources[key] ?? "", using: &generator)
      }
      do {
        let template = try Template(source: source, name: "fuzz.html")
        let partials = try DictionaryPartialResolver(sources: partialSources)
        let policy: MissingPartialPolicy =
          Bool.random(using: &generator) ? .throwError : .renderEmpty
        _ = try template.render(base.data, partials: partials, missingPartials: policy)
        rendered += 1
      } catch let error as TemplateError {
        #expect(error.line >= 1 && error.column >= 1)
        rejected += 1
      } catch {
        Issue.record("unexpected error \(error) for \(source.debugDescription)")
      }
    }
    #expect(rendered > 1000)
    #expect(rejected > 500)
  }

  @Test("random bytes parse or throw TemplateError") func randomBytes() {
    var generator = SeededGenerator(seed: 42)
    let alphabet = Array("{}#^/!<>$&=*. \n\r\tab".utf8) + [0xC3, 0xA9, 0xFF, 0x00]
    var rendered = 0
    var rejected = 0
    for _ in 0..<2000 {
      let length = Int.random(in: 0...40, using: &generator)
      let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
      do {
        let template = try Template(bytes: bytes, name: "bytes.md")
        _ = try template.render(["a": [1, 2], "b": "x"])
        rendered += 1
      } catch {
        #expect(error is TemplateError, "\(bytes): \(error)")
        rejected += 1
        // An error names the template and a place in it.
        #expect("\(error)".hasPrefix("bytes.md:"), "\(bytes): \(error)")
      }
    }
    // Both outcomes are exercised (1,928 and 72 with this seed).
    #expect(rendered > 1000)
    #expect(rejected > 20)
  }
}
