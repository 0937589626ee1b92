import Foundation

/// What this build publishes of changes: the history carried from the previous build, with an
/// entry for this build when it changed something, and the links of every change resolved
/// against this build's site.
struct ChangeReport: Sendable {
  /// The feed's id.
  var feedID: String
  /// Oldest first.
  var history: [HistoryEntry]
  /// The builds that changed something, newest first.
  var builds: [BuildChanges]
  /// Whether this build recorded changes.
  var changed: Bool
  /// Each to-do's history, when the site has to-dos.
  var todoHistory: TodoHistory? = nil
  /// The flow numbers (`data/flow.json`), when the site has to-dos.
  var flow: FlowReport? = nil

  /// Builds listed on each `changes.html` page.
  static let buildsPerPage = 10

  /// Pages of `changes.html`: at least 1.
  var pageCount: Int { max(1, (builds.count + Self.buildsPerPage - 1) / Self.buildsPerPage) }

  /// The builds listed on page `number` (1-based).
  func builds(onPage number: Int) -> ArraySlice<BuildChanges> {
    let start = min((number - 1) * Self.buildsPerPage, builds.count)
    return builds[start..<min(start + Self.buildsPerPage, builds.count)]
  }

  /// The page of `changes.html` a build is listed on.
  func page(ofBuildAt index: Int) -> Int { index / Self.buildsPerPage + 1 }

