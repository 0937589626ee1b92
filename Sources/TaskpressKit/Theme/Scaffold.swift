import Foundation

/// `taskpress init`: writes the default theme and a `taskpress.json` to start from.
public enum Scaffold {
  /// The config file `init` writes, pointing at the theme it writes beside it.
  static let config = """
    {
      "todos": "todo.sqlite",
      "templates": "templates",
      "output": "site"
    }

    """

  /// Writes `taskpress.json` and `templates/` (every file of the built-in theme) into `folder`.
  ///
  /// Nothing is overwritten: when any of the files exists, nothing is written at all.
  /// - Returns: the paths written, relative to `folder`, sorted.
  /// - Throws: ``BuildError`` naming the file that is in the way or could not be written.
  public static func write(into folder: String) throws -> [String] {
    var files: [(path: String, contents: String)] = [("taskpress.json", config)]
    for (path, text) in BuiltinTheme.files.sorted(by: { $0.key < $1.key }) {
      files.append(("templates/" + path, text))
    }
    files.append(("templates/README.md", BuiltinTheme.readme))
    let manager = FileManager.default
    let prefix = folder.hasSuffix("/") ? folder : folder + "/"
    var isFolder: ObjCBool = false
    if manager.fileExists(atPath: folder, isDirectory: &isFolder), !isFolder.boolValue {
      throw BuildError("\(folder): is a file, not a folder")
    }
    for file in files where manager.fileExists(atPath: prefix + file.path) {
      throw BuildError(
        "\(prefix)\(file.path): already exists; init writes into a new or empty folder"
          + " and never overwrites")
    }
    for file in files {
      let full = prefix + file.path
      let parent = (full as NSString).deletingLastPathComponent
      do {
        try manager.createDirectory(atPath: parent, withIntermediateDirectories: true)
        try Data(file.contents.utf8).write(
          to: URL(fileURLWithPath: full), options: .withoutOverwriting)
      } catch {
        throw BuildError("\(full): cannot write the file (\(error.localizedDescription))")
      }
    }
    return files.map(\.path).sorted()
  }
}
