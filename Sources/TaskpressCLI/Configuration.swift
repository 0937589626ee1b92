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

  /// The keys `taskpress.json` accepts: every option of `build` but `config` and `help`, and
  /// `publish`.
  static var keys: [String] {
    Specs.build.options.map(\.name).filter { $0 != "config" && $0 != "help" } + ["publish"]
  }

  /// What `taskpress publish` reads of `taskpress.json` (or `--config`).
  struct PublishFile: Equatable {
    var output: String?
    var host: (name: String, source: String)?
    var destination: String?
    var rcloneFlags: [String] = []
    var strict = false
    var quiet = false

    static func == (a: PublishFile, b: PublishFile) -> Bool {
      a.output == b.output && a.host?.name == b.host?.name && a.destination == b.destination
        && a.rcloneFlags == b.rcloneFlags && a.strict == b.strict && a.quiet == b.quiet
    }
  }

  /// The config file's `output`, `host`, `strict`, `quiet` and `publish` object (its
  /// `destination`, `rclone-flags` and `host`); the file's other keys are the build's, checked
  /// by `taskpress build`.
  static func publishFile(
    _ parsed: ParsedArguments, currentDirectory: String
  ) throws(UsageError) -> PublishFile {
    var result = PublishFile()
    let explicit = parsed.values["config"]
    let configPath = explicit ?? defaultFile
    let fullPath = resolve(configPath, against: currentDirectory)
    guard explicit != nil || FileManager.default.fileExists(atPath: fullPath) else {
      return result
    }
    let base = (configPath as NSString).deletingLastPathComponent
    for entry in try readConfig(displayPath: configPath, fullPath: fullPath) {
      let at = "\(configPath):\(entry.line):\(entry.column)"
      switch (entry.key, entry.value.value) {
      case ("output", .string(let text)) where !text.isEmpty: result.output = join(base, text)
      case ("host", .string(let text)): result.host = (text, "\(at): key 'host'")
      case ("strict", .bool(let flag)): result.strict = flag
      case ("quiet", .bool(let flag)): result.quiet = flag
      case ("publish", _):
        let object = try publishObject(entry, file: configPath)
        result.destination = object.destination ?? result.destination
        result.rcloneFlags = object.rcloneFlags
        if let host = object.host { result.host = host }
      default: break
      }
    }
    return result
  }

  /// The `publish` object of `taskpress.json`:
  /// `{"destination": "s3:bucket/site", "rclone-flags": ["--transfers=16"], "host": "netlify"}`.
  private static func publishObject(
    _ entry: JSONElement.Member, file: String
  ) throws(UsageError) -> (
    destination: String?, rcloneFlags: [String], host: (name: String, source: String)?
  ) {
    let at = "\(file):\(entry.line):\(entry.column)"
    guard case .object(let members) = entry.value.value else {
      throw UsageError(
        "\(at): key 'publish': expected an object such as {\"destination\": \"myremote:site\"}")
    }
    var destination: String?
    var flags: [String] = []
    var host: (name: String, source: String)?
    let fields = ["destination", "rclone-flags", "host"]
    for member in members {
      let place = "\(file):\(member.line):\(member.column): key 'publish.\(member.key)'"
      switch (member.key, member.value.value) {
      case ("destination", .string(let text)) where !text.isEmpty: destination = text
      case ("destination", _):
        throw UsageError("\(place): expected an rclone remote and path, e.g. \"myremote:site\"")
      case ("host", .string(let text)): host = (text, place)
      case ("host", _): throw UsageError("\(place): expected a host's name, e.g. \"netlify\"")
      case ("rclone-flags", .array(let items)):
        for item in items {
          guard case .string(let text) = item.value else {
            throw UsageError("\(place): expected a list of strings, e.g. [\"--transfers=16\"]")
          }
          flags.append(text)
        }
      case ("rclone-flags", _):
        throw UsageError("\(place): expected a list of strings, e.g. [\"--transfers=16\"]")
      default:
        var message = "\(file):\(member.line):\(member.column): unknown key 'publish.\(member.key)'"
        if let suggestion = closest(to: member.key, in: fields) {
          message += "; did you mean '\(suggestion)'?"
        } else {
          message += "; the keys are " + fields.map { "'\($0)'" }.joined(separator: ", ")
        }
        throw UsageError(message)
      }
    }
    return (destination, flags, host)
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
    if key == "publish" {
      // Read by `taskpress publish` (`publishFile`); a build checks only its form.
      _ = try publishObject(entry, file: file)
      return
    }
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
    case .array(let items) where key == "markdown":
      var fields: [String] = []
      for item in items {
        guard case .string(let field) = item.value, !field.contains(",") else {
          throw UsageError(
            "\(source): expected a list of field names, e.g. [\"todos.text\", "
              + "\"possessions.description\"]")
        }
        fields.append(field)
      }
      // An empty list is none, as `"none"` is.
      text = fields.isEmpty ? "none" : fields.joined(separator: ",")
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
        if let strings = Self.strings(inner) {
          fields[member.key] = .strings(strings)
        } else {
          // An object of objects of strings (`"values"`).
          var tables: [String: [String: String]]? = [:]
          for field in inner {
            guard case .object(let members) = field.value.value, let strings = Self.strings(members)
            else {
              tables = nil
              break
            }
            tables?[field.key] = strings
          }
          fields[member.key] = tables.map(MappingField.tables) ?? .other
        }
      default: fields[member.key] = .other
      }
    }
    return fields
  }

  /// An object's members when each is a string (a later member wins); nil otherwise.
  private static func strings(_ members: [JSONElement.Member]) -> [String: String]? {
    var strings: [String: String] = [:]
    for member in members {
      guard case .string(let text) = member.value.value else { return nil }
      strings[member.key] = text
    }
    return strings
  }

  private static func isPath(_ key: String) -> Bool {
    [
      "todos", "possessions", "contacts", "templates", "output", "report", "previous",
      "photo-cache", "photo-folder",
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
    case "photo-formats":
      let formats = value.split(separator: ",", omittingEmptySubsequences: false).map {
        BuildOptions.PhotoFormat(rawValue: $0.trimmingCharacters(in: .whitespaces).lowercased())
      }
      guard formats.first == .webp, !formats.contains(nil), Set(formats).count == formats.count
      else {
        throw UsageError(
          "\(source): invalid value '\(value)': expected 'webp' or 'webp,avif' (WebP always, "
            + "AVIF beside it)")
      }
      options.photoFormats = formats.compactMap { $0 }
    case "host":
      guard HostLimits.named(value) != nil else {
        throw UsageError(
          "\(source): unknown host '\(value)'; the hosts are "
            + HostLimits.names.map { "'\($0)'" }.joined(separator: ", "))
      }
      options.host = value
    case "photo-cache": options.photoCache = try nonEmpty()
    case "photo-folder": options.photoFolder = try nonEmpty()
    case "photo-cache-size":
      guard let size = byteCount(value), size >= 1 << 20 else {
        throw UsageError(
          "\(source): invalid value '\(value)': expected a size of at least 1M, in bytes or "
            + "with K, M or G (1024-based), such as '500M' or '2G'")
      }
      options.photoCacheSize = size
    case "quiet": options.quiet = value == "true"
    case "warnings":
      guard value == "all" || value == "grouped" else {
        throw UsageError(
          "\(source): invalid value '\(value)': expected 'grouped' (the first ten of each kind, "
            + "then one line for the rest) or 'all'")
      }
      options.allWarnings = value == "all"
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
    case "markdown":
      var fields: Set<BuildOptions.MarkdownField> = []
      let allowed = BuildOptions.MarkdownField.allCases.map(\.rawValue)
      for part in try nonEmpty().split(separator: ",").map({
        $0.trimmingCharacters(in: .whitespaces)
      })
      where part != "none" {
        guard let field = BuildOptions.MarkdownField(rawValue: part) else {
          var message = "\(source): unknown field '\(part)'"
          message += closest(to: part, in: allowed).map { "; did you mean '\($0)'?" } ?? "."
          throw UsageError(
            message + " The fields that can be Markdown are "
              + allowed.map { "'\($0)'" }.joined(separator: " and ") + ", or 'none'")
        }
        fields.insert(field)
      }
      options.markdown = fields
    case "noindex": options.noindex = value == "true"
    case "csv-bom": options.csvByteOrderMark = value == "true"
    case "search":
      guard value == "all" || value == "none" else {
        throw UsageError(
          "\(source): invalid value '\(value)': expected 'all' (a search field on every page and "
            + "its index in search/) or 'none' (neither)")
      }
      options.search = value == "all"
    case "previous": options.previous = try nonEmpty()
    case "date":
      guard let date = BuildDate.normalize(value) else {
        throw UsageError(
          "\(source): invalid value '\(value)': expected an ISO 8601 date (2026-12-01) or "
            + "date-time with a zone (2026-12-01T08:30:00Z)")
      }
      options.date = date
    case "query-timeout":
      guard let seconds = Double(value), seconds.isFinite, seconds > 0, seconds <= 86_400,
        value.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") })
      else {
        throw UsageError(
          "\(source): invalid value '\(value)': expected a number of seconds above 0, at most"
            + " 86400 (a day), such as '30' or '2.5'")
      }
      options.queryTimeout = .milliseconds(Int64((seconds * 1000).rounded(.up)))
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
