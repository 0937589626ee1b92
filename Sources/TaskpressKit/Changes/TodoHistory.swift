import JSONEscaping

/// Each to-do's own history, as the builds recorded it (`data/todo-history.json`): the build it
/// was first seen by, and each later change of its status, priority and text, and its removal,
/// by build. The builds' dates and per-build counts are beside them.
///
/// Packed: a to-do is its pk, its first build and the end of its events in one array of
/// events, each a `UInt32` (the build's number and the kind): 16 bytes a to-do and 4 an event,
/// so a million to-dos with a few changes each are a few tens of MB at most.
struct TodoHistory: Sendable, Equatable {
  static let currentFormat = "taskpress-todo-history-1"
  static let fileName = "todo-history.json"

  /// One build: its number and date as `data/history.json` has them, and what it did to the
  /// to-dos.
  struct BuildEntry: Codable, Sendable, Equatable {
    var build: Int
    var date: String?
    var added: Int
    var removed: Int
    var completed: Int
    var reopened: Int
  }

  /// What a to-do's event records.
  enum Kind: UInt32, Sendable, CaseIterable {
    case completed = 1
    case reopened, priority, text, removed, due

    /// The name in the file, as a change's kind (`completed`).
    var name: String {
      switch self {
      case .completed: "completed"
      case .reopened: "reopened"
      case .priority: "priority"
      case .text: "text"
      case .removed: "removed"
      case .due: "due"
      }
    }

    init?(name: some Sequence<UInt8>) {
      guard let kind = Self.allCases.first(where: { $0.name.utf8.elementsEqual(name) }) else {
        return nil
      }
      self = kind
    }

    init?(_ change: Change.Kind) {
      switch change {
      case .completed: self = .completed
      case .reopened: self = .reopened
      case .priority: self = .priority
      case .text: self = .text
      case .removed: self = .removed
      case .due: self = .due
      default: return nil
      }
    }
  }

  /// An event: a build's number and a kind.
  struct Event: Sendable, Equatable {
    var build: Int
    var kind: Kind
  }

  /// Oldest first: the builds in `data/history.json`, and older ones a to-do's events name.
  var builds: [BuildEntry] = []
  /// In increasing order.
  private(set) var pks: [Int64] = []
  private var firsts: [UInt32] = []
  /// Where each to-do's events end in `events`.
  private var ends: [UInt32] = []
  /// `build << 3 | kind`.
  private var events: [UInt32] = []

  init() {}

  var count: Int { pks.count }

  func first(_ index: Int) -> Int { Int(firsts[index]) }

  /// The events of the to-do at `index`, oldest first.
  func events(_ index: Int) -> some RandomAccessCollection<Event> {
    let start = index == 0 ? 0 : Int(ends[index - 1])
    return events[start..<Int(ends[index])].lazy.map {
      Event(build: Int($0 >> 3), kind: Kind(rawValue: $0 & 7) ?? .text)
    }
  }

  /// Whether the to-do at `index` was removed (its last event).
  func isRemoved(_ index: Int) -> Bool { events(index).last?.kind == .removed }

  /// The place of `pk`, by halving (the to-dos are in pk order).
  func index(ofPK pk: Int64) -> Int? {
    var low = 0
    var high = pks.count
    while low < high {
      let middle = (low + high) / 2
      if pks[middle] < pk { low = middle + 1 } else { high = middle }
    }
    return low < pks.count && pks[low] == pk ? low : nil
  }

  /// The date of build `number`, when it is listed and dated.
  func date(ofBuild number: Int) -> String? {
    // The builds are in increasing order of number: halved.
    var low = 0
    var high = builds.count
    while low < high {
      let middle = (low + high) / 2
      if builds[middle].build < number { low = middle + 1 } else { high = middle }
    }
    return low < builds.count && builds[low].build == number ? builds[low].date : nil
  }

  /// Appends a to-do, after those with smaller pks.
  mutating func append(pk: Int64, first: Int, events new: some Sequence<Event>) {
    pks.append(pk)
    firsts.append(UInt32(clamping: first))
    for event in new {
      events.append(UInt32(clamping: event.build) << 3 | event.kind.rawValue)
    }
    ends.append(UInt32(clamping: events.count))
  }

