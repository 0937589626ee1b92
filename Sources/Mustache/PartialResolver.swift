import Foundation

/// Finds the templates that `{{> name}}` and `{{< name}}` refer to.
///
/// Conforming types are shared by concurrent renders, so they are `Sendable`; a resolver that
/// caches must lock its cache.
public protocol PartialResolver: Sendable {
  /// Returns the template that `name` refers to from the template named `includer`, or `nil`
  /// when there is none.
  ///
  /// - Throws: ``TemplateError`` when the partial exists but is malformed or unreadable.
  func partial(named name: String, includedFrom includer: String) throws -> Template?
}

extension PartialResolver {
  /// The names to try for `{{> name}}` in `includer`: `name` with the includer's extension
  /// (`header` from `todo.md` is `header.md`), then `name` as written.
  static func candidates(for name: String, includedFrom includer: String) -> [String] {
    let fileName = includer.split(separator: "/").last.map(String.init) ?? includer
    guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return [name] }
    let pathExtension = String(fileName[dot...])
    return name.hasSuffix(pathExtension) ? [name] : [name + pathExtension, name]
  }
}

/// Partials held in memory by name, e.g. a theme compiled into the binary.
///
/// `{{> header}}` in `todo.md` finds `header.md`, or else `header`.
public struct DictionaryPartialResolver: PartialResolver {
  private let templates: [String: Template]

  /// Creates a resolver holding `templates`, found by their names.
  public init(templates: [Template]) {
    self.templates = Dictionary(templates.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
  }

  /// Parses `sources`, a dictionary from name (e.g. `header.md`) to template text; each
  /// template's escaping follows the extension of its name.
  ///
  /// - Throws: ``TemplateError`` for the first malformed template, in name order.
  public init(sources: [String: String]) throws(TemplateError) {
    var templates: [Template] = []
    for name in sources.keys.sorted() {
      templates.append(try Template(source: sources[name] ?? "", name: name))
    }
    self.init(templates: templates)
  }

  public func partial(named name: String, includedFrom includer: String) -> Template? {
    for candidate in Self.candidates(for: name, includedFrom: includer) {
      if let template = templates[candidate] { return template }
    }
    return nil
  }
}

/// Partials read from files in a directory, parsed once and cached (safe to share between
/// threads).
///
/// `{{> header}}` in `todo.md` reads `DIR/header.md`, or else `DIR/header`. Names that would
/// leave the directory (`..`, absolute paths) are never found: a dynamic name comes from data.
public final class DirectoryPartialResolver: PartialResolver, @unchecked Sendable {
  /// The directory partials are read from.
  public let directory: String
  private let lock = NSLock()
  // Guarded by `lock`. A cached `nil` is a file that does not exist.
  private var cache: [String: Template?] = [:]

  /// Creates a resolver reading partials from `directory`.
  public init(directory: String) {
    self.directory = directory
  }

  public func partial(named name: String, includedFrom includer: String) throws -> Template? {
    guard Self.isSafe(name) else { return nil }
    for candidate in Self.candidates(for: name, includedFrom: includer) {
      if let template = try load(candidate) { return template }
    }
    return nil
  }

  private func load(_ name: String) throws -> Template? {
    let path = directory.isEmpty ? name : (directory.hasSuffix("/") ? directory : directory + "/") + name
    let cached = lock.withLock { cache[path] }
    if let cached { return cached }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      !isDirectory.boolValue
    else {
      lock.withLock { cache[path] = .some(nil) }
      return nil
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw TemplateError(
        .unreadablePartial(path, reason: "permission denied or I/O error"), template: path,
        line: 1, column: 1)
    }
    let template = try Template(bytes: [UInt8](data), name: path)
    lock.withLock { cache[path] = .some(template) }
    return template
  }

  private static func isSafe(_ name: String) -> Bool {
    !name.hasPrefix("/") && !name.contains("\0")
      && !name.split(separator: "/", omittingEmptySubsequences: false).contains("..")
  }
}
