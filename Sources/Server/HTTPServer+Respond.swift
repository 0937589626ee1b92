import Foundation

extension HTTPServer {
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
    return .text(.notFound, "nothing at this path")
  }

  private func fileResponse(_ status: HTTPStatus, path: String, length: Int) -> HTTPResponse? {
    let type = ContentType.forPath(path)
    let headers: [(name: String, value: String)] = [
      ("Content-Type", type), ("Cache-Control", "no-store"),
      ("X-Content-Type-Options", "nosniff"),
    ]
    guard ContentType.isHTML(type) else {
      return HTTPResponse(status: status, headers: headers, body: .file(path: path, length: length))
    }
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    let html = ReloadScript.inject(
      into: Array(data), generation: currentGeneration, eventsPath: resolver.eventsPath)
    return HTTPResponse(status: status, headers: headers, body: .bytes(html))
  }
}