  /// Reserves room for `count` to-dos.
  mutating func reserve(_ count: Int) {
    pks.reserveCapacity(count)
    firsts.reserveCapacity(count)
    ends.reserveCapacity(count)
  }

  // MARK: - Carried forward

  /// The history after a build whose history of builds is `history` (oldest first, pruned to
  /// the limit), which recorded `changes` as build `number` (nil when it changed nothing), and
  /// whose to-dos' pks are `current`, in increasing order. `previous` is the last build's; a
  /// to-do it lacks that this build did not add (all of them, without one) is taken as first
  /// seen by `unknownFirst`, the oldest build the last build's history had.
  ///
  /// A to-do's first build and events depend only on `previous`, its own changes and `number`
  /// (when it changed): the pages made before the other sources are compared show the same.
  ///
  /// A to-do's events are kept while it is there; a removed to-do is kept until its removal
  /// falls out of `history`; a build is listed while it is in `history` or an event names it.
  static func carried(
    _ previous: TodoHistory?, history: [HistoryEntry], number: Int?, changes: [Change],
    current: some Sequence<Int64>, unknownFirst: Int
  ) -> TodoHistory {
    // This build's to-do changes, by pk (the changes are few, but for a first comparison).
    var byPK: [Int64: [Change.Kind]] = [:]
    var counts = (added: 0, removed: 0, completed: 0, reopened: 0)
    if number != nil {
      for change in changes where change.source == .todos {
        byPK[change.id, default: []].append(change.change)
        switch change.change {
        case .added: counts.added += 1
        case .removed: counts.removed += 1
        case .completed: counts.completed += 1
        case .reopened: counts.reopened += 1
        default: break
        }
      }
    }
    let oldest = history.first?.build ?? 1
    var result = TodoHistory()
    let old = previous ?? TodoHistory()
    result.reserve(max(old.count, current.underestimatedCount))
    var next = 0
    func carry(_ index: Int, removedAt removal: Int?) {
      // A to-do not there: removed by this build, or kept while its removal is recorded.
      var events = Array(old.events(index))
      if events.last?.kind != .removed {
        guard let removal = removal ?? history.last?.build else { return }
        events.append(Event(build: removal, kind: .removed))
      }
      if let last = events.last, last.build >= oldest {
        result.append(pk: old.pks[index], first: old.first(index), events: events)
      }
    }
    for pk in current {
      while next < old.count, old.pks[next] < pk {
        carry(next, removedAt: number)
        next += 1
      }
      let kinds = byPK[pk] ?? []
      let changed = kinds.compactMap(Kind.init).map { Event(build: number ?? 1, kind: $0) }
      if next < old.count, old.pks[next] == pk, !old.isRemoved(next), !kinds.contains(.added) {
        result.append(pk: pk, first: old.first(next), events: Array(old.events(next)) + changed)
      } else {
        // New, or back after its removal: its history starts again.
        let first = kinds.contains(.added) ? (number ?? unknownFirst) : unknownFirst
        result.append(pk: pk, first: first, events: changed)
      }
      if next < old.count, old.pks[next] == pk { next += 1 }
    }
    while next < old.count {
      carry(next, removedAt: number)
      next += 1
    }
    // The builds: those of the history, and older ones still named.
    var named = Set(result.firsts.lazy.map(Int.init))
    for event in result.events { named.insert(Int(event >> 3)) }
    var listed: [BuildEntry] = old.builds.filter { $0.build < oldest && named.contains($0.build) }
    for entry in history {
      if let kept = old.builds.first(where: { $0.build == entry.build }) {
        var kept = kept
        kept.date = kept.date ?? entry.date
        listed.append(kept)
      } else if entry.build == number {
        listed.append(
          BuildEntry(
            build: entry.build, date: entry.date, added: counts.added, removed: counts.removed,
            completed: counts.completed, reopened: counts.reopened))
      } else {
        // A build recorded before this history was: its to-dos as it counted them.
        let added = entry.build == oldest && previous == nil ? (entry.todos?.total ?? 0) : 0
        listed.append(
          BuildEntry(
            build: entry.build, date: entry.date, added: added, removed: 0, completed: 0,
            reopened: 0))
      }
    }
    result.builds = listed
    return result
  }

