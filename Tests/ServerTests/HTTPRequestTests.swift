import Testing

@testable import Server

@Suite struct HTTPRequestTests {
  private func parse(_ text: String, limits: HTTPRequest.Limits = .init())
    -> HTTPRequest.ParseResult
  {
    HTTPRequest.parse(Array(text.utf8), limits: limits)
  }

  @Test("parses a request line and header fields, names lower-cased, values trimmed")
  func parsesHead() throws {
    let text = "GET /todos/3.html?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Thing:  a b \r\n\r\nrest"
    guard case .complete(let request, let consumed) = parse(text) else {
      Issue.record("not parsed: \(parse(text))")
      return
    }
    #expect(request.method == "GET")
    #expect(request.target == "/todos/3.html?x=1")
    #expect(request.minorVersion == 1)
    #expect(request.headers.map(\.name) == ["host", "x-thing"])
    #expect(request.header("X-THING") == "a b")
    #expect(consumed == text.utf8.count - 4)
  }

  @Test("a head without its empty line is incomplete, also with a bare LF")
  func incomplete() {
    #expect(parse("GET / HTTP/1.1\r\nHost: a\r\n") == .incomplete)
    #expect(parse("GET / HT") == .incomplete)
    guard case .complete = parse("GET / HTTP/1.0\n\n") else {
      Issue.record("a bare LF should end lines")
      return
    }
  }

  @Test(
    "malformed request lines are 400",
    arguments: [
      "GET /\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1 extra\r\n\r\n",
      "G(T / HTTP/1.1\r\n\r\n", "GET /a\u{7F}b HTTP/1.1\r\n\r\n", "GET / FTP/1.1\r\n\r\n",
      "\u{16}\u{03}\u{01}\u{02}\u{00}\r\n\r\n",
    ])
  func malformedLine(text: String) {
    #expect(parse(text) == .invalid(.badRequest, reason: "a malformed request line"))
  }

  @Test(
    "malformed header fields are 400",
    arguments: [
      "Host : a", ": value", "Bad Name: a", "Folded: a\r\n continued", "No colon", "X: a\u{1}b",
    ])
  func malformedField(field: String) {
    let result = parse("GET / HTTP/1.1\r\n\(field)\r\n\r\n")
    #expect(result == .invalid(.badRequest, reason: "a malformed header field"))
  }

  @Test("another HTTP version is 505")
  func version() {
    let result = parse("GET / HTTP/2.0\r\n\r\n")
    #expect(result == .invalid(.versionNotSupported, reason: "only HTTP/1.0 and HTTP/1.1"))
  }

  @Test("a request line longer than the limit is 414, even before it ends")
  func longLine() {
    var limits = HTTPRequest.Limits()
    limits.requestLine = 100
    let expected = HTTPRequest.ParseResult.invalid(
      .uriTooLong, reason: "the request line is longer than the limit")
    let long = "GET /" + String(repeating: "a", count: 200)
    #expect(parse(long, limits: limits) == expected)
    #expect(parse(long + " HTTP/1.1\r\n\r\n", limits: limits) == expected)
    #expect(
      parse("GET /" + String(repeating: "a", count: 80) + " HTTP/1.1\r\n\r\n", limits: limits)
        != expected)
  }

  @Test("a head over the size or field-count limit is 431")
  func largeHead() {
    var limits = HTTPRequest.Limits()
    limits.head = 200
    limits.headerCount = 3
    let expected = HTTPRequest.ParseResult.invalid(
      .headersTooLarge, reason: "the request head is larger than the limit")
    let big = "GET / HTTP/1.1\r\nX: " + String(repeating: "b", count: 300)
    #expect(parse(big, limits: limits) == expected)
    #expect(parse(big + "\r\n\r\n", limits: limits) == expected)
    let many = "GET / HTTP/1.1\r\n" + String(repeating: "A: 1\r\n", count: 4) + "\r\n"
    #expect(parse(many, limits: limits) == expected)
    let three = "GET / HTTP/1.1\r\n" + String(repeating: "A: 1\r\n", count: 3) + "\r\n"
    #expect(parse(three, limits: limits) != expected)
  }

  @Test("HTTP/1.1 keeps the connection open unless told to close; HTTP/1.0 only when asked")
  func keepAlive() {
    #expect(HTTPRequest(method: "GET", target: "/").keepsAlive)
    #expect(!HTTPRequest(method: "GET", target: "/", headers: [("connection", "Close")]).keepsAlive)
    #expect(!HTTPRequest(method: "GET", target: "/", minorVersion: 0).keepsAlive)
    #expect(
      HTTPRequest(
        method: "GET", target: "/", minorVersion: 0, headers: [("connection", "keep-alive")]
      ).keepsAlive)
  }
}
