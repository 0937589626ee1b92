import Foundation

extension HTTPServer {
  /// Files up to this size are read whole before their response is sent.
  static let readWholeLimit = 1 << 20

  /// The response to `request`: a file of the site (HTML with the reload script), a redirect,
  /// the site's `404.html` with status 404, the event stream, or a refusal.
  public func respond(to request: HTTPRequest) -> HTTPResponse {
    guard request.method == "GET" || request.method == "HEAD" else {
      var response = HTTPResponse.text(.methodNotAllowed, "only GET and HEAD are served")
      response.headers.append(("Allow", "GET, HEAD"))
      return response
    }
    switch resolver.resolve(request.target) {
    case .events:
      return HTTPResponse(
        status: .ok,
        headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")],
        body: .eventStream)
    case .file(let path, let length):
      return fileResponse(.ok, path: path, length: length)
        ?? notFound(request.target)
    case .redirect(let location):
      var response = HTTPResponse.text(.found, "see \(location)")
      response.headers.append(("Location", location))
      return response
    case .notFound:
      return notFound(request.target)
    case .refused(let status, let reason):
      return .text(status, reason)
    }
  }

  private func notFound(_ target: String) -> HTTPResponse {
    if let page = resolver.notFoundPage,
      let response = fileResponse(.notFound, path: page.path, length: page.length)
    {
      return response
    }
    // An HTML page, so that the reload script shows a build error even before a first site.
    let page =
      "<!DOCTYPE html>\n<title>Not found</title>\n<body><p>404 Not Found: nothing at this path</p></body>\n"
    let html = ReloadScript.inject(
      into: Array(page.utf8), generation: currentGeneration, eventsPath: resolver.eventsPath)
    return HTTPResponse(
      status: .notFound,
      headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
      body: .bytes(html))
  }

  private func fileResponse(_ status: HTTPStatus, path: String, length: Int) -> HTTPResponse? {
    let type = ContentType.forPath(path)
    let headers: [(name: String, value: String)] = [
      ("Content-Type", type), ("Cache-Control", "no-store"),
      ("X-Content-Type-Options", "nosniff"),
    ]
    guard ContentType.isHTML(type) else {
      // Small files are read at once, so the length sent is that of the bytes sent even when a
      // rebuild replaces the file meanwhile; larger ones are streamed.
      guard length <= Self.readWholeLimit else {
        return HTTPResponse(
          status: status, headers: headers, body: .file(path: path, length: length))
      }
      guard let data = FileManager.default.contents(atPath: path) else { return nil }
      return HTTPResponse(status: status, headers: headers, body: .bytes(Array(data)))
    }
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    let html = ReloadScript.inject(
      into: Array(data), generation: currentGeneration, eventsPath: resolver.eventsPath)
    return HTTPResponse(status: status, headers: headers, body: .bytes(html))
  }
}
