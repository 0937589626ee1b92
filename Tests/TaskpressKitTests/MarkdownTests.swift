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

  @Test("the HTML as bytes is the HTML as a string, valid UTF-8 even from invalid input")
  func bytes() {
    for source in ["*hi* <b>x</b> [a](javascript:x)", "", "# T\n\n- one\n- two © ☑"] {
      let bytes = Markdown.htmlBytes(from: Array(source.utf8))
      #expect(String(decoding: bytes, as: UTF8.self) == Markdown.html(from: source))
    }
    let invalid: [UInt8] = [0x61, 0xFF, 0x62, 0xE2, 0x98, 0x0A, 0xC0, 0xAF]
    let html = Markdown.htmlBytes(from: invalid)
    #expect(String(validating: html, as: UTF8.self) != nil)
    #expect(String(decoding: html, as: UTF8.self).contains("a\u{FFFD}b"))
  }

  @Test("an empty source renders empty") func empty() {
    #expect(Markdown.html(from: "") == "")
  }

  @Test("reports the linked libcmark version") func version() {
    #expect(Markdown.libraryVersion.hasPrefix("0."))
  }
}
