import Foundation

/// The site-wide search's index (`Docs/search.md`): `search/index.js`, a directory of shards,
/// and one shard file per range of 1,000 keys of each kind (`search/t0.js` holds the to-dos
/// with pks 0 to 999, `search/p0.js` the possessions, `search/c0.js` the contacts where their
/// pages are published). Each file is a script calling `taskpressSearch`, so that the search
/// runs from `file://`, where `fetch` cannot read the site's files.
///
/// A shard holds its rows as they are shown (the script folds them when it loads the shard);
/// the directory holds, for each shard, a bitmap of the folded text's character pairs, so that a
/// query loads only the shards that may hold it. A changed row rewrites its shard and, when its
/// pairs or its shard's count change, the directory: at most two files.
struct SearchIndex {
  /// Keys per shard.
  static let keysPerShard: Int64 = 1000
  /// Bits of each shard's bitmap of character pairs.
  static let bitmapBits = 4096

  /// One shard as the directory lists it: its name (`t12`), its number of rows, and its
  /// bitmap. Its file is handed on as soon as it is finished, so that the rows of a large site
  /// are never all held at once.
  struct Shard {
    var name: String
    var count = 0
    var bitmap = [UInt8](repeating: 0, count: SearchIndex.bitmapBits / 8)
  }

  var shards: [Shard] = []
  /// The priorities the to-dos have, in order, as `[level, label]`.
  var priorities: [(level: String, label: String, priority: Priority)] = []
  /// Labels the script shows.
  var labels: [(String, String)]
  var prettyURLs: Bool
  /// The file of the last shard, not yet finished.
  private var open: [UInt8] = []
  /// Where each finished shard's file goes: its path and its bytes.
  private let emit: (String, [UInt8]) throws -> Void

  /// The index of `plan`'s to-dos and possessions, and its contacts when `contacts` (their
  /// pages are published): each shard's file is given to `shard` once it is finished; the
  /// directory is `indexFile()`.
  init(
    plan: SitePlan, labels: Labels, contacts: Bool,
    shard: @escaping (String, [UInt8]) throws -> Void
  ) throws {
    emit = shard
    prettyURLs = plan.routes.prettyURLs
    self.labels = [
      "search", "tasks", "possessions", "contacts", "priority", "allPriorities", "status",
      "complete", "inProgress", "due", "overdue", "searchAnyStatus", "searchAnyDue",
      "searchDated", "searchNoMatches", "searchMore", "searchCount",
    ].map { ($0, labels[$0]) }
    let todos = plan.todos
    var seen: Set<Priority> = []
    for position in todos.indices { seen.insert(todos.priority(position)) }
    priorities = seen.sorted().map {
      (level: PageContext.level($0), label: labels.priority($0), priority: $0)
    }
    var code: [Priority: Int] = [:]
    for (index, entry) in priorities.enumerated() { code[entry.priority] = index }
    // Whole-number keys first, then text keys: each group in its shards' order.
    let byPK = plan.todoPositionsByPK
    for position in byPK.lazy.filter({ !todos.hasTextKey($0) })
      + byPK.lazy.filter({ todos.hasTextKey($0) })
    {
      let pk = todos.pk(position)
      let text = todos.text(position)
      let due =
        Todo(pk: pk, text: "", priority: .none, complete: false, due: todos.due(position))
        .dueDay.map(String.init) ?? ""
      try add(
        kind: "t", key: pk, shard: todos.hasTextKey(position) ? Self.textKeyShard(pk) : nil,
        text: text,
        row:
          "[\(todos.hasTextKey(position) ? Self.string(todos.pageName(position)) : String(pk)),\(Self.string(text)),\(code[todos.priority(position)] ?? 0),"
          + "\(todos.isComplete(position) ? 1 : 0),\(Self.string(due))]")
    }
    for possession in plan.possessions.sorted(by: { $0.id < $1.id }) {
      try add(
        kind: "p", key: possession.id, text: possession.name + "\n" + possession.description,
        row:
          "[\(possession.id),\(Self.string(possession.name)),"
          + "\(Self.string(possession.description))]")
    }
    if contacts {
      for contact in plan.contacts.sorted(by: { $0.id < $1.id }) {
        try add(
          kind: "c", key: contact.id, text: contact.name,
          row: "[\(contact.id),\(Self.string(contact.name))]")
      }
    }
    try finishShard()
  }

