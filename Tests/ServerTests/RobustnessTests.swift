import Foundation
import Synchronization
import TestFixtures
import Testing

@testable import Server

#if canImport(Glibc)
  import Glibc
#endif

/// The server under hostile and heavy traffic, on 127.0.0.1 only, bounded in count: no crash,
/// the right status for each, nothing outside the site, and every connection released.
@Suite struct RobustnessTests {
  @Test("200 concurrent connections are all answered, and all released afterwards")
  func concurrent() throws {
    let site = try SampleSite()
    let server = try startServer(site)
    defer { server.stop() }
    // All 200 connect first and stay open, then each sends its request.
    let clients = (0..<200).compactMap { _ in RawClient(port: server.port) }
    #expect(clients.count == 200)
    let statuses = Mutex<[Int]>([])
    DispatchQueue.concurrentPerform(iterations: clients.count) { index in
      clients[index].send("GET /assets/style.css HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
      let response = clients[index].readAll()
      let status = RawClient.status(response) ?? 0
      statuses.withLock { $0.append(status) }
    }
    let all = statuses.withLock { $0 }
    #expect(all.count == 200)
    #expect(all.allSatisfy { $0 == 200 }, "statuses: \(Set(all))")
    #expect(eventually { server.activeConnections == 0 }, "\(server.activeConnections) still open")
  }

  @Test("more connections than the bound are answered 503 with Retry-After, then served again")
  func bounded() throws {
    let site = try SampleSite()
    let server = try startServer(site) { $0.maxConnections = 4 }
    defer { server.stop() }
    let holders = (0..<4).compactMap { _ in RawClient(port: server.port) }
    #expect(eventually { server.activeConnections == 4 })
    let extra = try #require(RawClient(port: server.port))
    let refused = extra.readAll()
    #expect(refused.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
    #expect(refused.contains("\r\nRetry-After: 1\r\n"))
    for holder in holders { shutdown(holder.descriptor, Int32(SHUT_WR)) }
    #expect(eventually { server.activeConnections == 0 })
    let later = try #require(RawClient(port: server.port))
    later.send("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
    #expect(RawClient.status(later.readAll()) == 200)
  }

  @Test(
    "past the bound, a client that sent its request reads the whole 503 and a clean end, not a reset"
  )
  func refusedWithoutReset() throws {
    let site = try SampleSite()
    let server = try startServer(site) { $0.maxConnections = 2 }
    defer { server.stop() }
    let holders = (0..<2).compactMap { _ in RawClient(port: server.port) }
    #expect(eventually { server.activeConnections == 2 })
    for _ in 0..<20 {
      let extra = try #require(RawClient(port: server.port))
      // The request arrives before the server answers: closing with it unread would reset.
      extra.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
      var bytes: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 4096)
      var end = 0
      while true {
        let count = chunk.withUnsafeMutableBytes {
          recv(extra.descriptor, $0.baseAddress, $0.count, 0)
        }
        guard count > 0 else {
          end = count < 0 ? Int(errno) : 0
          break
        }
        bytes += chunk[..<count]
      }
      let text = String(decoding: bytes, as: UTF8.self)
      #expect(text.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
      #expect(text.hasSuffix("too many connections; try again\n"), "\(text)")
      #expect(end == 0, "the connection ended with errno \(end), not a clean close")
    }
    for holder in holders { shutdown(holder.descriptor, Int32(SHUT_WR)) }
    #expect(eventually { server.activeConnections == 0 })
  }

  @Test(
    "malformed requests get their status and the connection closes",
    arguments: [
      ("GET /\r\n\r\n", 400), ("GARBAGE\r\n\r\n", 400), ("GET / HTTP/3.0\r\n\r\n", 505),
      ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400), ("GET / HTTP/1.1\r\nno colon\r\n\r\n", 400),
      ("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400), ("\u{0}\u{1}\u{2}\r\n\r\n", 400),
      ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
      ("DELETE /index.html HTTP/1.1\r\nHost: a\r\n\r\n", 405),
      ("GET / HTTP/1.1\r\n" + String(repeating: "X-A: b\r\n", count: 150) + "\r\n", 431),
      ("GET / HTTP/1.1\r\nX: " + String(repeating: "b", count: 40_000) + "\r\n\r\n", 431),
    ])
  func malformed(request: String, status: Int) throws {
    let site = try SampleSite()
    let server = try startServer(site)
    defer { server.stop() }
    let client = try #require(RawClient(port: server.port))
    client.send(request)
    let response = client.readAll()
    #expect(RawClient.status(response) == status, "\(response.prefix(200))")
    #expect(eventually { server.activeConnections == 0 })
  }

  @Test("a 1 MB URL is 414, and the server keeps serving")
  func longURL() throws {
    let site = try SampleSite()
    let server = try startServer(site)
    defer { server.stop() }
    let client = try #require(RawClient(port: server.port))
    let sender = Thread {
      client.send("GET /" + String(repeating: "a", count: 1 << 20) + " HTTP/1.1\r\nHost: a\r\n\r\n")
    }
    sender.start()
    let response = client.readAll()
    #expect(response.hasPrefix("HTTP/1.1 414 URI Too Long\r\n"))
    let next = try #require(RawClient(port: server.port))
    next.send("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
    #expect(RawClient.status(next.readAll()) == 200)
    #expect(eventually { server.activeConnections == 0 })
  }

  @Test("a client sending one byte a second gets 408 while others are served")
  func slowClient() throws {
    let site = try SampleSite()
    let server = try startServer(site) { $0.requestTimeout = 2 }
    defer { server.stop() }
    let slow = try #require(RawClient(port: server.port))
    let request = Array(
      "GET / HTTP/1.1\r\nHost: a\r\nX-Slow: \(String(repeating: "z", count: 30))\r\n\r\n".utf8)
    let dribble = Thread {
      for byte in request {
        guard slow.send([byte]) else { return }
        sleep(1)
      }
    }
    dribble.start()
    let other = try #require(RawClient(port: server.port))
    other.send("GET /assets/style.css HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
    #expect(RawClient.status(other.readAll()) == 200)
    let response = slow.readAll()
    #expect(response.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
    #expect(eventually { server.activeConnections == 0 })
  }

  @Test(
    "traversal attempts never serve a file outside the site",
    arguments: [
      ("/../secret.txt", 400), ("/%2e%2e/secret.txt", 400), ("/%2e%2e%2fsecret.txt", 400),
      ("/assets/..%2f..%2fsecret.txt", 400), ("/..\\secret.txt", 400), ("/%5c..%5csecret.txt", 400),
      ("/escape.txt", 403), ("/escape/secret.txt", 403), ("//etc/passwd", 404),
      ("/.taskpress/manifest", 404), ("http://127.0.0.1/../secret.txt", 400),
      ("/index.html%00", 400), ("/%c0%ae%c0%ae/secret.txt", 400),
    ])
  func traversal(target: String, status: Int) throws {
    let site = try SampleSite()
    let server = try startServer(site)
    defer { server.stop() }
    let client = try #require(RawClient(port: server.port))
    client.send("GET \(target) HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
    let response = client.readAll()
    #expect(RawClient.status(response) == status, "\(response.prefix(300))")
    #expect(!response.contains(SampleSite.secret))
    #expect(!response.contains("root:"))
  }
}
