import Foundation

/// Finds the templates that `{{> name}}` and `{{< name}}` refer to.
///
/// Conforming types are shared by concurrent renders, so they are `Sendable`; a resolver that
/// caches must lock its cache. Within one render, the answer for a tag is reused wherever the
/// tag renders again (for each element of a section, say): a resolver gives the same answer for
/// the same name and includer throughout a render.
public protocol PartialResolver: Sendable {
  /// Returns the template that `name` refers to from the template named `includer`, or `nil`
  /// when there is none.
  ///
  /// - Throws: ``TemplateError`` when the partial exists but is malformed or unreadable.
  func partial(named name: String, includedFrom includer: String) throws -> Template?
}

extension PartialResolver {
  /// The extension of the file `includer` names, with its dot (`.md` for `Templates/todo.md`),
  /// or `nil` when it has none.
  static func pathExtension(of includer: String) -> Substring? {
    let bytes = includer.utf8
    var index = bytes.endIndex
    while index > bytes.startIndex {
      let previous = bytes.index(before: index)
      switch bytes[previous] {
      case UInt8(ascii: "/"):
        return nil
      case UInt8(ascii: "."):
        // A leading dot starts a hidden file's name, not an extension.
        if previous == bytes.startIndex || bytes[bytes.index(before: previous)] == UInt8(ascii: "/")
        {
          return nil
        }
        return includer[previous...]
      default:
        index = previous
      }
    }
    return nil
  }

  /// The names to try for `{{> name}}` in `includer`: `name` with the includer's extension
  /// (`header` from `todo.md` is `header.md`), then `name` as written.
  static func candidates(for name: String, includedFrom includer: String) -> [String] {
    guard let pathExtension = pathExtension(of: includer), !name.hasSuffix(pathExtension) else {
      return [name]
    }
    return [name + pathExtension, name]
  }
}

/// Partials held in memory by name, e.g. a theme compiled into the binary.
///
/// `{{> header}}` in `todo.md` finds `header.md`, or else `header`.
public struct DictionaryPartialResolver: PartialResolver {
  private let templates: [String: Template]

  /// Creates a resolver holding `templates`, found by their names.
  public init(templates: [Template]) {
    self.templates = Dictionary(
      templates.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
  }

  /// Creates a resolver holding `templates`, found by the names they are given here (a theme's
  /// paths, `nav.html`, while each template's own name says where it came from).
  public init(templatesByName templates: [String: Template]) {
    self.templates = templates
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
    if let pathExtension = Self.pathExtension(of: includer), !name.hasSuffix(pathExtension),
      let template = templates[name + pathExtension]
    {
      return template
    }
    return templates[name]
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
  // Guarded by `lock`: the answer for each extension and name, or `nil` for no such file.
  private var cache: [String: Template?] = [:]

  /// Creates a resolver reading partials from `directory`.
  public init(directory: String) {
    self.directory = directory
  }

  public func partial(named name: String, includedFrom includer: String) throws -> Template? {
    let key = (Self.pathExtension(of: includer) ?? "") + "/" + name
    if let cached = lock.withLock({ cache[key] }) { return cached }
    var found: Template?
    if Self.isSafe(name) {
      for candidate in Self.candidates(for: name, includedFrom: includer) {
        found = try load(candidate)
        if found != nil { break }
      }
    }
    lock.withLock { cache[key] = .some(found) }
    return found
  }

  private func load(_ name: String) throws -> Template? {
    let path =
      directory.isEmpty ? name : (directory.hasSuffix("/") ? directory : directory + "/") + name
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      !isDirectory.boolValue
    else { return nil }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw TemplateError(
        .unreadablePartial(path, reason: "permission denied or I/O error"), template: path,
        line: 1, column: 1)
    }
    return try Template(bytes: [UInt8](data), name: path)
  }

  private static func isSafe(_ name: String) -> Bool {
    !name.hasPrefix("/") && !name.contains("\0")
      && !name.split(separator: "/", omittingEmptySubsequences: false).contains("..")
  }
}
