/// The media type a file is served with, chosen by its extension.
public enum ContentType {
  private static let types: [String: String] = [
    "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
    "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
    "mjs": "text/javascript; charset=utf-8", "json": "application/json",
    "csv": "text/csv; charset=utf-8", "txt": "text/plain; charset=utf-8",
    "md": "text/markdown; charset=utf-8", "xml": "application/xml",
    "atom": "application/atom+xml", "rss": "application/rss+xml",
    "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
    "gif": "image/gif", "webp": "image/webp", "bmp": "image/bmp", "tif": "image/tiff",
    "tiff": "image/tiff", "heic": "image/heic", "heif": "image/heif", "avif": "image/avif",
    "ico": "image/x-icon", "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf",
    "otf": "font/otf", "pdf": "application/pdf", "wasm": "application/wasm",
    "webmanifest": "application/manifest+json", "zip": "application/zip",
  ]

  /// The type for `path`, `application/octet-stream` when the extension is unknown.
  public static func forPath(_ path: Substring) -> String {
    let name = path.split(separator: "/").last ?? ""
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else {
      return "application/octet-stream"
    }
    let ext = name[name.index(after: dot)...].lowercased()
    return types[ext] ?? "application/octet-stream"
  }

  /// The type for `path`.
  public static func forPath(_ path: String) -> String { forPath(path[...]) }

  /// Whether responses of this type get the live-reload script.
  public static func isHTML(_ type: String) -> Bool { type.hasPrefix("text/html") }
}
