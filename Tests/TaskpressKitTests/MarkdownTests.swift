import Testing

@testable import TaskpressKit

@Suite struct MarkdownTests {
  @Test("renders a paragraph with emphasis") func paragraph() {
    #expect(Markdown.html(from: "*hi* there") == "<p><em>hi</em> there</p>\n")
  }

  @Test("raw HTML is not passed through by default") func safeByDefault() {
    let html = Markdown.html(from: "<script>alert(1)</script>\n\n[x](javascript:alert(1))")
    #expect(!html.contains("<script"))
    #expect(!html.contains("javascript:"))
  }

  @Test("unsafe rendering is an explicit option") func unsafeOption() {
    let html = Markdown.html(from: "<b>bold</b>", options: [.unsafeRawHTML])
    #expect(html == "<p><b>bold</b></p>\n")
  }

  @Test("an empty source renders empty") func empty() {
    #expect(Markdown.html(from: "") == "")
  }

  @Test("reports the linked libcmark version") func version() {
    #expect(Markdown.libraryVersion.hasPrefix("0."))
  }
}
