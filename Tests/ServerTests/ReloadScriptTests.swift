import Testing

@testable import Server

@Suite struct ReloadScriptTests {
  private func injected(_ html: String) -> String {
    String(
      decoding: ReloadScript.inject(into: Array(html.utf8), generation: 7, eventsPath: "/e"),
      as: UTF8.self)
  }

  @Test("the script goes just before the last </body>, whatever its case")
  func beforeBody() {
    let element = ReloadScript.element(generation: 7, eventsPath: "/e")
    #expect(
      injected("<p>a</body>x</BODY>\n</html>") == "<p>a</body>x" + element + "</BODY>\n</html>")
    #expect(element.contains("var served = 7,"))
    #expect(element.contains("new EventSource(\"/e\")"))
  }

  @Test("a page without </body> gets the script at its end")
  func noBody() {
    #expect(injected("<p>a") == "<p>a" + ReloadScript.element(generation: 7, eventsPath: "/e"))
  }

  @Test("JSON strings cannot close the script element")
  func escaping() {
    #expect(
      ReloadScript.jsonString("a\"b\\c</script>\n\u{1}&")
        == "\"a\\\"b\\\\c\\u003c/script\\u003e\\n\\u0001\\u0026\"")
  }
}
