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
///
/// Each shard is summed up by the keyed hash of what its file is made of (`Group.inputs`); with
/// the last build's record of the shards (`SearchRecord`), a shard whose hash is the recorded one
/// and whose file the writer keeps as the last build left it is not made again: its count and
/// bitmap are the recorded ones. Without a record (the plain twin), every shard is made from its
/// rows. The directory is made from the shards' summaries either way.
struct SearchIndex {
  /// Keys per shard.
  static let keysPerShard: Int64 = 1000
  /// Bits of each shard's bitmap of character pairs.
  static let bitmapBits = 4096

  /// The shards as the directory lists them, each with its name (`t12`), number of rows, bitmap
  /// and the hash of its rows, in order: what the next build's record holds.
  private(set) var shards: [SearchRecord.Shard] = []
  /// The priorities the to-dos have, in order, as `[level, label]`.
  var priorities: [(level: String, label: String, priority: Priority)] = []
  /// Labels the script shows.
  var labels: [(String, String)]
  var prettyURLs: Bool
  /// How many shard files were made from their rows (the others were kept).
  private(set) var shardsMade = 0

  /// The rows of one shard: their kind, their positions in that kind's key order, and the
  /// keyed hash of what the shard's file is made of.
  private struct Group {
    enum Kind { case todos, possessions, contacts }
    var kind: Kind
    var name: String
    var rows: Range<Int>
    var inputs: KeyedHash
  }

  /// The index of `plan`'s to-dos and possessions, and its contacts when `contacts` (their
  /// pages are published); the directory is `indexFile()`. `todoRows` holds the hash of each
  /// to-do's row by position in `plan.todos` (`PageFingerprints.todoRows`), made under `key`
  /// when nil. With `recorded`, each shard whose hash is the recorded one is offered to `keep`
  /// (its path; true when the writer kept the file as the last build left it) and not made
  /// again; each shard made is given to `shard` (its path and bytes) once it is finished, so
  /// that the rows of a large site are never all held at once.
  init(
    plan: SitePlan, labels: Labels, contacts: Bool, key: HashKey, todoRows: [KeyedHash]?,
    recorded: SearchRecord?, keep: ([String]) throws -> [Bool],
    shard emit: (String, [UInt8]) throws -> Void
  ) throws {
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
    // Whole-number keys first, then text keys (`TodoKey`), each in their shards' order.
    let byPK = plan.todoOrderByPK
    let todoOrder =
      todos.hasTextKeys
      ? byPK.filter { !todos.hasTextKey(Int($0)) } + byPK.filter { todos.hasTextKey(Int($0)) }
      : byPK
    let possessions = plan.possessions.sorted(by: { $0.id < $1.id })
    let contactRows = contacts ? plan.contacts.sorted(by: { $0.id < $1.id }) : []

    // The shards and the hash of each one's rows.
    var groups: [Group] = []
    Self.group(
      .todos, "t",
      buckets: todoOrder.lazy.map {
        Self.bucket(todos.pk(Int($0)), textKey: todos.hasTextKey(Int($0)))
      }, hashKey: key, into: &groups
    ) { hasher, row in
      let position = Int(todoOrder[row])
      hasher.add(todoRows?[position] ?? PageFingerprints.rowHash(todos, at: position, key: key))
      hasher.add(code[todos.priority(position)] ?? 0)
    }
    Self.group(
      .possessions, "p", buckets: possessions.lazy.map { Self.bucket($0.id) }, hashKey: key,
      into: &groups
    ) { hasher, row in
      hasher.add(possessions[row].id)
      hasher.add(possessions[row].name)
      hasher.add(possessions[row].description)
    }
    Self.group(
      .contacts, "c", buckets: contactRows.lazy.map { Self.bucket($0.id) }, hashKey: key,
      into: &groups
    ) { hasher, row in
      hasher.add(contactRows[row].id)
      hasher.add(contactRows[row].name)
    }

    // The shards whose rows are those of the last build's, kept as it left them.
    var kept: [String: SearchRecord.Shard] = [:]
    if let recorded {
      var byName: [String: SearchRecord.Shard] = [:]
      for shard in recorded.shards { byName[shard.name] = shard }
      let candidates = groups.compactMap { group in
        byName[group.name].flatMap { $0.inputs == group.inputs ? $0 : nil }
      }
      let keptFiles = try keep(candidates.map { Self.path($0.name) })
      for (shard, isKept) in zip(candidates, keptFiles) where isKept { kept[shard.name] = shard }
    }

    for group in groups {
      if let shard = kept[group.name] {
        shards.append(shard)
        continue
      }
      var file = ShardFile(name: group.name, inputs: group.inputs)
      for row in group.rows {
        switch group.kind {
        case .todos:
          let position = Int(todoOrder[row])
          let pk = todos.pk(position)
          let text = todos.text(position)
          // A text key's link is its page's name.
          let link = todos.hasTextKey(position) ? Self.string(todos.pageName(position)) : String(pk)
          let due =
            Todo(pk: pk, text: "", priority: .none, complete: false, due: todos.due(position))
            .dueDay.map(String.init) ?? ""
          file.add(
            text: text,
            row: "[\(link),\(Self.string(text)),\(code[todos.priority(position)] ?? 0),"
              + "\(todos.isComplete(position) ? 1 : 0),\(Self.string(due))]")
        case .possessions:
          let possession = possessions[row]
          file.add(
            text: possession.name + "\n" + possession.description,
            row:
              "[\(possession.id),\(Self.string(possession.name)),"
              + "\(Self.string(possession.description))]")
        case .contacts:
          let contact = contactRows[row]
          file.add(text: contact.name, row: "[\(contact.id),\(Self.string(contact.name))]")
        }
      }
      try emit(Self.path(group.name), file.finished())
      shards.append(file.shard)
      shardsMade += 1
    }
  }

