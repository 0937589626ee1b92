import Foundation
import Synchronization

/// A small HTTP/1.1 server of one site folder, with a live-reload event stream.
///
/// One thread accepts; each connection gets a thread of its own, up to
/// `Configuration.maxConnections` at once (more are answered 503 and closed). A request head is
/// bounded in size and must arrive within `requestTimeout`; only GET and HEAD are served. An
/// event-stream connection is handed to ``EventStream`` and needs no thread.
public final class HTTPServer: Sendable {
  /// How the server listens and what it bounds.
  public struct Configuration: Sendable {
    /// The address to listen on.
    public var host = "127.0.0.1"
    /// The port; 0 picks a free one (see ``HTTPServer/port``).
    public var port = 8000
    /// The site folder.
    public var root: String
    /// The path the site is served under, e.g. `/tasks/`.
    public var basePath = "/"
    /// Connections served at once (event streams not counted).
    public var maxConnections = 256
    /// Open event streams at once.
    public var maxEventStreams = 64
    /// The limits of a request head.
    public var limits = HTTPRequest.Limits()
    /// Seconds a request head may take to arrive, and an idle connection may stay open.
    public var requestTimeout = 10

    /// A configuration serving `root`.
    public init(root: String) {
      self.root = root
    }
  }

  /// The port the server listens on.
  public let port: Int
  /// Where files are looked up.
  public let resolver: SiteResolver
  private let configuration: Configuration
  private let listener: Socket
  private let events: EventStream
  private let generation = Atomic<Int>(0)
  private let active = Atomic<Int>(0)
  private let stopping = Atomic<Bool>(false)
  private let acceptorDone = Mutex<Bool>(false)

  /// Binds the socket; call ``start()`` to serve.
  public init(_ configuration: Configuration) throws(ServerError) {
    self.configuration = configuration
    listener = try Socket.listen(host: configuration.host, port: configuration.port)
    port = listener.localPort
    resolver = SiteResolver(root: configuration.root, basePath: configuration.basePath)
    events = EventStream(capacity: configuration.maxEventStreams)
    publish(generation: 0, error: nil)
  }

  /// The address to open in a browser, e.g. `http://127.0.0.1:8000/tasks/`.
  public var url: String {
    let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
    return "http://\(host):\(port)\(resolver.basePath)"
  }

  /// Connections being served now (event streams not counted).
  public var activeConnections: Int { active.load(ordering: .acquiring) }

  /// Open event streams.
  public var eventStreams: Int { events.count }

  /// The generation last published.
  public var currentGeneration: Int { generation.load(ordering: .acquiring) }

  /// Starts accepting connections on a thread of its own.
  public func start() {
    let thread = Thread { [self] in acceptLoop() }
    thread.name = "taskpress-serve-accept"
    thread.start()
  }

  /// Stops accepting, closes the event streams, and returns when the accepting thread is done
  /// (connections being served finish on their own).
  public func stop() {
    stopping.store(true, ordering: .releasing)
    while !acceptorDone.withLock({ $0 }) { usleep(10_000) }
    events.closeAll()
  }

  /// Tells every open page the state of the site: the generation of the last good build (a
  /// page served at another one reloads) and the error of the last build, if it failed.
  public func publish(generation value: Int, error: String?) {
    generation.store(value, ordering: .releasing)
    let errorJSON = error.map(ReloadScript.jsonString) ?? "null"
    events.publish(event: "state", data: "{\"generation\":\(value),\"error\":\(errorJSON)}")
  }

  // MARK: - Connections

  private func acceptLoop() {
    var lastPing = ContinuousClock.now
    while !stopping.load(ordering: .acquiring) {
      if ContinuousClock.now - lastPing > .seconds(10) {
        events.ping()
        lastPing = ContinuousClock.now
      }
      guard listener.waitReadable(milliseconds: 200), let client = listener.accept() else {
        continue
      }
      client.setSendTimeout(seconds: configuration.requestTimeout)
      if active.load(ordering: .acquiring) >= configuration.maxConnections {
        refuse(client, .serviceUnavailable, "too many connections; try again")
        continue
      }
      active.add(1, ordering: .acquiringAndReleasing)
      let thread = Thread { [self] in
        serve(client)
        active.subtract(1, ordering: .acquiringAndReleasing)
      }
      thread.stackSize = 512 * 1024
      thread.start()
    }
    acceptorDone.withLock { $0 = true }
  }

