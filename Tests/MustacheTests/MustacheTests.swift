import Testing

@testable import Mustache

@Suite struct MustacheSmokeTests {
  @Test("the module links") func links() {
    #expect(Bool(true))
  }
}
