#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The status codes the server answers with.
public enum HTTPStatus: Int, Sendable, Equatable {
  case ok = 200
  case movedPermanently = 301
  case found = 302
  case badRequest = 400
  case forbidden = 403
  case notFound = 404
  case methodNotAllowed = 405
  case requestTimeout = 408
  case contentTooLarge = 413
  case uriTooLong = 414
  case headersTooLarge = 431
  case notImplemented = 501
  case serviceUnavailable = 503
  case versionNotSupported = 505

  /// The reason phrase of RFC 9110.
  public var reason: String {
    switch self {
    case .ok: "OK"
    case .movedPermanently: "Moved Permanently"
    case .found: "Found"
    case .badRequest: "Bad Request"
    case .forbidden: "Forbidden"
    case .notFound: "Not Found"
    case .methodNotAllowed: "Method Not Allowed"
    case .requestTimeout: "Request Timeout"
    case .contentTooLarge: "Content Too Large"
    case .uriTooLong: "URI Too Long"
    case .headersTooLarge: "Request Header Fields Too Large"
    case .notImplemented: "Not Implemented"
    case .serviceUnavailable: "Service Unavailable"
    case .versionNotSupported: "HTTP Version Not Supported"
    }
  }
}

/// A response: status, header fields and a body that is either bytes or a file to stream.
public struct HTTPResponse: Sendable {
  /// Where the body comes from.
  public enum Body: Sendable, Equatable {
    /// These bytes.
    case bytes([UInt8])
    /// The file at this path, `length` bytes long, streamed.
    case file(path: String, length: Int)
    /// No body and no length: a stream of events that stays open.
    case eventStream
  }

  /// The status.
  public var status: HTTPStatus
  /// Header fields besides `Content-Length`, `Date` and `Connection`, which are added on sending.
  public var headers: [(name: String, value: String)]
  /// The body.
  public var body: Body

  /// Creates a response.
  public init(status: HTTPStatus, headers: [(name: String, value: String)] = [], body: Body) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A short plain-text response, e.g. for errors.
  public static func text(_ status: HTTPStatus, _ message: String) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: [("Content-Type", "text/plain; charset=utf-8")],
      body: .bytes(Array("\(status.rawValue) \(status.reason): \(message)\n".utf8)))
  }

  /// The value of the first header named `name` (case-insensitive).
  public func header(_ name: String) -> String? {
    let lowered = name.lowercased()
    return headers.first { $0.name.lowercased() == lowered }?.value
  }

  /// The length of the body, or nil for an event stream.
  public var contentLength: Int? {
    switch body {
    case .bytes(let bytes): bytes.count
    case .file(_, let length): length
    case .eventStream: nil
    }
  }

  /// The status line and header fields, ending with the empty line.
  public func head(keepAlive: Bool, date: String = HTTPResponse.currentDate()) -> [UInt8] {
    var text = "HTTP/1.1 \(status.rawValue) \(status.reason)\r\n"
    text += "Date: \(date)\r\n"
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    if let length = contentLength { text += "Content-Length: \(length)\r\n" }
    text += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
    return Array(text.utf8)
  }

  /// The current time in the IMF-fixdate form of RFC 9110 §5.6.7.
  public static func currentDate() -> String {
    var now = time(nil)
    var parts = tm()
    gmtime_r(&now, &parts)
    var buffer = [CChar](repeating: 0, count: 64)
    let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
    return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