  // MARK: - The file

  /// `data/todo-history.json`: one build and one to-do a line, in pk order.
  var bytes: [UInt8] {
    var whole: [UInt8] = []
    whole.reserveCapacity(64 + builds.count * 96 + pks.count * 24 + events.count * 16)
    write(pieceSize: .max) { whole.append(contentsOf: $0) }
    return whole
  }

  /// Hands `data/todo-history.json` to `emit` in pieces of about `pieceSize` bytes (a million
  /// to-dos' history is tens of megabytes, never held whole); `bytes` is the same file in one.
  func write(
    pieceSize: Int = 64 << 10, to emit: (UnsafeRawBufferPointer) throws -> Void
  ) rethrows {
    var out: [UInt8] = []
    out.reserveCapacity(pieceSize == .max ? 0 : pieceSize + 4096)
    func add(_ text: String) { out.append(contentsOf: text.utf8) }
    func flush(atLeast size: Int) throws {
      guard out.count >= size, !out.isEmpty else { return }
      try out.withUnsafeBytes { try emit($0) }
      out.removeAll(keepingCapacity: true)
    }
    add("{\n  \"format\": \"\(Self.currentFormat)\",\n  \"builds\": [")
    for (index, entry) in builds.enumerated() {
      add(index == 0 ? "\n" : ",\n")
      add("    {\"build\":\(entry.build),\"date\":")
      if let date = entry.date {
        out.append(0x22)
        JSONText.appendEscaped(date, [], to: &out)
        out.append(0x22)
      } else {
        add("null")
      }
      add(
        ",\"added\":\(entry.added),\"removed\":\(entry.removed),\"completed\":\(entry.completed),"
          + "\"reopened\":\(entry.reopened)}")
      try flush(atLeast: pieceSize)
    }
    add(builds.isEmpty ? "],\n  \"todos\": [" : "\n  ],\n  \"todos\": [")
    for index in pks.indices {
      add(index == 0 ? "\n" : ",\n")
      add("    {\"pk\":\(pks[index]),\"first\":\(firsts[index]),\"events\":[")
      for (position, event) in events(index).enumerated() {
        add(position == 0 ? "[" : ",[")
        add("\(event.build),\"\(event.kind.name)\"]")
      }
      add("]}")
      try flush(atLeast: pieceSize)
    }
    add(pks.isEmpty ? "]\n}\n" : "\n  ]\n}\n")
    try flush(atLeast: 1)
  }
}

extension TodoHistory {
  /// The file as `JSONDecoder` reads it.
  struct File: Decodable {
    var format: String
    var builds: [BuildEntry]
    var todos: [Row]

    struct Row: Decodable {
      var pk: Int64
      var first: Int
      var events: [RowEvent]
    }

    /// `[3,"completed"]`.
    struct RowEvent: Decodable {
      var event: Event

      init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let build = try container.decode(Int.self)
        let name = try container.decode(String.self)
        guard let kind = Kind(name: name.utf8), build >= 1 else {
          throw DecodingError.dataCorruptedError(
            in: container, debugDescription: "not an event taskpress writes")
        }
        event = Event(build: build, kind: kind)
      }
    }
  }

  /// The history in `file`; nil when its builds are not in increasing order of number, its
  /// to-dos not in increasing pk order, or a first build's number is not positive.
  init?(_ file: File) {
    self.init()
    guard zip(file.builds, file.builds.dropFirst()).allSatisfy({ $0.build < $1.build }) else {
      return nil
    }
    builds = file.builds
    reserve(file.todos.count)
    var last: Int64?
    for row in file.todos {
      if let last, row.pk <= last { return nil }
      guard row.first >= 1 else { return nil }
      last = row.pk
      append(pk: row.pk, first: row.first, events: row.events.map(\.event))
    }
  }
}

