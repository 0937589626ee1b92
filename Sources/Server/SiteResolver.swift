#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Maps a request target to a file of the site folder, and never to anything outside it.
///
/// The rules, in order: only origin-form targets (`/...`) under the base path; each segment is
/// percent-decoded, and a decoded segment that is `.` or `..`, or holds a `/`, `\` or NUL, is a
/// bad request (so `%2e%2e` and `%2f` cannot climb out); a segment starting with `.` (the
/// build's state folder, `.git`) is not found; a folder is served by its `index.html` (without
/// the trailing slash it redirects); and the real path of the file, symlinks resolved, must
/// still be inside the real path of the site, else it is forbidden.
public struct SiteResolver: Sendable {
  /// What a target resolves to.
  public enum Resolution: Sendable, Equatable {
    /// A regular file: its real path and length.
    case file(path: String, length: Int)
    /// A redirect to this target (a folder without its slash, the root outside the base path).
    case redirect(String)
    /// The live-reload event stream.
    case events
    /// Nothing there.
    case notFound
    /// Refused with this status (400 for a malformed or climbing path, 403 for a link out).
    case refused(HTTPStatus, reason: String)
  }

  /// The site folder; its real path is taken on every request, so it may appear later.
  public let root: String
  /// The path the site is served under: `/` or e.g. `/tasks/` (always with both slashes).
  public let basePath: String

  /// The target of the event stream, under the base path.
  public var eventsPath: String { basePath + "_taskpress/events" }

  /// Creates a resolver of `root` served under `basePath` (`/` by default).
  public init(root: String, basePath: String = "/") {
    self.root = root
    self.basePath = Self.normalizedBasePath(basePath)
  }

  /// `tasks`, `/tasks`, `/tasks/` all give `/tasks/`; the empty path gives `/`.
  public static func normalizedBasePath(_ path: String) -> String {
    let parts = path.split(separator: "/")
    return parts.isEmpty ? "/" : "/" + parts.joined(separator: "/") + "/"
  }

  /// Resolves `target`.
  public func resolve(_ target: String) -> Resolution {
    let pathPart = target.prefix { $0 != "?" && $0 != "#" }
    let query = target[pathPart.endIndex...]
    guard pathPart.hasPrefix("/") else {
      return .refused(.badRequest, reason: "the target must be a path starting with '/'")
    }
    if pathPart == eventsPath { return .events }
    guard pathPart.hasPrefix(basePath) else {
      if pathPart == "/" || basePath.dropLast() == pathPart { return .redirect(basePath + query) }
      return .notFound
    }
    var segments: [String] = []
    for raw in pathPart.dropFirst(basePath.count).split(separator: "/") {
      guard let segment = Self.percentDecode(raw) else {
        return .refused(.badRequest, reason: "a malformed percent-escape in the path")
      }
      if segment == "." || segment == ".." {
        return .refused(.badRequest, reason: "the path may not contain '.' or '..' segments")
      }
      if segment.contains("/") || segment.contains("\\") || segment.contains("\0") {
        return .refused(.badRequest, reason: "the path may not contain '/', '\\' or NUL escaped")
      }
      if segment.hasPrefix(".") { return .notFound }
      segments.append(segment)
    }
    let realRoot = Self.realPath(root) ?? root
    var path = ([realRoot] + segments).joined(separator: "/")
    var info = stat()
    guard stat(path, &info) == 0 else { return .notFound }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      guard pathPart.hasSuffix("/") else { return .redirect(pathPart + "/" + query) }
      path += "/index.html"
      guard stat(path, &info) == 0 else { return .notFound }
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else { return .notFound }
    guard let real = Self.realPath(path), real.hasPrefix(realRoot + "/") else {
      return .refused(.forbidden, reason: "the file is a link to outside the site")
    }
    return .file(path: real, length: Int(info.st_size))
  }

  /// The site's `404.html`, when it has one inside the folder.
  public var notFoundPage: (path: String, length: Int)? {
    guard case .file(let path, let length) = SiteResolver(root: root).resolve("/404.html") else {
      return nil
    }
    return (path, length)
  }

  /// Decodes `%XX` escapes; nil for a malformed escape or bytes that are not UTF-8.
  static func percentDecode(_ text: Substring) -> String? {
    guard text.contains("%") else { return String(text) }
    var bytes: [UInt8] = []
    var iterator = Array(text.utf8).makeIterator()
    while let byte = iterator.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard let high = iterator.next().flatMap(hexValue),
        let low = iterator.next().flatMap(hexValue)
      else { return nil }
      bytes.append(high << 4 | low)
    }
    return String(validating: bytes, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
