/// Where each page of the site lives and how pages link to each other.
///
/// Every link is relative, so one build works at `/`, under a sub-path and from `file://`.
public struct Routes: Sendable {
  /// With pretty URLs a page is `todos/3/index.html` and is linked as `todos/3/`.
  public var prettyURLs: Bool

  /// Creates the routes of a site.
  public init(prettyURLs: Bool) {
    self.prettyURLs = prettyURLs
  }

  /// The file of the page whose pretty path is `name` (`todos/3`, `page/2`, `board`), or the
  /// site's front page for `""`.
  public func file(_ name: String) -> String {
    if name.isEmpty { return "index.html" }
    if name.hasSuffix("/index") || name == "index" || name == "404" { return name + ".html" }
    return prettyURLs ? name + "/index.html" : name + ".html"
  }

  /// The relative link from the page in `fromFile` to the page named `name`.
  public func link(to name: String, fromFile: String) -> String {
    var target = file(name)
    if prettyURLs, target.hasSuffix("index.html") {
      target.removeLast("index.html".count)
    }
    return relative(target, fromFile: fromFile)
  }

  /// The relative link from the page in `fromFile` to a file of the site (`assets/style.css`).
  public func asset(_ path: String, fromFile: String) -> String {
    relative(path, fromFile: fromFile)
  }

  /// The relative URL from the folder of `fromFile` to `target` (both relative to the site's
  /// root; a `target` ending in `/` is a folder): within the page's folder just the name,
  /// anywhere else up to the root and down again.
  func relative(_ target: String, fromFile: String) -> String {
    // The common cases without splitting: a page at the root, or a target in the page's folder.
    guard let slash = fromFile.utf8.lastIndex(of: UInt8(ascii: "/")) else {
      return target.isEmpty ? "./" : target
    }
    let folder = fromFile.utf8[...slash]
    if target.utf8.elementsEqual(folder) { return "./" }
    if target.utf8.count > folder.count, target.utf8.starts(with: folder),
      !target.utf8.dropFirst(folder.count).contains(UInt8(ascii: "/"))
    {
      return String(target.utf8.dropFirst(folder.count)) ?? target
    }
    // Anywhere else: up to the root, then down to the target.
    let url = root(fromFile: fromFile) + target
    return url.isEmpty ? "./" : url
  }

  /// `../` once per folder between `fromFile` and the site's root; empty at the root.
  public func root(fromFile: String) -> String {
    let depth = fromFile.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "/") ? 1 : 0) }
    return String(repeating: "../", count: depth)
  }

  /// The absolute URL of a page for canonical links and the sitemap.
  public func absolute(_ name: String, baseURL: String) -> String {
    var base = baseURL
    if !base.hasSuffix("/") { base += "/" }
    var path = file(name)
    if prettyURLs, path.hasSuffix("index.html") { path.removeLast("index.html".count) }
    if !prettyURLs, path == "index.html" { path = "" }
    return base + path
  }
}
