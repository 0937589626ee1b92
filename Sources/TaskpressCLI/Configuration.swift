import Foundation
import TaskpressKit

/// Merges `taskpress.json` (or `--config FILE`) under the flags of `taskpress build`.
enum Configuration {
  /// The file read when `--config` is not given and the file exists in the current folder.
  static let defaultFile = "taskpress.json"

  /// The build options the flags and the config file ask for; flags win.
  static func buildOptions(
    from parsed: ParsedArguments, currentDirectory: String
  ) throws(UsageError) -> BuildOptions {
    var options = BuildOptions()
    let explicit = parsed.values["config"]
    let configPath = explicit ?? defaultFile
    let fullPath = resolve(configPath, against: currentDirectory)
    if explicit != nil || FileManager.default.fileExists(atPath: fullPath) {
      let entries = try readConfig(displayPath: configPath, fullPath: fullPath)
      let base = (configPath as NSString).deletingLastPathComponent
      for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
        try apply(key: key, json: value, file: configPath, base: base, to: &options)
      }
    }
    for (name, value) in parsed.values.sorted(by: { $0.key < $1.key }) where name != "config" {
      try apply(name: name, value: value, source: "'--\(name)'", to: &options)
    }
    for name in parsed.switches.sorted() {
      try apply(name: name, value: "true", source: "'--\(name)'", to: &options)
    }
    return options
  }

  /// The keys `taskpress.json` accepts: every option of `build` but `config` and `help`.
  static var keys: [String] {
    Specs.build.options.map(\.name).filter { $0 != "config" && $0 != "help" }
  }

  /// One value of `taskpress.json`.
  private enum ConfigValue: Decodable {
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    /// A source's file with its table, columns and filter (see `Configuration+Mapping.swift`).
    case mapping([String: MappingField])
    case other

    init(from decoder: Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let value = try? container.decode(Bool.self) {
        self = .bool(value)
      } else if let value = try? container.decode(Int.self) {
        self = .integer(value)
      } else if let value = try? container.decode(Double.self) {
        self = .number(value)
      } else if let value = try? container.decode(String.self) {
        self = .string(value)
      } else if let value = try? container.decode([String: MappingField].self) {
        self = .mapping(value)
      } else {
        self = .other
      }
    }
  }

  private static func readConfig(
    displayPath: String, fullPath: String
  ) throws(UsageError) -> [String: ConfigValue] {
    guard let data = FileManager.default.contents(atPath: fullPath) else {
      throw UsageError("\(displayPath): cannot read the config file (no such file?)")
    }
    do {
      return try JSONDecoder().decode([String: ConfigValue].self, from: data)
    } catch DecodingError.typeMismatch {
      throw UsageError("\(displayPath): expected a JSON object of options")
    } catch {
      throw UsageError("\(displayPath): not valid JSON")
    }
  }

  private static func apply(
    key: String, json: ConfigValue, file: String, base: String, to options: inout BuildOptions
  ) throws(UsageError) {
    let source = "\(file): key '\(key)'"
    guard let spec = Specs.build.option(named: key), keys.contains(key) else {
      var message = "\(file): unknown key '\(key)'"
      if let suggestion = closest(to: key, in: keys) {
        message += "; did you mean '\(suggestion)'?"
      } else {
        message += "; the keys are " + keys.map { "'\($0)'" }.joined(separator: ", ")
      }
      throw UsageError(message)
    }
    let text: String
    switch json {
    case .mapping(let fields) where mappingFields[key] != nil:
      try applyMapping(key: key, fields: fields, file: file, base: base, to: &options)
      return
    case .string(let string) where spec.takesValue:
      text = isPath(key) && !string.isEmpty ? join(base, string) : string
    case .integer(let integer) where spec.takesValue:
      text = String(integer)
    case .bool(let flag) where !spec.takesValue:
      text = flag ? "true" : "false"
    default:
      let expected = spec.takesValue ? "a string or a whole number" : "true or false"
      throw UsageError("\(source): expected \(expected)")
    }
    try apply(name: key, value: text, source: source, to: &options)
  }

  private static func isPath(_ key: String) -> Bool {
    ["todos", "possessions", "contacts", "templates", "output", "report"].contains(key)
  }

  static func apply(
    name: String, value: String, source: String, to options: inout BuildOptions
  ) throws(UsageError) {
    func nonEmpty() throws(UsageError) -> String {
      guard !value.isEmpty else { throw UsageError("\(source): the value is empty") }
      return value
    }
    switch name {
    case "todos": options.todos = try nonEmpty()
    case "possessions": options.possessions = try nonEmpty()
    case "contacts": options.contacts = try nonEmpty()
    case "templates": options.templates = try nonEmpty()
    case "output": options.output = try nonEmpty()
    case "report": options.report = try nonEmpty()
    case "base-url":
      guard value.hasPrefix("http://") || value.hasPrefix("https://"),
        value.count > "https://".count
      else {
        throw UsageError(
          "\(source): invalid value '\(value)': expected an absolute http:// or https:// URL")
      }
      options.baseURL = value
    case "locale":
      guard let locale = BuildOptions.Locale(rawValue: value) else {
        throw UsageError("\(source): invalid value '\(value)': expected 'en' or 'ja'")
      }
      options.locale = locale
    case "page-size":
      guard let size = Int(value), size >= 0 else {
        throw UsageError("\(source): invalid value '\(value)': expected a whole number, 0 or more")
      }
      options.pageSize = size
    case "jobs":
      guard let jobs = Int(value), jobs >= 1, jobs <= 1024 else {
        throw UsageError(
          "\(source): invalid value '\(value)': expected a whole number from 1 to 1024")
      }
      options.jobs = jobs
    case "pretty-urls": options.prettyURLs = value == "true"
    case "strict": options.strict = value == "true"
    case "max-photo-pixels":
      guard let pixels = Int(value), pixels >= 1 else {
        throw UsageError("\(source): invalid value '\(value)': expected a whole number, 1 or more")
      }
      options.maxPhotoPixels = pixels
    case "keep-photo-metadata": options.keepPhotoMetadata = value == "true"
    case "quiet": options.quiet = value == "true"
    default:
      throw UsageError("\(source): unknown option")
    }
  }

  static func resolve(_ path: String, against directory: String) -> String {
    path.hasPrefix("/") ? path : join(directory, path)
  }

  static func join(_ base: String, _ path: String) -> String {
    if path.hasPrefix("/") || base.isEmpty || base == "." { return path }
    return normalize(base + "/" + path)
  }

  /// Removes `.` and `folder/..` from a path without touching the file system.
  static func normalize(_ path: String) -> String {
    var parts: [Substring] = []
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
      if part == "." { continue }
      if part == "..", let last = parts.last, last != ".." {
        parts.removeLast()
      } else {
        parts.append(part)
      }
    }
    let joined = parts.joined(separator: "/")
    if path.hasPrefix("/") { return "/" + joined }
    return joined.isEmpty ? "." : joined
  }
}
