/// The mappings of the apps people keep their to-dos in, each a plain ``SourceMapping`` a user
/// could have written (`"todos": {"app": "taskwarrior", "file": …}` in `taskpress.json`), and how
/// to tell a database of each app by its tables. `Docs/apps.md` has the apps' schemas.
public enum AppPreset: String, Sendable, CaseIterable {
  /// Taskwarrior 3: TaskChampion's `tasks(uuid, data)`, each task a JSON object whose values are
  /// strings (dates as seconds since 1970). Deleted tasks and recurring templates are not
  /// published; a completed task is Complete.
  case taskwarrior
  /// todoman: its `cache.sqlite3`, keyed by the iCalendar UID (its `id` is renumbered when the
  /// cache is rebuilt), priorities in iCalendar's 0-9. Cancelled tasks are not published.
  case todoman

  /// The mapping of the app's to-dos.
  public var mapping: SourceMapping {
    var mapping = SourceMapping()
    switch self {
    case .taskwarrior:
      mapping.query = """
        SELECT uuid AS pk, json_extract(data, '$.description') AS text,
          json_extract(data, '$.priority') AS priority,
          json_extract(data, '$.status') = 'completed' AS complete,
          CAST(json_extract(data, '$.due') AS INTEGER) AS due
        FROM tasks WHERE json_extract(data, '$.status') IN ('pending', 'completed', 'waiting')
        """
      mapping.values["priority"] = ["H": "high", "M": "medium", "L": "low"]
    case .todoman:
      mapping.query = """
        SELECT uid AS pk, summary AS text, priority, status = 'COMPLETED' AS complete, due
        FROM todos WHERE status IS NOT 'CANCELLED'
        """
      mapping.values["priority"] = ["1-4": "high", "5": "medium", "6-9": "low", "0": "none"]
    }
    mapping.dates["due"] = .seconds
    return mapping
  }

  /// The app whose tables and columns these are (names as SQLite gives them, any case), if
  /// one is.
  public static func detect(tables: [String: [String]]) -> AppPreset? {
    var lowered: [String: Set<String>] = [:]
    for (table, columns) in tables {
      lowered[table.lowercased()] = Set(columns.map { $0.lowercased() })
    }
    if let tasks = lowered["tasks"], tasks.isSuperset(of: ["uuid", "data"]),
      lowered["operations"] != nil
    {
      return .taskwarrior
    }
    if let todos = lowered["todos"],
      todos.isSuperset(of: ["uid", "summary", "status", "priority"]),
      lowered["files"] != nil
    {
      return .todoman
    }
    return nil
  }
}
