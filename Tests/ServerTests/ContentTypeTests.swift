import Testing

@testable import Server

@Suite struct ContentTypeTests {
  @Test(
    "the type follows the extension, case-insensitively",
    arguments: [
      ("index.html", "text/html; charset=utf-8"), ("a/b/style.CSS", "text/css; charset=utf-8"),
      ("assets/app.js", "text/javascript; charset=utf-8"), ("data/todos.json", "application/json"),
      ("data/todos.csv", "text/csv; charset=utf-8"), ("sitemap.xml", "application/xml"),
      ("photos/ab.png", "image/png"), ("photos/ab.JPG", "image/jpeg"), ("p.webp", "image/webp"),
      ("p.avif", "image/avif"), ("icon.svg", "image/svg+xml"), ("favicon.ico", "image/x-icon"),
      ("README", "application/octet-stream"), (".hidden", "application/octet-stream"),
      ("archive.unknown", "application/octet-stream"),
    ])
  func types(path: String, type: String) {
    #expect(ContentType.forPath(path) == type)
  }

  @Test("only HTML gets the reload script")
  func html() {
    #expect(ContentType.isHTML(ContentType.forPath("a.html")))
    #expect(!ContentType.isHTML(ContentType.forPath("a.svg")))
    #expect(!ContentType.isHTML(ContentType.forPath("a.xml")))
  }
}
