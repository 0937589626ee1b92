/// The record of changes a site carries from build to build: what `data/history.json` and
/// `data/changes.json` hold, as they are read and written.

/// One change of one item between two builds.
struct Change: Codable, Sendable, Equatable {
  /// The source the item comes from.
  enum Source: String, Codable, Sendable, CaseIterable {
    case todos, possessions, contacts

    /// The singular, as it starts a change's kind (`todo-added`) and label key (`todoAdded`).
    var singular: String {
      switch self {
      case .todos: "todo"
      case .possessions: "possession"
      case .contacts: "contact"
      }
    }
  }

  /// What changed, in the order a build's changes are listed.
  enum Kind: String, Codable, Sendable, CaseIterable {
    case added, completed, reopened, priority, text, due, photo, name, description, details
    case removed
  }

  var source: Source
  var change: Kind
  /// The item's key: a to-do's `pk` (its number, for a text key), a possession's or contact's
  /// `id`.
  var id: Int64
  /// A to-do's text key (`TodoKey`), written as its `id`; nil when the key is a number.
  var key: String? = nil
  /// The item's text or name now; for a removed item, its last.
  var text: String
  /// The value before and after, for a changed priority, text, due date, name or description
  /// (a due date added or removed: the `dueNone` label on the side without one).
  var from: String?
  var to: String?
  /// The address of the item's page in this build's site (absolute with `--base-url`), absent
  /// when the item is no longer there. Made anew by every build.
  var url: String?
  /// The route name of the item's page (`todos/7`) when it is in this build's site.
  var route: String? = nil

  enum CodingKeys: String, CodingKey {
    case source, change, id, text, from, to, url
  }

  init(
    source: Source, change: Kind, id: Int64, key: String? = nil, text: String,
    from: String? = nil, to: String? = nil, url: String? = nil, route: String? = nil
  ) {
    self.source = source
    self.change = change
    self.id = id
    self.key = key
    self.text = text
    self.from = from
    self.to = to
    self.url = url
    self.route = route
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    source = try container.decode(Source.self, forKey: .source)
    change = try container.decode(Kind.self, forKey: .change)
    if let number = try? container.decode(Int64.self, forKey: .id) {
      id = number
    } else {
      (id, key) = TodoKey.read(try container.decode(String.self, forKey: .id))
    }
    text = try container.decode(String.self, forKey: .text)
    from = try container.decodeIfPresent(String.self, forKey: .from)
    to = try container.decodeIfPresent(String.self, forKey: .to)
    url = try container.decodeIfPresent(String.self, forKey: .url)
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(source, forKey: .source)
    try container.encode(change, forKey: .change)
    if let key {
      try container.encode(key, forKey: .id)
    } else {
      try container.encode(id, forKey: .id)
    }
    try container.encode(text, forKey: .text)
    try container.encodeIfPresent(from, forKey: .from)
    try container.encodeIfPresent(to, forKey: .to)
    try container.encodeIfPresent(url, forKey: .url)
  }

  /// `todo-added`: the class of its list, and its key in a build's counts.
  var kind: String { source.singular + "-" + change.rawValue }

  /// `todoAdded`: the label of its group.
  var labelKey: String {
    let name = change.rawValue
    return source.singular + name.prefix(1).uppercased() + name.dropFirst()
  }

  /// The order of a build's list: by source, by kind, by key.
  static func < (lhs: Change, rhs: Change) -> Bool {
    if lhs.source != rhs.source { return lhs.source.order < rhs.source.order }
    if lhs.change != rhs.change { return lhs.change.order < rhs.change.order }
    return lhs.id < rhs.id
  }
}

extension Change.Source {
  var order: Int { Self.allCases.firstIndex(of: self) ?? 0 }
}

extension Change.Kind {
  var order: Int { Self.allCases.firstIndex(of: self) ?? 0 }
}

/// The changes one build recorded: an entry of `data/changes.json` and of the feed.
struct BuildChanges: Codable, Sendable, Equatable {
  /// The build's number in the history (1 for the first build of the site).
  var build: Int
  /// The feed entry's id, a `tag:` URI made once when the build is recorded.
  var id: String
  /// When the build ran (``BuildDate``).
  var date: String
  /// How many changes of each kind (`todo-added`).
  var counts: [String: Int]
  /// Every change, in list order.
  var changes: [Change]
}

/// One build of the history (`data/history.json`): the first build of the site, and each
/// build that changed something after it.
struct HistoryEntry: Codable, Sendable, Equatable {
  var build: Int
  /// When it ran; absent for the first build, which compared with nothing.
  var date: String?
  /// How many changes it recorded.
  var changes: Int
  var todos: TodoCounts?
  var possessions: Int?
  var contacts: Int?
}

/// The to-dos of a build, counted.
struct TodoCounts: Codable, Sendable, Equatable {
  var total: Int
  var open: Int
  var complete: Int
  /// By priority, in index order (High, Medium, Low, other numbers, none).
  var byPriority: [PriorityCounts]

  struct PriorityCounts: Codable, Sendable, Equatable {
    /// The stored number; absent for no priority.
    var priority: Int64?
    var open: Int
    var complete: Int
  }

  init(_ todos: some Collection<(priority: Priority, complete: Bool)>) {
    // High, Medium, Low and none counted by rank, other numbers by number: a million to-dos
    // are not a million lookups by hash.
    var ranked = Array(repeating: (open: 0, complete: 0), count: 5)
    var others: [Int64: (open: Int, complete: Int)] = [:]
    for todo in todos {
      if case .other(let number) = todo.priority {
        others[number, default: (0, 0)].open += todo.complete ? 0 : 1
        others[number, default: (0, 0)].complete += todo.complete ? 1 : 0
      } else {
        ranked[todo.priority.rank].open += todo.complete ? 0 : 1
        ranked[todo.priority.rank].complete += todo.complete ? 1 : 0
      }
    }
    total = todos.count
    var counts = [Priority.high, .medium, .low, .none].map { ($0, ranked[$0.rank]) }
    counts += others.map { (Priority.other($0.key), $0.value) }
    let present = counts.filter { $0.1.open + $0.1.complete > 0 }.sorted { $0.0 < $1.0 }
    complete = present.reduce(0) { $0 + $1.1.complete }
    open = total - complete
    byPriority = present.map {
      PriorityCounts(priority: $0.0.number, open: $0.1.open, complete: $0.1.complete)
    }
  }
}

/// `data/history.json`.
struct HistoryFile: Codable, Sendable, Equatable {
  static let currentFormat = "taskpress-history-1"
  var format: String
  /// The feed's id, made by the first build and kept.
  var feed: String
  /// Oldest first.
  var builds: [HistoryEntry]
}

/// `data/changes.json`.
struct ChangesFile: Codable, Sendable, Equatable {
  static let currentFormat = "taskpress-changes-1"
  var format: String
  /// Newest first.
  var builds: [BuildChanges]
}
