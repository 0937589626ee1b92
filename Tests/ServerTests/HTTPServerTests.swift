import Foundation
import TestFixtures
import Testing

@testable import Server

@Suite struct HTTPServerTests {
  private func get(_ target: String, port: Int, method: String = "GET") throws -> String {
    let client = try #require(RawClient(port: port))
    client.send("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    return client.readAll()
  }

  @Test("GET serves the bytes with type and length; HTML gets the reload script, CSS does not")
  func get() throws {
    let site = try SampleSite()
    let server = try startServer(site)
    defer { server.stop() }
    let css = try get("/assets/style.css", port: server.port)
    #expect(css.hasPrefix("HTTP/1.1 200 OK\r\n"))
    #expect(css.contains("\r\nContent-Type: text/css; charset=utf-8\r\n"))
    #expect(css.contains("\r\nContent-Length: 19\r\n"))
    #expect(css.hasSuffix("\r\n\r\nbody { color: red }"))
    let html = try get("/", port: server.port)
    #expect(
      html.contains(
        "<h1>home</h1>" + ReloadScript.element(generation: 0, eventsPath: "/_taskpress/events")
          + "</body>"))
    let body = try #require(html.components(separatedBy: "\r\n\r\n").last)
    #expect(html.contains("\r\nContent-Length: \(body.utf8.count)\r\n"))
  }

  @Test("the files on disk never get the script")
  func diskUntouched() throws {
    let site = try SampleSite()
    let server = try startServer(site)
    defer { server.stop() }
    _ = try get("/", port: server.port)
    #expect(
      try String(contentsOfFile: site.root + "/index.html", encoding: .utf8)
        == "<html><body><h1>home</h1></body></html>")
  }

  @Test("HEAD sends the headers of GET and no body")
  func head() throws {
    let site = try SampleSite()
    let server = try startServer(site)
    defer { server.stop() }
    let head = try get("/assets/style.css", port: server.port, method: "HEAD")
    #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
    #expect(head.contains("\r\nContent-Length: 19\r\n"))
    #expect(head.hasSuffix("\r\n\r\n"))
  }

  @Test("a missing page is the site's 404.html with status 404; without one, a short page")
  func notFound() throws {
    let site = try SampleSite()
    let server = try startServer(site)
    defer { server.stop() }
    let missing = try get("/no/such/page.html", port: server.port)
    #expect(missing.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
    #expect(missing.contains("<html><body>missing page"))
    try FileManager.default.removeItem(atPath: site.root + "/404.html")
    let plain = try get("/no/such/page.html", port: server.port)
    #expect(plain.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
    #expect(plain.contains("\r\nContent-Type: text/html; charset=utf-8\r\n"))
    #expect(
      plain.contains(
        "<body><p>404 Not Found: nothing at this path</p><script data-taskpress-reload>"))
  }

  @Test("other methods are 405 with Allow; bodies are refused; HTTP/1.1 needs Host")
  func refusals() throws {
    let site = try SampleSite()
    let server = try startServer(site)
    defer { server.stop() }
    let post = try get("/", port: server.port, method: "POST")
    #expect(post.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"))
    #expect(post.contains("\r\nAllow: GET, HEAD\r\n"))
    let client = try #require(RawClient(port: server.port))
    client.send("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello")
    #expect(client.readAll().hasPrefix("HTTP/1.1 413 Content Too Large\r\n"))
    let chunked = try #require(RawClient(port: server.port))
    chunked.send("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
    #expect(chunked.readAll().hasPrefix("HTTP/1.1 501 Not Implemented\r\n"))
    let noHost = try #require(RawClient(port: server.port))
    noHost.send("GET / HTTP/1.1\r\n\r\n")
    #expect(noHost.readAll().contains("an HTTP/1.1 request needs a Host header"))
  }

  @Test("a kept-alive connection serves several requests, pipelined ones too")
  func keepAlive() throws {
    let site = try SampleSite()
    let server = try startServer(site)
    defer { server.stop() }
    let client = try #require(RawClient(port: server.port))
    let request = "GET /assets/style.css HTTP/1.1\r\nHost: a\r\n\r\n"
    client.send(
      request + request + "GET /data/todos.json HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
    let all = client.readAll()
    #expect(all.components(separatedBy: "HTTP/1.1 200 OK").count == 4)
    #expect(all.hasSuffix("[1,2]"))
  }

  @Test("under a base path the site is served there and / redirects to it")
  func basePath() throws {
    let site = try SampleSite()
    let server = try startServer(site, basePath: "/tasks/")
    defer { server.stop() }
    #expect(server.url == "http://127.0.0.1:\(server.port)/tasks/")
    #expect(try get("/tasks/assets/style.css", port: server.port).hasSuffix("body { color: red }"))
    let root = try get("/", port: server.port)
    #expect(root.hasPrefix("HTTP/1.1 302 Found\r\n"))
    #expect(root.contains("\r\nLocation: /tasks/\r\n"))
    #expect(try get("/assets/style.css", port: server.port).hasPrefix("HTTP/1.1 404"))
  }

  @Test("the event stream tells the state on connect and on every publish")
  func events() throws {
    let site = try SampleSite()
    let server = try startServer(site)
    defer { server.stop() }
    let client = try #require(RawClient(port: server.port))
    client.send("GET /_taskpress/events HTTP/1.1\r\nHost: a\r\n\r\n")
    let first = client.read(until: "\"error\":null}\n\n")
    #expect(first.hasPrefix("HTTP/1.1 200 OK\r\n"))
    #expect(first.contains("\r\nContent-Type: text/event-stream\r\n"))
    #expect(
      first.hasSuffix("retry: 500\n\nevent: state\ndata: {\"generation\":0,\"error\":null}\n\n"))
    #expect(eventually { server.eventStreams == 1 })
    server.publish(generation: 0, error: "Templates/todo.md:1:7: section 'oops' is never closed")
    #expect(
      client.read(until: "closed\"}\n\n")
        == "event: state\ndata: {\"generation\":0,\"error\":\"Templates/todo.md:1:7: section 'oops' is never closed\"}\n\n"
    )
    server.publish(generation: 1, error: nil)
    #expect(
      client.read(until: "null}\n\n") == "event: state\ndata: {\"generation\":1,\"error\":null}\n\n"
    )
  }
}
