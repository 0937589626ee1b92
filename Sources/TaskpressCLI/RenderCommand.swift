import Foundation
import Mustache

/// `taskpress render TEMPLATE [--data FILE.json] [--partials DIR]`: renders one template, as the
/// Mustache spec says (a missing partial renders empty), for debugging themes and spec tests.
struct RenderCommand {
  /// The template file; its extension picks the escaping (`.md` Markdown, else HTML).
  var template: String
  /// A JSON file with the data; none means an empty object.
  var data: String?
  /// The folder partials are read from; none means the template's own folder.
  var partials: String?

  /// Renders the template and returns exactly the rendered text.
  ///
  /// - Throws: ``RenderCommandError`` naming the file that could not be read or parsed, or
  ///   ``TemplateError`` naming the template, line and column.
  func run() throws -> String {
    let source = try Self.read(template)
    var value: MustacheValue = .object([:])
    if let data {
      do {
        value = try MustacheValue(jsonBytes: Self.read(data))
      } catch let error as JSONError {
        throw RenderCommandError(
          "\(data):\(error.line):\(error.column): not valid JSON: \(error.message)")
      }
    }
    let parsed = try Template(bytes: source, name: template)
    let resolver = DirectoryPartialResolver(directory: partials ?? Self.folder(of: template))
    return try parsed.render(value, partials: resolver, missingPartials: .renderEmpty)
  }

  private static func read(_ path: String) throws -> [UInt8] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw RenderCommandError("\(path): no such file")
    }
    guard !isDirectory.boolValue else {
      throw RenderCommandError("\(path): is a folder, not a file")
    }
    guard let contents = FileManager.default.contents(atPath: path) else {
      throw RenderCommandError("\(path): cannot be read; check its permissions")
    }
    return [UInt8](contents)
  }

  /// The folder holding `path` (`.` for a bare file name).
  static func folder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }
}

/// A file `taskpress render` could not use; the message starts with the file's path.
struct RenderCommandError: Error, Sendable, Equatable, CustomStringConvertible {
  var description: String

  init(_ description: String) {
    self.description = description
  }
}
