import Testing

@testable import SQLite

@Suite struct SQLiteSmokeTests {
  @Test("the module links") func links() {
    #expect(Bool(true))
  }
}
