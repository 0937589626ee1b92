import TaskpressKit

/// One value inside a source's object in `taskpress.json`.
enum MappingField: Decodable {
  case string(String)
  case strings([String: String])
  case tables([String: [String: String]])
  case other

  init(from decoder: Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([String: String].self) {
      self = .strings(value)
    } else if let value = try? container.decode([String: [String: String]].self) {
      self = .tables(value)
    } else {
      self = .other
    }
  }
}

extension Configuration {
  /// The fields each source's `"columns"` may name, by key.
  static let mappingFields = [
    "todos": SourceMapping.todoFields,
    "possessions": SourceMapping.possessionFields,
    "contacts": SourceMapping.contactFields,
  ]

  /// The keys of a source's object.
  static let mappingKeys = [
    "file", "app", "table", "columns", "where", "query", "photo-folder", "values", "dates",
  ]

  /// The fields of the to-dos whose values `"values"` maps, and the date fields `"dates"` gives
  /// units for.
  static let valueFields = ["priority"]
  static let dateFields = ["due"]

  /// `"todos": {"file": "app.db", "table": "tasks", "columns": {"text": "title"}, "where": "…"}`
  /// or `"todos": {"file": "app.db", "query": "SELECT id AS pk, title AS text, …"}`: the file
  /// as the string form would give it, and the mapping.
  static func applyMapping(
    key: String, fields: [String: MappingField], file: String, base: String,
    to options: inout BuildOptions
  ) throws(UsageError) {
    let source = "\(file): key '\(key)'"
    let known = mappingFields[key] ?? []
    var mapping = SourceMapping()
    var preset: AppPreset?
    var path: String?
    var photoFolder: String?
    for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
      switch (name, value) {
      case ("file", .string(let text)):
        path = text
      case ("app", .string(let text)) where key == "todos":
        guard let found = AppPreset(rawValue: text.lowercased()) else {
          throw UsageError(
            "\(source): \"app\": '\(text)' is not an app taskpress knows (the apps are "
              + AppPreset.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
              + "); map its tables with \"table\" and \"columns\" or a \"query\" instead")
        }
        preset = found
      case ("app", _):
        throw UsageError("\(source): \"app\" is for \"todos\": a name such as 'taskwarrior'")
      case ("photo-folder", .string(let text)) where key == "possessions" && !text.isEmpty:
        photoFolder = text
      case ("photo-folder", _) where key != "possessions":
        throw UsageError(
          "\(source): \"photo-folder\" is for \"possessions\", whose rows have photos")
      case ("photo-folder", _):
        throw UsageError("\(source): \"photo-folder\" must be a non-empty string")
      case ("values", .tables(let maps)) where key == "todos":
        for (field, map) in maps.sorted(by: { $0.key < $1.key }) {
          guard valueFields.contains(field) else {
            throw UsageError(
              "\(source): \"values\" maps the values of "
                + valueFields.map { "'\($0)'" }.joined(separator: ", ") + ", not '\(field)'")
          }
          mapping.values[field] = map
        }
        do {
          _ = try mapping.priorityValues()
        } catch {
          throw UsageError("\(source): \"values\" \(error.description)")
        }
      case ("values", .strings(let maps)) where key == "todos" && maps.isEmpty:
        break
      case ("values", _) where key == "todos":
        throw UsageError(
          "\(source): \"values\" must map a field to an object of the app's values, e.g."
            + " {\"priority\": {\"H\": \"high\", \"M\": \"medium\", \"L\": \"low\"}}")
      case ("dates", .strings(let units)) where key == "todos":
        for (field, name) in units.sorted(by: { $0.key < $1.key }) {
          guard dateFields.contains(field) else {
            throw UsageError(
              "\(source): \"dates\" gives the unit of "
                + dateFields.map { "'\($0)'" }.joined(separator: ", ") + ", not '\(field)'")
          }
          guard let unit = DateUnit(rawValue: name) else {
            throw UsageError(
              "\(source): \"dates\": '\(name)' is not a unit (the units are "
                + DateUnit.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")")
          }
          mapping.dates[field] = unit
        }
      case ("values", _),
        ("dates", _) where key != "todos":
        throw UsageError("\(source): \"\(name)\" is for \"todos\" only")
      case ("dates", _):
        throw UsageError(
          "\(source): \"dates\" must be an object of units, e.g. {\"due\": \"milliseconds\"}")
      case ("table", .string(let text)) where !text.isEmpty:
        mapping.table = text
      case ("where", .string(let text)) where !text.isEmpty:
        mapping.filter = text
      case ("query", .string(let text))
      where text.contains(where: { !$0.isWhitespace && $0 != ";" }):
        mapping.query = text
      case ("columns", .strings(let columns)):
        for (field, column) in columns.sorted(by: { $0.key < $1.key }) {
          guard known.contains(field) else {
            var message = "\(source): unknown field '\(field)' in \"columns\""
            if let suggestion = closest(to: field, in: known) {
              message += "; did you mean '\(suggestion)'?"
            }
            message += " (the fields are " + known.map { "'\($0)'" }.joined(separator: ", ") + ")"
            throw UsageError(message)
          }
          guard !column.isEmpty else {
            throw UsageError("\(source): the column for '\(field)' is empty")
          }
          mapping.columns[field] = column
        }
      case ("file", _), ("table", _), ("where", _), ("query", _):
        throw UsageError("\(source): \"\(name)\" must be a non-empty string")
      case ("columns", _):
        throw UsageError(
          "\(source): \"columns\" must be an object of strings, e.g. {\"text\": \"title\"}")
      default:
        var message = "\(source): unknown key '\(name)'"
        if let suggestion = closest(to: name, in: mappingKeys) {
          message += "; did you mean '\(suggestion)'?"
        }
        message += " (the keys are " + mappingKeys.map { "'\($0)'" }.joined(separator: ", ") + ")"
        throw UsageError(message)
      }
    }
    if let preset {
      let others = fields.keys.filter { $0 != "file" && $0 != "app" }.sorted()
      if !others.isEmpty {
        throw UsageError(
          "\(source): \"app\" gives the whole mapping of \(preset.rawValue)'s database: drop "
            + others.map { "\"\($0)\"" }.joined(separator: ", ")
            + ", or drop \"app\" and write the mapping out (Docs/apps.md has each app's)")
      }
      mapping = preset.mapping
    }
    if mapping.query != nil {
      let others = ["table", "columns", "where"].filter { fields[$0] != nil }
      if !others.isEmpty {
        let names = others.map { "\"\($0)\"" }.joined(separator: ", ")
        throw UsageError(
          "\(source): \"query\" reads its own rows and names its own columns: drop \(names),"
            + " or drop \"query\" (give either a query, or a table with columns and where)")
      }
    }
    guard let path, !path.isEmpty else {
      throw UsageError("\(source): \"file\" is missing: the database to read")
    }
    try apply(name: key, value: join(base, path), source: source, to: &options)
    // Relative to the configuration file, as `file` is.
    if let photoFolder { options.photoFolder = join(base, photoFolder) }
    switch key {
    case "todos": options.mapping.todos = mapping
    case "possessions": options.mapping.possessions = mapping
    default: options.mapping.contacts = mapping
    }
  }
}
