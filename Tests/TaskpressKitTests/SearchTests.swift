import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressKit

/// The site-wide search (`SearchIndex`, `Templates/assets/site-search.js`, `Docs/search.md`):
/// the shipped script, run by node on a built site's shards, finds what a SQL `LIKE` over the
/// folded texts finds; a rebuild with nothing changed leaves the shards as they were, a
/// one-row change rewrites at most two of them, and `--search none` leaves the search out.
@Suite struct SearchTests {
  static let repository = URL(filePath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// Texts with accents, other scripts, wide and narrow forms, and Markdown.
  static let samples = [
    "Café crème", "naïve résumé", "Émile Zoë", "Øyvind's SMÖRGÅSBORD", "牛乳を買う",
    "東京タワーに行く", "ガソリンを入れる", "ﾊﾝｶｸ カタカナ", "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ", "Straße",
    "ΟΔΟΣ οδός", "İstanbul ılık", "ﬁle the ﬂat", "Crème brûlée", "日本語のテキスト検索",
    "mañana", "résumé", "**tax return**", "100% done_ok", "Σίσυφος",
  ]

  /// 2,600 to-dos (two shards and part of a third) of seeded words and samples; 40
  /// possessions; 12 contacts.
  static func databases(in folder: TemporaryFolder) throws {
    var generator = SeededGenerator(seed: 43)
    let words = "water plants call buy milk fix the bike write report book flights pay rent"
      .split(separator: " ").map(String.init)
    func sentence() -> String {
      let count = Int.random(in: 2...6, using: &generator)
      var parts = (0..<count).map { _ in words[Int.random(in: 0..<words.count, using: &generator)] }
      if Int.random(in: 0..<8, using: &generator) == 0 {
        parts.insert(samples[Int.random(in: 0..<samples.count, using: &generator)], at: 1)
      }
      return parts.joined(separator: " ")
    }
    func quoted(_ text: String) -> String {
      "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
    var todos: [String] = []
    var folded: [String] = []
    for pk in 1...2600 {
      let text = sentence()
      let priority = ["1", "2", "3", "NULL", "7"][Int.random(in: 0..<5, using: &generator)]
      let due =
        Int.random(in: 0..<3, using: &generator) == 0
        ? quoted("2026-12-\(10 + Int.random(in: 0..<15, using: &generator))") : "NULL"
      todos.append("(\(pk), \(quoted(text)), \(priority), \(pk % 3 == 0 ? 1 : 0), \(due))")
      folded.append("(\(pk), \(quoted(String(String.UnicodeScalarView(SearchIndex.fold(text))))))")
    }
    try Database.createForTesting(
      at: folder.sub("todo.sqlite"),
      sql: """
        CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN,
          due TEXT);
        INSERT INTO todo VALUES \(todos.joined(separator: ", "));
        CREATE TABLE folded(pk INTEGER PRIMARY KEY, text TEXT);
        INSERT INTO folded VALUES \(folded.joined(separator: ", "));
        """)
    var possessions: [String] = []
    var foldedPossessions: [String] = []
    for id in 1...40 {
      let (name, description) = (sentence(), samples[id % samples.count] + " " + sentence())
      possessions.append("(\(id), \(quoted(name)), \(quoted(description)), NULL)")
      let text = String(String.UnicodeScalarView(SearchIndex.fold(name + "\n" + description)))
      foldedPossessions.append("(\(id), \(quoted(text)))")
    }
    try Database.createForTesting(
      at: folder.sub("possessions.sqlite"),
      sql: """
        CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);
        INSERT INTO possessions VALUES \(possessions.joined(separator: ", "));
        CREATE TABLE folded(pk INTEGER PRIMARY KEY, text TEXT);
        INSERT INTO folded VALUES \(foldedPossessions.joined(separator: ", "));
        """)
    let names = ["Émile Zola", "山田太郎", "Zoë Ada", "Ｓａｔｏ", "Grace", "Øyvind"]
    let contacts = (1...12).map {
      "(\($0), \(quoted(names[$0 % names.count] + " \($0)")), 'A', '1')"
    }
    let foldedContacts = (1...12).map {
      "(\($0), \(quoted(String(String.UnicodeScalarView(SearchIndex.fold(names[$0 % names.count] + " \($0)"))))))"
    }
    try Database.createForTesting(
      at: folder.sub("contacts.sqlite"),
      sql: """
        CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT, address TEXT, phone TEXT);
        INSERT INTO contacts VALUES \(contacts.joined(separator: ", "));
        CREATE TABLE folded(pk INTEGER PRIMARY KEY, text TEXT);
        INSERT INTO folded VALUES \(foldedContacts.joined(separator: ", "));
        """)
  }

  static func options(_ folder: TemporaryFolder) -> BuildOptions {
    var options = BuildOptions()
    options.todos = folder.sub("todo.sqlite")
    options.mapping.todos = SourceMapping(columns: ["due": "due"])
    options.possessions = folder.sub("possessions.sqlite")
    options.contacts = folder.sub("contacts.sqlite")
    options.output = folder.sub("site")
    options.date = "2026-12-01"
    options.jobs = 2
    return options
  }

  static func build(_ options: BuildOptions) throws -> BuildSummary {
    try Build.run(
      options, sourceDateEpoch: nil, interrupt: InterruptFlag(), reporter: Build.Reporter { _ in })
  }

  /// Runs `Scripts/search-node.js` on `site` with `queries` (JSON objects); its answers.
  static func node(_ site: String, _ queries: [[String: Any]]) throws -> [[String: Any]] {
    let node = try TestEnvironment.requireTool("node", install: "apt-get install nodejs")
    let process = Process()
    process.executableURL = URL(filePath: node)
    process.arguments = [repository.appending(path: "Scripts/search-node.js").path, site]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: queries))
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return try #require(JSONSerialization.jsonObject(with: data) as? [[String: Any]])
  }

