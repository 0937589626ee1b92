import Testing

@testable import TaskpressCLI

@Suite struct TaskpressCLISmokeTests {
  @Test("the module links") func links() {
    #expect(Bool(true))
  }
}