  /// The shard of a to-do with a text key (numbered by a hash, so spread over every `Int64`):
  /// one of 256 ranges of the numbers, `tx0` to `tx255`, in the numbers' order. Such to-dos are
  /// added after those with whole-number keys.
  static func textKeyShard(_ pk: Int64) -> String {
    "tx" + String(UInt64(bitPattern: pk) >> 56 ^ 0x80)
  }

  /// Adds a row to its shard (rows come in key order within a kind).
  private mutating func add(
    kind: String, key: Int64, shard: String? = nil, text: String, row: String
  ) throws {
    let bucket = key >= 0 ? key / Self.keysPerShard : (key + 1) / Self.keysPerShard - 1
    let name = shard ?? kind + String(bucket)
    if shards.last?.name != name {
      try finishShard()
      shards.append(Shard(name: name))
      open = Array("taskpressSearch.shard(\(Self.string(name)),[\n".utf8)
    }
    let last = shards.count - 1
    if shards[last].count > 0 { open.append(contentsOf: ",\n".utf8) }
    open.append(contentsOf: row.utf8)
    shards[last].count += 1
    var previous: Unicode.Scalar?
    for scalar in Self.fold(text) {
      if let previous {
        let bit = Self.pairBit(previous, scalar)
        shards[last].bitmap[bit >> 3] |= UInt8(1) << UInt8(bit & 7)
      }
      previous = scalar
    }
  }

  /// Hands on the file of the last shard, if one is open.
  private mutating func finishShard() throws {
    guard let shard = shards.last, !open.isEmpty else { return }
    open.append(contentsOf: "]);\n".utf8)
    try emit("search/\(shard.name).js", open)
    open = []
  }

  /// `search/index.js`: the labels, the priorities and the directory of shards.
  func indexFile() -> [UInt8] {
    var index = "taskpressSearch.index({\"version\":1,\"pretty\":\(prettyURLs),\"labels\":{"
    index += labels.map { "\(Self.string($0.0)):\(Self.string($0.1))" }.joined(separator: ",")
    index += "},\"priorities\":["
    index += priorities.map { "[\(Self.string($0.level)),\(Self.string($0.label))]" }
      .joined(separator: ",")
    index += "],\"shards\":[\n"
    index += shards.map {
      "[\(Self.string($0.name)),\($0.count),\"\(Data($0.bitmap).base64EncodedString())\"]"
    }.joined(separator: ",\n")
    index += "]});\n"
    return Array(index.utf8)
  }

  /// Text as the search compares it, as the shipped script folds it: compatibility
  /// decomposition (NFKD), combining marks dropped, lowercased, final sigma as sigma.
  static func fold(_ text: String) -> [Unicode.Scalar] {
    var folded: [Unicode.Scalar] = []
    folded.reserveCapacity(text.utf8.count)
    for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
      switch scalar.properties.generalCategory {
      case .nonspacingMark, .spacingMark, .enclosingMark: continue
      default: break
      }
      for lower in scalar.properties.lowercaseMapping.unicodeScalars {
        folded.append(lower == "\u{3C2}" ? "\u{3C3}" : lower)
      }
    }
    return folded
  }

  /// The bit of a pair of folded characters in a shard's bitmap (the script's `pairBit`).
  static func pairBit(_ first: Unicode.Scalar, _ second: Unicode.Scalar) -> Int {
    var hash = (first.value &* 0x9E37_79B1) ^ (second.value &* 0x85EB_CA6B)
    hash ^= hash >> 15
    hash = hash &* 0x2C1B_3C6D
    hash ^= hash >> 12
    return Int(hash) & (bitmapBits - 1)
  }

  /// `text` as a JavaScript (and JSON) string: the feed's quoting, which also escapes `<`,
  /// `>`, `&`, U+2028 and U+2029 so that it can stand in a script.
  static func string(_ text: String) -> String { JSONFeed.quoted(text) }
}