  /// What the next build's record holds: the shards' names, hashes and summaries.
  var record: SearchRecord { SearchRecord(shards: shards) }

  /// The path of the shard `name`'s file.
  static func path(_ name: String) -> String { "search/\(name).js" }

  /// Appends to `groups` the shards of the rows of one kind whose keys are `keys`, in key
  /// order, each with the keyed hash of the shard's name and of what `add` feeds of its rows
  /// (by their positions in `keys`).
  private static func group(
    _ kind: Group.Kind, _ letter: String, buckets: some RandomAccessCollection<Bucket>,
    hashKey: HashKey, into groups: inout [Group], add: (inout FingerprintHasher, Int) -> Void
  ) {
    let keys = Array(buckets)
    var start = 0
    while start < keys.count {
      let bucket = keys[start]
      var end = start + 1
      while end < keys.count, keys[end] == bucket { end += 1 }
      let name = (bucket.textKey ? letter + "x" : letter) + String(bucket.number)
      var hasher = FingerprintHasher(key: hashKey)
      hasher.add(name)
      hasher.add(end - start)
      for row in start..<end { add(&hasher, row) }
      groups.append(Group(kind: kind, name: name, rows: start..<end, inputs: hasher.value))
      start = end
    }
  }

  /// The shard a row's key puts it in: 1,000 keys a shard (`t12`); a to-do with a text key
  /// (numbered by a hash, so spread over every `Int64`) in one of 256 ranges of the numbers
  /// (`tx0` to `tx255`), in the numbers' order, after the whole-number keys' shards.
  struct Bucket: Equatable {
    let number: Int64
    let textKey: Bool
  }

  static func bucket(_ key: Int64, textKey: Bool = false) -> Bucket {
    guard !textKey else {
      return Bucket(number: Int64(UInt64(bitPattern: key) >> 56 ^ 0x80), textKey: true)
    }
    return Bucket(
      number: key >= 0 ? key / keysPerShard : (key + 1) / keysPerShard - 1, textKey: false)
  }

  /// One shard's file while its rows are added (in key order), and its summary.
  private struct ShardFile {
    var shard: SearchRecord.Shard
    var bytes: [UInt8]

    init(name: String, inputs: KeyedHash) {
      shard = SearchRecord.Shard(
        name: name, inputs: inputs, count: 0,
        bitmap: [UInt8](repeating: 0, count: SearchIndex.bitmapBits / 8))
      bytes = Array("taskpressSearch.shard(\(SearchIndex.string(name)),[\n".utf8)
    }

    mutating func add(text: String, row: String) {
      if shard.count > 0 { bytes.append(contentsOf: ",\n".utf8) }
      bytes.append(contentsOf: row.utf8)
      shard.count += 1
      var previous: Unicode.Scalar?
      for scalar in SearchIndex.fold(text) {
        if let previous {
          let bit = SearchIndex.pairBit(previous, scalar)
          shard.bitmap[bit >> 3] |= UInt8(1) << UInt8(bit & 7)
        }
        previous = scalar
      }
    }

    mutating func finished() -> [UInt8] {
      bytes.append(contentsOf: "]);\n".utf8)
      return bytes
    }
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
