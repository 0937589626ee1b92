/// One HTTP/1.x request head: the request line and the header fields (a body is never read).
public struct HTTPRequest: Sendable, Equatable {
  /// The method as sent, e.g. `GET`.
  public var method: String
  /// The request target as sent, e.g. `/todos/3.html?x=1`.
  public var target: String
  /// `1.0` or `1.1`, as the minor version number.
  public var minorVersion: Int
  /// The header fields in order, names lower-cased.
  public var headers: [(name: String, value: String)]

  /// Creates a request.
  public init(
    method: String, target: String, minorVersion: Int = 1,
    headers: [(name: String, value: String)] = []
  ) {
    self.method = method
    self.target = target
    self.minorVersion = minorVersion
    self.headers = headers
  }

  /// The value of the first header named `name` (case-insensitive).
  public func header(_ name: String) -> String? {
    let lowered = name.lowercased()
    return headers.first { $0.name == lowered }?.value
  }

  /// Whether the connection stays open after the response (HTTP/1.1 unless `Connection: close`;
  /// HTTP/1.0 only with `Connection: keep-alive`).
  public var keepsAlive: Bool {
    let tokens = (header("connection") ?? "").lowercased().split(separator: ",").map {
      $0.trimmingSpaces
    }
    if minorVersion >= 1 { return !tokens.contains("close") }
    return tokens.contains("keep-alive")
  }

  public static func == (left: HTTPRequest, right: HTTPRequest) -> Bool {
    left.method == right.method && left.target == right.target
      && left.minorVersion == right.minorVersion
      && left.headers.map(\.name) == right.headers.map(\.name)
      && left.headers.map(\.value) == right.headers.map(\.value)
  }
}

// MARK: - Parsing

extension HTTPRequest {
  /// The limits a request head must keep.
  public struct Limits: Sendable {
    /// Bytes of the request line, CRLF included (longer: 414).
    public var requestLine = 8 * 1024
    /// Bytes of the whole head (longer: 431).
    public var head = 32 * 1024
    /// Header fields (more: 431).
    public var headerCount = 100

    /// The default limits.
    public init() {}
  }

  /// What the bytes received so far make.
  public enum ParseResult: Sendable, Equatable {
    /// The head is not complete yet; read more.
    case incomplete
    /// A whole head, and how many bytes of the buffer it took.
    case complete(HTTPRequest, consumed: Int)
    /// A head that can never be valid: answer with `status` and close.
    case invalid(HTTPStatus, reason: String)
  }

  /// Parses a request head from the start of `bytes` (RFC 9112; a bare LF ends a line too).
  public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) -> ParseResult {
    // Empty lines before the request line are ignored (RFC 9112 §2.2).
    var start = 0
    while start < bytes.count, bytes[start] == 0x0D || bytes[start] == 0x0A { start += 1 }
    guard let lineEnd = findLineEnd(bytes, from: start) else {
      if bytes.count - start > limits.requestLine {
        return .invalid(.uriTooLong, reason: "the request line is longer than the limit")
      }
      return .incomplete
    }
    if lineEnd.contentEnd - start > limits.requestLine {
      return .invalid(.uriTooLong, reason: "the request line is longer than the limit")
    }
    var headers: [(name: String, value: String)] = []
    var position = lineEnd.next
    var headEnd: Int?
    while let line = findLineEnd(bytes, from: position) {
      if line.contentEnd == position {
        headEnd = line.next
        break
      }
      if line.next - start > limits.head || headers.count >= limits.headerCount {
        return .invalid(.headersTooLarge, reason: "the request head is larger than the limit")
      }
      guard let field = parseField(bytes[position..<line.contentEnd]) else {
        return .invalid(.badRequest, reason: "a malformed header field")
      }
      headers.append(field)
      position = line.next
    }
    guard let headEnd else {
      if bytes.count - start > limits.head {
        return .invalid(.headersTooLarge, reason: "the request head is larger than the limit")
      }
      return .incomplete
    }
    switch parseRequestLine(bytes[start..<lineEnd.contentEnd]) {
    case .failure(let failure):
      return .invalid(failure.status, reason: failure.reason)
    case .success(let line):
      let request = HTTPRequest(
        method: line.method, target: line.target, minorVersion: line.minor, headers: headers)
      return .complete(request, consumed: headEnd)
    }
  }

  private struct LineEnd {
    var contentEnd: Int
    var next: Int
  }

  private static func findLineEnd(_ bytes: [UInt8], from start: Int) -> LineEnd? {
    var index = start
    while index < bytes.count {
      if bytes[index] == 0x0A {
        let contentEnd = index > start && bytes[index - 1] == 0x0D ? index - 1 : index
        return LineEnd(contentEnd: contentEnd, next: index + 1)
      }
      index += 1
    }
    return nil
  }

  private struct RequestLine {
    var method: String
    var target: String
    var minor: Int
  }

  private struct LineFailure: Error {
    var status: HTTPStatus
    var reason: String
  }

  private static func parseRequestLine(
    _ line: ArraySlice<UInt8>
  ) -> Result<RequestLine, LineFailure> {
    let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
      parts[0].allSatisfy(isTokenByte), parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F })
    else {
      return .failure(LineFailure(status: .badRequest, reason: "a malformed request line"))
    }
    let version = Array(parts[2])
    let prefix = Array("HTTP/1.".utf8)
    guard version.count == prefix.count + 1, Array(version.prefix(prefix.count)) == prefix,
      let digit = version.last, digit >= 0x30, digit <= 0x39
    else {
      if version.starts(with: Array("HTTP/".utf8)) {
        return .failure(
          LineFailure(status: .versionNotSupported, reason: "only HTTP/1.0 and HTTP/1.1"))
      }
      return .failure(LineFailure(status: .badRequest, reason: "a malformed request line"))
    }
    return .success(
      RequestLine(
        method: String(decoding: parts[0], as: UTF8.self),
        target: String(decoding: parts[1], as: UTF8.self), minor: Int(digit - 0x30)))
  }

  private static func parseField(_ line: ArraySlice<UInt8>) -> (name: String, value: String)? {
    guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex else { return nil }
    let name = line[line.startIndex..<colon]
    // No whitespace between the name and the colon (RFC 9112 §5.1), no obsolete line folding.
    guard name.allSatisfy(isTokenByte) else { return nil }
    var value = line[(colon + 1)...]
    while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
    while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
    guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else { return nil }
    return (
      String(decoding: name, as: UTF8.self).lowercased(), String(decoding: value, as: UTF8.self)
    )
  }

  /// `tchar` of RFC 9110 §5.6.2.
  private static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    default:
      return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
  }
}

extension Substring {
  var trimmingSpaces: Substring {
    var text = self
    while text.first == " " || text.first == "\t" { text = text.dropFirst() }
    while text.last == " " || text.last == "\t" { text = text.dropLast() }
    return text
  }
}