  /// Refused connections still being closed (`refuse`).
  private let closingRefused = Atomic<Int>(0)
  /// Refused connections closed at once, gently, on threads of their own; beyond that many,
  /// closed at once.
  static let gentleRefusals = 64

  /// Answers `status` and closes the connection. The close lingers (on a thread of its own)
  /// until the peer has read the answer and closed its end, or for a second: closing with a
  /// request unread would reset the connection, and the peer might never see the answer.
  private func refuse(_ client: Socket, _ status: HTTPStatus, _ message: String) {
    var response = HTTPResponse.text(status, message)
    if status == .serviceUnavailable { response.headers.append(("Retry-After", "1")) }
    if case .bytes(let body) = response.body {
      client.send(response.head(keepAlive: false) + body, wait: false)
    }
    guard closingRefused.add(1, ordering: .acquiringAndReleasing).newValue <= Self.gentleRefusals
    else {
      closingRefused.subtract(1, ordering: .acquiringAndReleasing)
      client.lingeringClose(maximumBytes: 64 * 1024, milliseconds: 0)
      return
    }
    let thread = Thread { [self] in
      client.lingeringClose(maximumBytes: 64 * 1024, milliseconds: 1000)
      closingRefused.subtract(1, ordering: .acquiringAndReleasing)
    }
    thread.stackSize = 128 * 1024
    thread.start()
  }

  private func serve(_ client: Socket) {
    var buffer: [UInt8] = []
    let limits = configuration.limits
    while !stopping.load(ordering: .acquiring) {
      let deadline = ContinuousClock.now + .seconds(configuration.requestTimeout)
      var parsed = HTTPRequest.parse(buffer, limits: limits)
      while parsed == .incomplete {
        let left = deadline - ContinuousClock.now
        let milliseconds = Int32(max(0, min(left.components.seconds * 1000 + 1, 1000)))
        guard left > .zero else {
          if !buffer.isEmpty {
            send(.text(.requestTimeout, "the request took too long to arrive"), to: client)
          }
          return
        }
        switch client.read(into: &buffer, limit: 16 * 1024, milliseconds: milliseconds) {
        case .closed: return
        case .timedOut: if stopping.load(ordering: .acquiring) { return }
        case .data: parsed = HTTPRequest.parse(buffer, limits: limits)
        }
      }
      guard case .complete(let request, let consumed) = parsed else {
        if case .invalid(let status, let reason) = parsed {
          send(.text(status, reason), to: client)
          client.lingeringClose()
        }
        return
      }
      buffer.removeFirst(consumed)
      if let refusal = check(request) {
        send(refusal, to: client)
        client.lingeringClose()
        return
      }
      let response = respond(to: request)
      if response.body == .eventStream {
        guard client.send(response.head(keepAlive: true)), events.add(client) else {
          send(.text(.serviceUnavailable, "too many live-reload streams"), to: client)
          return
        }
        return
      }
      let keepAlive = request.keepsAlive
      guard send(response, to: client, includeBody: request.method != "HEAD", keepAlive: keepAlive),
        keepAlive
      else { return }
    }
  }

  /// A response for a request the server does not take at all (a body, no Host).
  private func check(_ request: HTTPRequest) -> HTTPResponse? {
    if request.header("transfer-encoding") != nil {
      return .text(.notImplemented, "request bodies are not accepted")
    }
    if let length = request.header("content-length") {
      guard let value = Int(length), value >= 0 else {
        return .text(.badRequest, "a malformed Content-Length")
      }
      if value > 0 { return .text(.contentTooLarge, "request bodies are not accepted") }
    }
    if request.minorVersion >= 1, request.header("host") == nil {
      return .text(.badRequest, "an HTTP/1.1 request needs a Host header")
    }
    return nil
  }

  @discardableResult
  private func send(
    _ response: HTTPResponse, to client: Socket, includeBody: Bool = true, keepAlive: Bool = false
  ) -> Bool {
    guard client.send(response.head(keepAlive: keepAlive)) else { return false }
    guard includeBody else { return true }
    switch response.body {
    case .bytes(let bytes):
      return client.send(bytes)
    case .file(let path, let length):
      return sendFile(path, length: length, to: client)
    case .eventStream:
      return true
    }
  }

  private func sendFile(_ path: String, length: Int, to client: Socket) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    var left = length
    while left > 0 {
      guard let chunk = try? handle.read(upToCount: min(left, 64 * 1024)), !chunk.isEmpty else {
        return false  // the file shrank while it was sent: the length said is wrong, so close
      }
      guard client.send(Array(chunk)) else { return false }
      left -= chunk.count
    }
    return true
  }
}
