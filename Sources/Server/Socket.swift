#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A TCP socket of the C library, closed when the last reference goes.
final class Socket: Sendable {
  let descriptor: Int32

  init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  deinit { close(descriptor) }

  /// A socket listening on `host` (an IPv4 or IPv6 address, or `localhost`) and `port` (0: any
  /// free port).
  static func listen(host: String, port: Int, backlog: Int32 = 256) throws(ServerError) -> Socket {
    let address = host == "localhost" ? "127.0.0.1" : host
    let isIPv6 = address.contains(":")
    let family = isIPv6 ? AF_INET6 : AF_INET
    #if canImport(Glibc)
      let kind = Int32(SOCK_STREAM.rawValue)
    #else
      let kind = SOCK_STREAM
    #endif
    let descriptor = socket(family, kind, 0)
    guard descriptor >= 0 else { throw ServerError(host: host, port: port, reason: errorText()) }
    let socket = Socket(descriptor: descriptor)
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    var yes: Int32 = 1
    setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var bound: Int32
    if isIPv6 {
      var storage = sockaddr_in6()
      storage.sin6_family = sa_family_t(AF_INET6)
      storage.sin6_port = in_port_t(UInt16(port).bigEndian)
      guard inet_pton(AF_INET6, address, &storage.sin6_addr) == 1 else {
        throw ServerError(host: host, port: port, reason: "not an IP address")
      }
      bound = withUnsafePointer(to: &storage) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
      }
    } else {
      var storage = sockaddr_in()
      storage.sin_family = sa_family_t(AF_INET)
      storage.sin_port = in_port_t(UInt16(port).bigEndian)
      guard inet_pton(AF_INET, address, &storage.sin_addr) == 1 else {
        throw ServerError(host: host, port: port, reason: "not an IP address")
      }
      bound = withUnsafePointer(to: &storage) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
    }
    guard bound == 0 else { throw ServerError(host: host, port: port, reason: errorText()) }
    guard System.listen(descriptor, backlog) == 0 else {
      throw ServerError(host: host, port: port, reason: errorText())
    }
    return socket
  }

  /// The port the socket is bound to.
  var localPort: Int {
    var storage = sockaddr_in6()
    var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
    let result = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(descriptor, $0, &length)
      }
    }
    guard result == 0 else { return 0 }
    // sin_port and sin6_port are at the same offset.
    return Int(UInt16(bigEndian: storage.sin6_port))
  }

  /// Waits up to `milliseconds` until the socket can be read (or a listener accepted from).
  func waitReadable(milliseconds: Int32) -> Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    let ready = poll(&entry, 1, milliseconds)
    return ready > 0
  }

  /// The next connection, or nil when none is waiting.
  func accept() -> Socket? {
    let client = System.accept(descriptor)
    guard client >= 0 else { return nil }
    System.noSignalOnWrite(client)
    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
    return Socket(descriptor: client)
  }

  /// What one read gave.
  enum ReadResult: Equatable {
    case data(Int)
    case closed
    case timedOut
  }

  /// Appends what arrives within `milliseconds` (at most `limit` bytes) to `buffer`.
  func read(into buffer: inout [UInt8], limit: Int, milliseconds: Int32) -> ReadResult {
    guard waitReadable(milliseconds: milliseconds) else { return .timedOut }
    var chunk = [UInt8](repeating: 0, count: max(1, limit))
    let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
    guard count > 0 else { return .closed }
    buffer.append(contentsOf: chunk[..<count])
    return .data(count)
  }

  /// Sets how long a send may block before it fails (a client that stops reading).
  func setSendTimeout(seconds: Int) {
    var value = timeval(tv_sec: seconds, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
  }

  /// Sends all of `bytes`; false when the peer is gone or stopped reading. With `wait` false
  /// it never blocks, and a full send buffer is a failure.
  @discardableResult
  func send(_ bytes: [UInt8], wait: Bool = true) -> Bool {
    var offset = 0
    let flags = System.noSignal | (wait ? 0 : Int32(MSG_DONTWAIT))
    while offset < bytes.count {
      let count = bytes.withUnsafeBytes {
        System.send(descriptor, $0.baseAddress?.advanced(by: offset), bytes.count - offset, flags)
      }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { return false }
      offset += count
    }
    return true
  }

  /// Stops sending (the peer reads the end of the response), then discards what the peer still
  /// sends for a short while, so that closing does not reset the connection before the peer has
  /// read the response.
  func lingeringClose(maximumBytes: Int = 2 << 20, milliseconds: Int32 = 1000) {
    shutdown(descriptor, Int32(SHUT_WR))
    var discarded = 0
    var sink: [UInt8] = []
    while discarded < maximumBytes {
      sink.removeAll(keepingCapacity: true)
      guard case .data(let count) = read(into: &sink, limit: 64 * 1024, milliseconds: milliseconds)
      else { return }
      discarded += count
    }
  }

  private static func errorText() -> String {
    String(cString: strerror(errno))
  }
}

/// The server could not start.
public struct ServerError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The address asked for.
  public var host: String
  /// The port asked for.
  public var port: Int
  /// What the C library said.
  public var reason: String

  /// Creates an error.
  public init(host: String, port: Int, reason: String) {
    self.host = host
    self.port = port
    self.reason = reason
  }

  public var description: String {
    "cannot listen on \(host):\(port): \(reason); choose another with '--port' or '--host'"
  }
}