  /// The keys whose folded text is `LIKE '%query%'` (query folded, `%`, `_` and `\` escaped),
  /// in key order.
  static func like(_ database: String, _ query: String, where extra: String = "") throws
    -> [Int64]
  {
    let pattern =
      "%"
      + String(String.UnicodeScalarView(SearchIndex.fold(query)))
      .replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
      .replacingOccurrences(of: "_", with: "\\_") + "%"
    let connection = try Database.openWritableForTesting(at: database)
    let table = extra.isEmpty ? "folded" : "folded JOIN todo USING (pk)"
    let statement = try connection.prepare(
      "SELECT pk FROM \(table) WHERE folded.text LIKE ? ESCAPE '\\' \(extra) ORDER BY pk")
    try statement.bind(pattern, at: 1)
    var keys: [Int64] = []
    while let row = try statement.step() {
      keys.append(row.int64(at: 0) ?? -1)
    }
    return keys
  }

  @Test("the shipped script folds and hashes character pairs as the index does")
  func foldsAsTheIndex() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    try Self.databases(in: folder)
    _ = try Self.build(Self.options(folder))
    // A query that is a whole sample finds exactly the rows holding it, whatever the shards'
    // bitmaps say: a pair hashed otherwise would hide a shard.
    let queries = Self.samples.map { ["query": $0, "limit": 100_000, "budget": 1 << 30] }
    let answers = try Self.node(folder.sub("site"), queries)
    for (sample, answer) in zip(Self.samples, answers) {
      let found = (answer["results"] as? [[Any]] ?? []).filter { $0[0] as? String == "t" }
        .compactMap { ($0[1] as? NSNumber)?.int64Value }
      #expect(found == (try Self.like(folder.sub("todo.sqlite"), sample)), "\(sample)")
    }
  }

  @Test("20 seeded queries (accents, Japanese, filters) give SQL LIKE's first 20 results")
  func likeSQL() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    try Self.databases(in: folder)
    _ = try Self.build(Self.options(folder))
    let queries: [(query: String, priority: String, status: String, due: String, sql: String)] = [
      ("water", "", "", "", ""), ("CAFE", "", "", "", ""), ("creme", "", "", "", ""),
      ("résumé", "", "", "", ""), ("emile", "", "", "", ""), ("牛乳", "", "", "", ""),
      ("タワー", "", "", "", ""), ("カソリン", "", "", "", ""), ("ハンカク", "", "", "", ""),
      ("fullwidth abc", "", "", "", ""), ("strasse", "", "", "", ""), ("οδος", "", "", "", ""),
      ("file the flat", "", "", "", ""), ("y", "", "", "", ""), ("100% done_", "", "", "", ""),
      ("pay rent", "0", "", "", "AND priority = 1"), ("bike", "", "1", "", "AND complete = 1"),
      ("report", "", "0", "dated", "AND complete = 0 AND due IS NOT NULL"),
      ("milk", "", "", "overdue", "AND complete = 0 AND due < '2026-12-15'"),
      ("zzz-nothing", "", "", "", ""),
    ]
    let answers = try Self.node(
      folder.sub("site"),
      queries.map {
        [
          "query": $0.query, "priority": $0.priority, "status": $0.status, "due": $0.due,
          "today": "2026-12-15", "limit": 20, "budget": 1 << 30,
        ]
      })
    for (query, answer) in zip(queries, answers) {
      var wanted = try Self.like(folder.sub("todo.sqlite"), query.query, where: query.sql)
        .map { "t\($0)" }
      if query.priority.isEmpty, query.status.isEmpty, query.due.isEmpty {
        wanted += try Self.like(folder.sub("possessions.sqlite"), query.query).map { "p\($0)" }
        wanted += try Self.like(folder.sub("contacts.sqlite"), query.query).map { "c\($0)" }
      }
      wanted = Array(wanted.prefix(20))
      let found = (answer["results"] as? [[Any]] ?? []).map {
        "\($0[0])\(($0[1] as? NSNumber)?.int64Value ?? -1)"
      }
      #expect(found == wanted, "\(query.query): \(found) != \(wanted)")
    }
  }

  @Test("no change leaves the shards alone; a one-row change rewrites at most two of them")
  func rebuilds() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    try Self.databases(in: folder)
    let options = Self.options(folder)
    let first = try Self.build(options)
    let shards = first.writtenPaths.filter { $0.hasPrefix("search/") }
    #expect(shards.count == 1 + 3 + 1 + 1, "\(shards)")
    func contents() throws -> [String: Data] {
      var files: [String: Data] = [:]
      for name in try FileManager.default.contentsOfDirectory(atPath: folder.sub("site/search")) {
        files[name] = try Data(contentsOf: URL(filePath: folder.sub("site/search/" + name)))
      }
      return files
    }
    let before = try contents()
    let again = try Self.build(options)
    #expect(again.writtenPaths.filter { $0.hasPrefix("search/") }.isEmpty)
    #expect(try contents() == before)
    let connection = try Database.openWritableForTesting(at: folder.sub("todo.sqlite"))
    try connection.execute("UPDATE todo SET text = text || ' (changed) ザ' WHERE pk = 1500")
    let changed = try Self.build(options)
    let written = changed.writtenPaths.filter { $0.hasPrefix("search/") }
    #expect(Set(written) == ["search/index.js", "search/t1.js"], "\(written)")
    // Only the changed row's shard is made again; the others are kept with their summaries.
    #expect(changed.searchShardsMade == 1)
    try connection.execute("UPDATE todo SET complete = 1 - complete WHERE pk = 2001")
    let completed = try Self.build(options)
    #expect(completed.writtenPaths.filter { $0.hasPrefix("search/") } == ["search/t2.js"])
    #expect(completed.searchShardsMade == 1)
    try connection.execute("INSERT INTO todo VALUES (2601, 'new one', 1, 0, NULL)")
    #expect(
      try Self.build(options).writtenPaths.filter { $0.hasPrefix("search/") }.count <= 2)
  }

  @Test("recorded shards give the bytes of shards made from every row, edit after edit")
  func recordedShards() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    try Self.databases(in: folder)
    var recorded = Self.options(folder)
    var plain = recorded
    plain.output = folder.sub("plain")
    plain.renderPaths.remove(.recordedSearch)
    let connection = try Database.openWritableForTesting(at: folder.sub("todo.sqlite"))
    let hostile = SiteSafetyTests.hostile + ["</script><b>", "\u{2028}\u{2029}", "ΣΟΦΟΣ ς"]
    let edits: [String] = [
      "UPDATE todo SET text = ?1 WHERE pk = 1500",
      "UPDATE todo SET complete = 1 - complete WHERE pk = 17",
      "UPDATE todo SET priority = 9, text = ?1 WHERE pk = 2600",
      "INSERT INTO todo VALUES (5001, ?1, 1, 0, '2026-12-24')",
      "DELETE FROM todo WHERE pk = 999",
      "UPDATE todo SET priority = 1 WHERE priority = 7",
      "DELETE FROM todo WHERE pk BETWEEN 2000 AND 2999",
      "INSERT INTO todo VALUES (-3, ?1, NULL, 1, NULL)",
    ]
    for (step, edit) in ([nil] + edits).enumerated() {
      if let edit {
        let text = hostile[step * 7 % hostile.count]
        try connection.execute(
          edit.replacingOccurrences(
            of: "?1", with: "'" + text.replacingOccurrences(of: "'", with: "''") + "'"))
      }
      let made = try Self.build(recorded)
      _ = try Self.build(plain)
      let ours = Tree.contents(recorded.output).filter { $0.key.hasPrefix("search/") }
      let theirs = Tree.contents(plain.output).filter { $0.key.hasPrefix("search/") }
      #expect(!ours.isEmpty)
      #expect(ours == theirs, "step \(step): \(edit ?? "first build")")
      // A text or a status: the row's shard alone is made again.
      if step == 1 || step == 2 { #expect(made.searchShardsMade == 1, "step \(step)") }
    }
    // The plain twin makes every shard: all but the directory in search/.
    recorded.renderPaths.remove(.recordedSearch)
    try connection.execute("UPDATE todo SET text = text || '!' WHERE pk = 1")
    let shards = Tree.contents(recorded.output).keys.filter {
      $0.hasPrefix("search/") && $0 != "search/index.js"
    }
    let made = try Self.build(recorded).searchShardsMade
    #expect(made == shards.count, "\(made) of \(shards.sorted())")
  }

  @Test("--search none: no field, no script and no search/ folder; switched off, it goes")
  func none() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    try Self.databases(in: folder)
    var options = Self.options(folder)
    _ = try Self.build(options)
    let page = try String(contentsOfFile: folder.sub("site/todos/7.html"), encoding: .utf8)
    #expect(
      page.contains("<div class=\"site-search\" id=\"site-search\" data-index=\"../search/\""))
    #expect(page.contains("<script src=\"../assets/site-search.js\" defer></script>"))
    options.search = false
    let summary = try Self.build(options)
    #expect(!FileManager.default.fileExists(atPath: folder.sub("site/search")))
    #expect(summary.removedPaths.contains("search/index.js"))
    let plain = try String(contentsOfFile: folder.sub("site/todos/7.html"), encoding: .utf8)
    #expect(!plain.contains("site-search"))
  }

  @Test("contacts are searchable only where their pages are published")
  func contacts() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    try Self.databases(in: folder)
    var options = Self.options(folder)
    _ = try Self.build(options)
    #expect(FileManager.default.fileExists(atPath: folder.sub("site/search/c0.js")))
    options.contacts = nil
    _ = try Self.build(options)
    #expect(!FileManager.default.fileExists(atPath: folder.sub("site/search/c0.js")))
  }
}
