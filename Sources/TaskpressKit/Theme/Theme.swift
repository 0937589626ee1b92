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

  /// Whether the file at `path` comes from the user's templates folder.
  func isUserFile(_ path: String) -> Bool {
    files[path].map { !$0.displayPath.hasPrefix("(built-in)/") } ?? false
  }

  /// Labels of `locale`: its built-in table (or, for a locale taskpress has none of, English)
  /// with its table of the theme's `labels.json` on top. `de-CH` uses a `de-CH` table, else a
  /// `de` one.
  ///
  /// - Returns: the labels, and warnings about `labels.json` (a placeholder left out, labels
  ///   a new locale has no text for).
  /// - Throws: ``ThemeError`` listing every mistake in `labels.json`, or naming the locales
  ///   there are when `locale` has no table.
  func labels(_ locale: BuildOptions.Locale) throws -> (labels: Labels, warnings: [BuildWarning]) {
    let tables = try LabelTables(file: files["labels.json"])
    var warnings = tables.warnings
    let tag = locale.rawValue
    let language = String(tag.prefix { $0 != "-" })
    let builtIn = Labels.builtInTables[tag] ?? Labels.builtInTables[language]
    let own = tables.tables[tag] ?? tables.tables[language]
    guard builtIn != nil || own != nil else {
      let builtInNames = Labels.builtInTables.keys.sorted().map { "'\($0)'" }
      var message =
        "no labels for the locale '\(tag)': the locales are "
        + builtInNames.joined(separator: ", ") + " (built in)"
      let added = tables.tables.keys.sorted().filter { Labels.builtInTables[$0] == nil }
      if !added.isEmpty {
        message += " and " + added.map { "'\($0)'" }.joined(separator: ", ") + " (labels.json)"
      }
      message += "; add a \"\(tag)\" table of labels to labels.json in the templates folder"
      var error = ThemeError(message)
      error.isUnknownLocale = true
      throw error
    }
    var labels = Labels(texts: builtIn ?? Labels.english)
    for (key, text) in own ?? [:] {
      labels.texts[key] = text
    }
    if builtIn == nil, let own, let path = files["labels.json"]?.displayPath {
      let missing = Labels.keys.filter { own[$0] == nil }
      if !missing.isEmpty {
        let table = tables.tables[tag] == nil ? language : tag
        warnings.append(
          BuildWarning(
            file: path,
            message:
              "'\(table)' has no text for \(missing.count) of the \(Labels.keys.count) labels,"
              + " shown in English: " + missing.map { "'\($0)'" }.joined(separator: ", ")))
      }
    }
    return (labels, warnings)
  }
}

/// The tables of a theme's `labels.json` (`{"en": {"board": "Kanban"}, "de": {...}}`), each
/// checked: locales as language tags, label names known, texts as strings, placeholders known.
struct LabelTables {
  /// Label texts by locale.
  var tables: [String: [String: String]] = [:]
  var warnings: [BuildWarning] = []

  /// Reads `file`; no file is no tables.
  ///
  /// - Throws: ``ThemeError`` with every mistake, each naming the file, line and column.
  init(file: Theme.File?) throws {
    guard let file else { return }
    let path = file.displayPath
    let document: JSONElement
    do {
      document = try JSONElement(jsonBytes: file.contents)
    } catch {
      throw ThemeError("\(path):\(error.line):\(error.column): not valid JSON: \(error.message)")
    }
    let example = #"{"en": {"board": "Kanban"}}"#
    guard case .object(let locales) = document.value else {
      throw ThemeError(
        "\(path):\(document.line):\(document.column): expected an object of locales, e.g. \(example)"
      )
    }
    var problems: [String] = []
    for member in locales {
      let at = "\(path):\(member.line):\(member.column)"
      guard BuildOptions.Locale(rawValue: member.key) != nil else {
        if Labels.keys.contains(member.key) {
          problems.append(
            "\(at): '\(member.key)' is a label, not a locale: put labels in the table of a"
              + " locale, e.g. \(example)")
        } else {
          problems.append(
            "\(at): '\(member.key)' is not a locale: expected a language tag such as 'en', 'ja'"
              + " or 'de'")
        }
        continue
      }
      guard case .object(let labels) = member.value.value else {
        problems.append("\(at): '\(member.key)' must be an object of labels, e.g. \(example)")
        continue
      }
      var table: [String: String] = [:]
      for label in labels {
        let at = "\(path):\(label.line):\(label.column)"
        guard Labels.keys.contains(label.key) else {
          var message = "\(at): unknown label '\(label.key)' in '\(member.key)'"
          if let suggestion = Suggestion.closest(to: label.key, in: Labels.keys) {
            message += "; did you mean '\(suggestion)'?"
          }
          problems.append(message)
          continue
        }
        guard case .string(let text) = label.value.value else {
          problems.append(
            "\(at): label '\(label.key)' in '\(member.key)' must be a string of text")
          continue
        }
        let expected = Labels.placeholders[label.key] ?? []
        let used = Self.placeholders(in: text)
        for name in used where !expected.contains(name) {
          var message =
            "\(at): label '\(label.key)' in '\(member.key)' has an unknown placeholder '{\(name)}'"
          if let suggestion = Suggestion.closest(to: name, in: expected) {
            message += "; did you mean '{\(suggestion)}'?"
          }
          message +=
            expected.isEmpty
            ? " (this label has none)"
            : " (its placeholders are " + expected.map { "'{\($0)}'" }.joined(separator: ", ") + ")"
          problems.append(message)
        }
        let left = expected.filter { !used.contains($0) && !Self.optionalPlaceholders.contains($0) }
        if !left.isEmpty, used.allSatisfy(expected.contains) {
          warnings.append(
            BuildWarning(
              file: path, location: "\(label.line):\(label.column)",
              message:
                "label '\(label.key)' in '\(member.key)' leaves out "
                + left.map { "'{\($0)}'" }.joined(separator: ", ")))
        }
        table[label.key] = text
      }
      tables[member.key, default: [:]].merge(table) { $1 }
    }
    if !problems.isEmpty { throw ThemeError(problems: problems) }
  }

  /// Placeholders a label may leave out: a date may be written with or without leading zeros.
  static let optionalPlaceholders: Set<String> = ["month", "day", "mm", "dd"]

  /// The names of the `{name}` placeholders in `text`.
  static func placeholders(in text: String) -> [String] {
    var names: [String] = []
    var rest = text[...]
    while let open = rest.firstIndex(of: "{") {
      let after = rest[rest.index(after: open)...]
      guard let close = after.firstIndex(of: "}") else { break }
      let name = after[..<close]
      if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber }) {
        names.append(String(name))
      }
      rest = after[after.index(after: close)...]
    }
    return names
  }
}

/// A problem with the theme or a user's templates folder: one or several, each naming the
/// file (and the line and column where there is one).
public struct ThemeError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Each problem found, in the order of the files and lines.
  public var problems: [String]

  /// The first problem.
  public var message: String { problems.first ?? "" }

  /// Whether the problem is the `--locale` asked for, which has no labels: a usage error (the
  /// value of an option), not a broken theme.
  public var isUnknownLocale = false

  init(_ message: String) {
    problems = [message]
  }

  init(problems: [String]) {
    self.problems = problems
  }

  /// The problems, one a line; the lines after the first start with `error: `, as the CLI
  /// prints the first.
  public var description: String { problems.joined(separator: "\nerror: ") }
}
