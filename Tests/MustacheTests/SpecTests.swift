import Testing

@testable import Mustache

@Suite struct SpecTests {
  @Test("all 184 spec cases of the implemented modules are loaded")
  func count() throws {
    let cases = try SpecCase.load()
    #expect(cases.count == 184)
    #expect(cases.filter { !$0.file.hasPrefix("~") }.count == 136)
    #expect(cases.filter { $0.file == "~inheritance" }.count == 27)
    #expect(cases.filter { $0.file == "~dynamic-names" }.count == 21)
  }

  @Test("spec", arguments: try SpecCase.all)
  func spec(_ specCase: SpecCase) throws {
    let template = try Template(source: specCase.template, name: "test")
    let partials = try DictionaryPartialResolver(sources: specCase.partials)
    let output = try template.render(specCase.data, partials: partials)
    #expect(output == specCase.expected)
  }
}