extension TodoHistory {
  /// The history in `bytes` when they are exactly in the form `bytes` (the property) writes
  /// them, read in one pass without `JSONDecoder` (which, for a million to-dos, would make a
  /// tree of values many times the file's size); nil for any other form, which `JSONDecoder`
  /// then reads (`PreviousBuild.read`), or a history `init?(File)` refuses.
  static func parse(_ bytes: UnsafeRawBufferPointer) -> TodoHistory? {
    var cursor = Cursor(bytes: bytes)
    var history = TodoHistory()
    guard cursor.take("{\n  \"format\": \"\(currentFormat)\",\n  \"builds\": [") else { return nil }
    if !cursor.take("]") {
      repeat {
        guard cursor.take("\n    {\"build\":"), let build = cursor.number(),
          cursor.take(",\"date\":")
        else { return nil }
        var date: String?
        if !cursor.take("null") {
          guard cursor.take("\""), let text = cursor.plainString() else { return nil }
          date = text
        }
        guard cursor.take(",\"added\":"), let added = cursor.number(),
          cursor.take(",\"removed\":"), let removed = cursor.number(),
          cursor.take(",\"completed\":"), let completed = cursor.number(),
          cursor.take(",\"reopened\":"), let reopened = cursor.number(), cursor.take("}")
        else { return nil }
        if let last = history.builds.last, last.build >= build { return nil }
        history.builds.append(
          BuildEntry(
            build: build, date: date, added: added, removed: removed, completed: completed,
            reopened: reopened))
      } while cursor.take(",")
      guard cursor.take("\n  ]") else { return nil }
    }
    guard cursor.take(",\n  \"todos\": [") else { return nil }
    var events: [Event] = []
    if !cursor.take("]") {
      repeat {
        guard cursor.take("\n    {\"pk\":"), let pk = cursor.number(),
          cursor.take(",\"first\":"), let first = cursor.number(), first >= 1,
          cursor.take(",\"events\":[")
        else { return nil }
        if let last = history.pks.last, last >= Int64(pk) { return nil }
        events.removeAll(keepingCapacity: true)
        if !cursor.take("]") {
          repeat {
            guard cursor.take("["), let build = cursor.number(), build >= 1, cursor.take(",\""),
              let kind = cursor.kind(), cursor.take("]")
            else { return nil }
            events.append(Event(build: build, kind: kind))
          } while cursor.take(",")
          guard cursor.take("]") else { return nil }
        }
        guard cursor.take("}") else { return nil }
        history.append(pk: Int64(pk), first: first, events: events)
      } while cursor.take(",")
      guard cursor.take("\n  ]") else { return nil }
    }
    guard cursor.take("\n}\n"), cursor.isAtEnd else { return nil }
    return history
  }

  private struct Cursor {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    var isAtEnd: Bool { index == bytes.count }

    /// Moves past `text` when the bytes here are it.
    mutating func take(_ text: String) -> Bool {
      var utf8 = text
      return utf8.withUTF8 { expected in
        guard bytes.count - index >= expected.count else { return false }
        for offset in 0..<expected.count where bytes[index + offset] != expected[offset] {
          return false
        }
        index += expected.count
        return true
      }
    }

    /// A whole number as taskpress writes one: an optional `-`, digits, no leading zero.
    mutating func number() -> Int? {
      let start = index
      let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
      if negative { index += 1 }
      var value = 0
      var digits = 0
      while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, digits < 18 {
        value = value * 10 + Int(bytes[index] - 0x30)
        index += 1
        digits += 1
      }
      let leadingZero = digits > 1 && bytes[index - digits] == 0x30
      guard digits > 0, !leadingZero,
        index == bytes.count || !(0x30...0x39).contains(bytes[index])
      else {
        index = start
        return nil
      }
      return negative ? -value : value
    }

    /// A string's text up to its closing quote, when it has no escape or control character.
    mutating func plainString() -> String? {
      let start = index
      while index < bytes.count, bytes[index] != 0x22 {
        if bytes[index] == 0x5C || bytes[index] < 0x20 { return nil }
        index += 1
      }
      guard index < bytes.count else { return nil }
      let text = String(validating: bytes[start..<index], as: UTF8.self)
      index += 1
      return text
    }

    /// An event's kind and its closing quote.
    mutating func kind() -> Kind? {
      let start = index
      while index < bytes.count, bytes[index] != 0x22 { index += 1 }
      guard index < bytes.count, let kind = Kind(name: bytes[start..<index]) else { return nil }
      index += 1
      return kind
    }
  }
}