  /// The report of a build of `plan` after `previous`; `date` is asked for only when something
  /// changed, `givenDate` is the date the build was given (`--date`, `SOURCE_DATE_EPOCH`),
  /// which the first build records; `limit` is how many builds the history keeps;
  /// `inKeyOrder`, see `ChangeDiff.pair`.
  static func make(
    previous: PreviousBuild, plan: SitePlan, photoFiles: [Int64: PageContext.PhotoFile],
    labels: Labels, date: () -> String, givenDate: String? = nil, limit: Int, baseURL: String?,
    inKeyOrder: Bool = true
  ) -> ChangeReport {
    let counts = currentCounts(plan)
    let authority = Self.authority(baseURL)
    var history = previous.history?.builds ?? []
    var builds = previous.changes?.builds ?? []
    var changes: [Change] = []
    if !previous.isEmpty {
      changes = ChangeDiff.changes(
        previous: previous, plan: plan, photoFiles: photoFiles, labels: labels,
        inKeyOrder: inKeyOrder)
      if history.isEmpty {
        // A site of an earlier taskpress: its data copies are the first build (a source it
        // has no copy of is counted as it is now).
        let todos = previous.comparedTodos?.counts ?? previous.todos.map(ChangeDiff.counts)
        history = [
          HistoryEntry(
            build: 1, date: nil, changes: 0, todos: todos ?? counts.todos,
            possessions: previous.possessions?.count ?? counts.possessions,
            contacts: previous.contacts?.count ?? counts.contacts)
        ]
      }
    } else {
      history = [entry(build: 1, date: givenDate, changes: 0, counts)]
      builds = []
    }
    var recorded: Int?
    if !changes.isEmpty {
      let number = (history.last?.build ?? 0) + 1
      recorded = number
      let when = date()
      history.append(entry(build: number, date: when, changes: changes.count, counts))
      var byKind: [String: Int] = [:]
      for change in changes { byKind[change.kind, default: 0] += 1 }
      builds.insert(
        BuildChanges(
          build: number, id: "tag:\(authority),\(when.prefix(10)):build-\(number)", date: when,
          counts: byKind, changes: changes), at: 0)
    }
    // The limit: the last `limit` builds, and the changes of those.
    if history.count > limit { history.removeFirst(history.count - limit) }
    let first = history.first?.build ?? 0
    builds.removeAll { $0.build < first }
    let todoHistory =
      plan.hasTodos
      ? TodoHistory.carried(
        previous.todoHistory, history: history, number: recorded, changes: changes,
        current: plan.todoPositionsByPK.lazy.map { [todos = plan.todos] in todos.pk($0) },
        unknownFirst: previous.history?.builds.first?.build ?? 1)
      : nil
    let flow = todoHistory.map { todos in
      // Whether the to-do with a pk is open now: its position looked up by halving the plan's
      // pk order, when it has one (nothing more is held, where a list of the open pks is 8
      // bytes a to-do); else in a list of the open pks, in increasing order.
      guard !plan.findsTodosByHalving else {
        return FlowReport.make(history: history, todos: todos) { pk in
          plan.position(ofTodoPK: pk).map { !plan.todos.isComplete($0) } ?? false
        }
      }
      // (An array: the lazy sequence's indices would be those of every to-do.)
      let open: [Int64] = plan.todoPositionsByPK.filter { !plan.todos.isComplete($0) }.map(
        plan.todos.pk)
      return FlowReport.make(history: history, todos: todos) { pk in
        var low = 0
        var high = open.count
        while low < high {
          let middle = (low + high) / 2
          if open[middle] < pk { low = middle + 1 } else { high = middle }
        }
        return low < open.count && open[low] == pk
      }
    }
    // Links to the items that are in this build's site.
    let routes = plan.routes
    // The to-dos are looked up by pk (a set of a million of them was 16 MB and 50 ms).
    let present: [Change.Source: Set<Int64>] =
      builds.isEmpty
      ? [:]
      : [.possessions: Set(plan.possessions.map(\.id)), .contacts: Set(plan.contacts.map(\.id))]
    // The route of an item's page when it is in this build's site.
    func route(_ change: Change) -> String? {
      guard change.source == .todos else {
        return present[change.source]?.contains(change.id) == true
          ? "\(change.source.rawValue)/\(change.id)" : nil
      }
      return plan.position(ofTodoPK: change.id).map { "todos/" + plan.todos.pageName($0) }
    }
    for index in builds.indices {
      for position in builds[index].changes.indices {
        let change = builds[index].changes[position]
        let route = route(change)
        builds[index].changes[position].route = route
        builds[index].changes[position].url = route.map { route in
          baseURL.map { routes.absolute(route, baseURL: $0) }
            ?? routes.link(to: route, fromFile: "index.html")
        }
      }
    }
    let feedID =
      previous.history?.feed
      ?? (baseURL.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + "feed.xml" }
        ?? "tag:\(authority),2026:feed")
    return ChangeReport(
      feedID: feedID, history: history, builds: builds, changed: !changes.isEmpty,
      todoHistory: todoHistory, flow: flow)
  }

  private static func entry(
    build: Int, date: String?, changes: Int,
    _ counts: (todos: TodoCounts?, possessions: Int?, contacts: Int?)
  ) -> HistoryEntry {
    HistoryEntry(
      build: build, date: date, changes: changes, todos: counts.todos,
      possessions: counts.possessions, contacts: counts.contacts)
  }

  private static func currentCounts(_ plan: SitePlan) -> (
    todos: TodoCounts?, possessions: Int?, contacts: Int?
  ) {
    (
      plan.hasTodos
        // Counted as they are read: an array of them is 16 MB for a million to-dos.
        ? TodoCounts(
          plan.todos.indices.lazy.map { (plan.todos.priority($0), plan.todos.isComplete($0)) })
        : nil,
      plan.hasPossessions ? plan.possessions.count : nil,
      plan.hasContacts ? plan.contacts.count : nil
    )
  }

  /// The authority of the `tag:` ids: the host of `--base-url`, or `taskpress.invalid`.
  static func authority(_ baseURL: String?) -> String {
    guard let baseURL, let scheme = baseURL.range(of: "://") else { return "taskpress.invalid" }
    var host = baseURL[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
    if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") { host = host[..<colon] }
    let name = host.lowercased()
    let allowed = name.allSatisfy {
      $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".")
    }
    return name.isEmpty || !allowed ? "taskpress.invalid" : name
  }

  // MARK: - The files

  private static func encode<T: Encodable>(_ value: T) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    // The values are strings and whole numbers: encoding them cannot fail.
    return ((try? encoder.encode(value)).map(Array.init) ?? Array("{}".utf8)) + [0x0A]
  }

  /// `data/history.json`.
  var historyJSON: [UInt8] {
    Self.encode(HistoryFile(format: HistoryFile.currentFormat, feed: feedID, builds: history))
  }

  /// `data/flow.json`, when the site has to-dos.
  var flowJSON: [UInt8]? { flow?.bytes }

  /// `data/changes.json`.
  var changesJSON: [UInt8] {
    Self.encode(ChangesFile(format: ChangesFile.currentFormat, builds: builds))
  }
}

extension Priority {
  /// The priority of a data copy's `priority` (nil for none).
  init(stored number: Int64?) {
    self = number.map(Priority.init) ?? .none
  }
}

extension Labels {
  /// `9 changes`, `1 change`.
  func changesCount(_ count: Int) -> String {
    count == 1 ? self["changesCountOne"] : format("changesCount", ["count": "\(count)"])
  }
}
