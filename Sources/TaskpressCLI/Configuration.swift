import Foundation
import Mustache
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
      // Every mistake in the file is reported in one run, in the order of the file.
      var problems: [String] = []
      for entry in entries {
        do {
          try apply(entry, file: configPath, base: base, to: &options)
        } catch {
          problems.append(error.message)
        }
      }
      if !problems.isEmpty {
        throw UsageError(problems.joined(separator: "\nerror: "))
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

  private static func readConfig(
    displayPath: String, fullPath: String
  ) throws(UsageError) -> [JSONElement.Member] {
    guard let data = FileManager.default.contents(atPath: fullPath) else {
      var isFolder: ObjCBool = false
      let exists = FileManager.default.fileExists(atPath: fullPath, isDirectory: &isFolder)
      throw UsageError(
        !exists
          ? "\(displayPath): no such config file; check the path given to '--config'"
          : isFolder.boolValue
            ? "\(displayPath): is a folder; give '--config' the path of a JSON file"
            : "\(displayPath): cannot read the config file; check its permissions")
    }
    let document: JSONElement
    do {
      document = try JSONElement(jsonBytes: [UInt8](data))
    } catch {
      throw UsageError(
        "\(displayPath):\(error.line):\(error.column): not valid JSON: \(error.message)")
    }
    guard case .object(let members) = document.value else {
      throw UsageError(
        "\(displayPath):\(document.line):\(document.column): expected a JSON object of options,"
          + " e.g. {\"todos\": \"todo.sqlite\"}")
    }
    return members
  }

  private static func apply(
    _ entry: JSONElement.Member, file: String, base: String, to options: inout BuildOptions
  ) throws(UsageError) {
    let key = entry.key
    let at = "\(file):\(entry.line):\(entry.column)"
    let source = "\(at): key '\(key)'"
    guard let spec = Specs.build.option(named: key), keys.contains(key) else {
      var message = "\(at): unknown key '\(key)'"
      if let suggestion = closest(to: key, in: keys) {
        message += "; did you mean '\(suggestion)'?"
      } else {
        message += "; the keys are " + keys.map { "'\($0)'" }.joined(separator: ", ")
      }
      throw UsageError(message)
    }
    let text: String
    switch entry.value.value {
    case .object(let members) where mappingFields[key] != nil:
      try applyMapping(
        key: key, fields: mappingValues(members), file: at, base: base, to: &options)
      return
    case .string(let string) where spec.takesValue:
      text = isPath(key) && !string.isEmpty ? join(base, string) : string
    case .int(let integer) where spec.takesValue:
      text = String(integer)
    case .bool(let flag) where !spec.takesValue:
      text = flag ? "true" : "false"
    default:
      let expected = spec.takesValue ? "a string or a whole number" : "true or false"
      throw UsageError("\(source): expected \(expected)")
    }
    try apply(name: key, value: text, source: source, to: &options)
  }

  /// A source's object in `taskpress.json` as `applyMapping` reads it (a later member wins).
  private static func mappingValues(_ members: [JSONElement.Member]) -> [String: MappingField] {
    var fields: [String: MappingField] = [:]
    for member in members {
      switch member.value.value {
      case .string(let text): fields[member.key] = .string(text)
      case .object(let inner):
        var strings: [String: String]? = [:]
        for field in inner {
          guard case .string(let text) = field.value.value else {
            strings = nil
            break
          }
          strings?[field.key] = text
        }
        fields[member.key] = strings.map(MappingField.strings) ?? .other
      default: fields[member.key] = .other
      }
    }
    return fields
  }

  private static func isPath(_ key: String) -> Bool {
    [
      "todos", "possessions", "contacts", "templates", "output", "report", "previous",
      "photo-cache",
    ]
    .contains(key)
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
        throw UsageError(
          "\(source): invalid value '\(value)': expected a language tag such as 'en', 'ja' or"
            + " 'de' (built in: 'en', 'ja'; others from labels.json)")
      }
      options.locale = locale
    case "page-size":
      guard let size = Int(value), size >= 0 else {
        throw UsageError("\(source): invalid value '\(value)': expected a whole number, 0 or more")
      }
      options.pageSize = size
    case "gallery-page-size":
      guard let size = Int(value), size >= 0 else {
        throw UsageError("\(source): invalid value '\(value)': expected a whole number, 0 or more")
      }
      options.galleryPageSize = size
    case "board-limit":
      guard let limit = Int(value), limit >= 1 else {
        throw UsageError("\(source): invalid value '\(value)': expected a whole number, 1 or more")
      }
      options.boardLimit = limit
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
    case "photo-cache": options.photoCache = try nonEmpty()
    case "photo-cache-size":
      guard let size = byteCount(value), size >= 1 << 20 else {
        throw UsageError(
          "\(source): invalid value '\(value)': expected a size of at least 1M, in bytes or "
            + "with K, M or G (1024-based), such as '500M' or '2G'")
      }
      options.photoCacheSize = size
    case "quiet": options.quiet = value == "true"
    case "title": options.title = try nonEmpty()
    case "data":
      var copies: Set<BuildOptions.DataSource> = []
      for part in try nonEmpty().split(separator: ",").map({
        $0.trimmingCharacters(in: .whitespaces)
      })
      where part != "none" {
        guard let source = BuildOptions.DataSource(rawValue: part) else {
          throw UsageError(
            "\(source): invalid value '\(value)': expected a comma-separated list of 'todos', "
              + "'possessions' and 'contacts', or 'none'")
        }
        copies.insert(source)
      }
      options.dataCopies = copies
    case "noindex": options.noindex = value == "true"
    case "csv-bom": options.csvByteOrderMark = value == "true"
    case "previous": options.previous = try nonEmpty()
    case "date":
      guard let date = BuildDate.normalize(value) else {
        throw UsageError(
          "\(source): invalid value '\(value)': expected an ISO 8601 date (2026-12-01) or "
            + "date-time with a zone (2026-12-01T08:30:00Z)")
      }
      options.date = date
    case "history-limit":
      guard let limit = Int(value), limit >= 1 else {
        throw UsageError("\(source): invalid value '\(value)': expected a whole number, 1 or more")
      }
      options.historyLimit = limit
    default:
      throw UsageError("\(source): unknown option")
    }
  }

  /// A size in bytes: a whole number, or one followed by `K`, `M` or `G` (1024-based).
  static func byteCount(_ text: String) -> Int? {
    let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
    var digits = Substring(text)
    var unit = 1
    if let last = text.last?.uppercased().first, let scale = units[last] {
      digits = text.dropLast()
      unit = scale
    }
    guard !digits.isEmpty, digits.allSatisfy(\.isNumber), digits.allSatisfy(\.isASCII),
      let number = Int(digits)
    else { return nil }
    let (product, overflow) = number.multipliedReportingOverflow(by: unit)
    return overflow ? nil : product
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
