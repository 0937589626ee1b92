import Foundation
import Mustache

/// The templates, assets and labels a site is made with: the built-in theme, overridden file by
/// file by a user's templates folder.
struct Theme: Sendable {
  /// A file of the theme and where it came from, for error messages.
  struct File: Sendable {
    var contents: [UInt8]
    /// `Templates/todo.md` for a user's file, `(built-in)/todo.md` for the theme's own.
    var displayPath: String
  }

  /// Every file by its path in the theme (`todo.md`, `assets/style.css`).
  private(set) var files: [String: File]

  /// The built-in theme alone.
  static let builtIn = Theme(
    files: BuiltinTheme.files.mapValues { text in
      File(contents: Array(text.utf8), displayPath: "")
    }
  ).withDisplayPaths(prefix: "(built-in)/")

  private func withDisplayPaths(prefix: String) -> Theme {
    var copy = self
    for (path, file) in files {
      copy.files[path] = File(contents: file.contents, displayPath: prefix + path)
    }
    return copy
  }

  /// The built-in theme with the files of `folder` on top.
  static func load(overrides folder: String?) throws -> Theme {
    var theme = builtIn
    guard let folder else { return theme }
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
      throw ThemeError("\(folder): no such templates folder")
    }
    guard isFolder.boolValue else {
      throw ThemeError("\(folder): the templates path is a file, not a folder")
    }
    let prefix = folder.hasSuffix("/") ? folder : folder + "/"
    for path in try listFiles(in: folder) {
      guard let data = FileManager.default.contents(atPath: prefix + path) else {
        throw ThemeError("\(prefix)\(path): cannot read the file")
      }
      theme.files[path] = File(contents: [UInt8](data), displayPath: prefix + path)
    }
    return theme
  }

  /// Files under `folder`, relative to it, sorted; hidden files and README.md are skipped.
  private static func listFiles(in folder: String) throws -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: folder) else {
      throw ThemeError("\(folder): cannot list the templates folder")
    }
    var paths: [String] = []
    while let path = enumerator.nextObject() as? String {
      let name = (path as NSString).lastPathComponent
      if name.hasPrefix(".") || path == "README.md" || path == "taskpress.json" {
        continue
      }
      var isFolder: ObjCBool = false
      let full = (folder as NSString).appendingPathComponent(path)
      if FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue {
        paths.append(path)
      }
    }
    return paths.sorted()
  }

  /// The templates: `.html` and `.md` files outside `assets/`, sorted.
  var templatePaths: [String] {
    files.keys.filter { path in
      !path.hasPrefix("assets/") && (path.hasSuffix(".html") || path.hasSuffix(".md"))
    }.sorted()
  }

  /// The theme's static files, copied into the site as they are.
  var assets: [(path: String, contents: [UInt8])] {
    files.keys.sorted().filter { $0.hasPrefix("assets/") }.compactMap { path in
      files[path].map { (path, $0.contents) }
    }
  }

  /// The body template of a page kind: `index.html` or `index.md`, a user's file first.
  func bodyTemplate(_ base: String) throws -> String {
    let candidates = [base + ".html", base + ".md"]
    let user = candidates.filter {
      files[$0].map { !$0.displayPath.hasPrefix("(built-in)") } ?? false
    }
    if let first = user.first { return first }
    if let first = candidates.first(where: { files[$0] != nil }) { return first }
    throw ThemeError("the theme has no template '\(base).html' or '\(base).md'")
  }

  /// The text of a template, repairing invalid UTF-8.
  func text(of path: String) -> String? {
    files[path].map { String(decoding: $0.contents, as: UTF8.self) }
  }

  /// Labels of `locale`, with the theme's `labels.json` (`{"en": {...}, "ja": {...}}`) on top.
  func labels(_ locale: BuildOptions.Locale) throws -> Labels {
    var labels = Labels.builtIn(locale)
    guard let file = files["labels.json"] else { return labels }
    let value: MustacheValue
    do {
      value = try MustacheValue(jsonBytes: file.contents)
    } catch {
      throw ThemeError("\(file.displayPath): not valid JSON (\(error))")
    }
    guard case .object(let locales) = value else {
      throw ThemeError("\(file.displayPath): expected an object of locales, e.g. {\"en\": {...}}")
    }
    guard let overrides = locales[locale.rawValue] else { return labels }
    guard case .object(let texts) = overrides else {
      throw ThemeError("\(file.displayPath): '\(locale.rawValue)' must be an object of labels")
    }
    for (key, text) in texts.sorted(by: { $0.key < $1.key }) {
      guard Labels.keys.contains(key) else {
        throw ThemeError("\(file.displayPath): unknown label '\(key)' in '\(locale.rawValue)'")
      }
      guard case .string(let string) = text else {
        throw ThemeError("\(file.displayPath): label '\(key)' must be a string")
      }
      labels.texts[key] = string
    }
    return labels
  }
}

/// A problem with the theme or a user's templates folder.
public struct ThemeError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong, naming the file.
  public var message: String

  init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}
