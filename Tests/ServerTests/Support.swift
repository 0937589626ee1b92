import Foundation

@testable import Server

#if canImport(Glibc)
  import Glibc
#endif

/// A new empty folder of this test's own.
func makeTemporaryFolder() throws -> String {
  let path = FileManager.default.temporaryDirectory.appending(
    path: "taskpress-server-\(UUID().uuidString)"
  ).path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return SiteResolver.realPath(path) ?? path
}

func write(_ text: String, to path: String) throws {
  let url = URL(fileURLWithPath: path)
  try FileManager.default.createDirectory(
    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
  try Data(text.utf8).write(to: url)
}

/// A site folder with a few files, and a secret beside it that must never be served.
struct SampleSite {
  let folder: String
  var root: String { folder + "/site" }
  static let secret = "SECRET-OUTSIDE-THE-SITE"

  init() throws {
    folder = try makeTemporaryFolder()
    try write("<html><body><h1>home</h1></body></html>", to: root + "/index.html")
    try write("<html><body>missing page</body></html>", to: root + "/404.html")
    try write("body { color: red }", to: root + "/assets/style.css")
    try write("<html><body>todo 3</body></html>", to: root + "/todos/3/index.html")
    try write("[1,2]", to: root + "/data/todos.json")
    try write("state", to: root + "/.taskpress/manifest")
    try write(Self.secret, to: folder + "/secret.txt")
    try FileManager.default.createSymbolicLink(
      atPath: root + "/escape.txt", withDestinationPath: folder + "/secret.txt")
    try FileManager.default.createSymbolicLink(
      atPath: root + "/escape", withDestinationPath: folder)
    try FileManager.default.createSymbolicLink(
      atPath: root + "/inside.css", withDestinationPath: root + "/assets/style.css")
  }
}

/// A raw client of the C library's sockets, to 127.0.0.1 only.
final class RawClient: Sendable {
  let descriptor: Int32

  init?(port: Int) {
    descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(descriptor)
      return nil
    }
  }

  deinit { close(descriptor) }

  @discardableResult
  func send(_ text: String) -> Bool { send(Array(text.utf8)) }

  @discardableResult
  func send(_ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let count = bytes.withUnsafeBytes {
        Glibc.send(
          descriptor, $0.baseAddress?.advanced(by: offset), bytes.count - offset,
          Int32(MSG_NOSIGNAL))
      }
      guard count > 0 else { return false }
      offset += count
    }
    return true
  }

  /// Everything until the server closes the connection (or `limit` bytes).
  func readAll(limit: Int = 4 << 20) -> String {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while bytes.count < limit {
      let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { break }
      bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Reads until `marker` has arrived (or the connection ends).
  func read(until marker: String) -> String {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while !String(decoding: bytes, as: UTF8.self).contains(marker) {
      let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { break }
      bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The status code of a response text.
  static func status(_ response: String) -> Int? {
    let parts = response.split(separator: " ", maxSplits: 2)
    return parts.count >= 2 ? Int(parts[1]) : nil
  }
}

/// A server of the sample site on a free port of 127.0.0.1.
func startServer(
  _ site: SampleSite, basePath: String = "/",
  configure: (inout HTTPServer.Configuration) -> Void = { _ in }
) throws -> HTTPServer {
  var configuration = HTTPServer.Configuration(root: site.root)
  configuration.port = 0
  configuration.basePath = basePath
  configure(&configuration)
  let server = try HTTPServer(configuration)
  server.start()
  return server
}
