/// Where a source's rows are in a database that does not follow the tutorial's schema: the table
/// (or view) to read, the column for each field, and which rows to publish. Set in
/// `taskpress.json`, e.g. `"todos": {"file": "app.db", "table": "tasks", "columns": {"pk": "id",
/// "text": "title"}, "where": "archived = 0"}`.
public struct SourceMapping: Sendable, Equatable {
  /// The table or view, when it is not the source's usual one (`todo`, `possessions`,
  /// `contacts`).
  public var table: String?
  /// The column of each field that is named otherwise, by field (`text` -> `title`).
  public var columns: [String: String]
  /// An SQL condition a row must meet to be published (`done = 'false'`). It runs on the same
  /// read-only connection as everything else, so it can only read.
  public var filter: String?
  /// A read-only `SELECT` whose result columns are named by the fields, read instead of a
  /// table (`"query"` in `taskpress.json`; see `SourceQuery.swift`).
  public var query: String?
  /// How the app's values of a field read as taskpress's, by field: `priority` (see
  /// ``PriorityValues``), each app value to its level.
  public var values: [String: [String: String]] = [:]
  /// The unit of each date field stored as a number, by field (`due` -> `milliseconds`); see
  /// ``DateUnit``. Seconds since 1970 when not given.
  public var dates: [String: DateUnit] = [:]

  public init(table: String? = nil, columns: [String: String] = [:], filter: String? = nil) {
    self.table = table
    self.columns = columns
    self.filter = filter
  }

  /// The fields each source reads, in order; `due` is optional.
  public static let todoFields = ["pk", "text", "priority", "complete", "due"]
  public static let possessionFields = ["id", "name", "description", "photo"]
  public static let contactFields = ["id", "name", "address", "phone"]

  /// The column to read for `field`.
  func column(_ field: String) -> String {
    columns[field] ?? field
  }

  /// A stable description of the mapping, for the inputs key.
  var key: String {
    let columns = columns.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    return "table=\(table ?? "") columns=\(columns.joined(separator: ",")) where=\(filter ?? "")"
      + (query.map { " query(\($0.utf8.count))=\($0)" } ?? "")
      + values.sorted { $0.key < $1.key }.map { field, map in
        " values(\(field))="
          + map.sorted { $0.key < $1.key }.map {
            "\($0.key.utf8.count):\($0.key)=\($0.value.utf8.count):\($0.value)"
          }
          .joined(separator: ",")
      }.joined()
      + dates.sorted { $0.key < $1.key }.map { " date(\($0.key))=\($0.value.rawValue)" }.joined()
  }

  /// The priority map of `values`, nil when there is none; an error naming the rule that is
  /// not one.
  public func priorityValues() throws(ValueMapError) -> PriorityValues? {
    guard let rules = values["priority"] else { return nil }
    return try PriorityValues(rules)
  }
}

/// The mappings of the three sources.
public struct SourceMappings: Sendable, Equatable {
  public var todos = SourceMapping()
  public var possessions = SourceMapping()
  public var contacts = SourceMapping()

  public init() {}
}
