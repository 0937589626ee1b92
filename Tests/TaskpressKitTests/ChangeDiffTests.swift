import Foundation
import Testing

@testable import TaskpressKit

/// `ChangeDiff.pair` walking rows in key order (`RenderPaths.keyOrderDiff`) against its plain
/// twin, a dictionary of the previous rows: the same rows give the same changes.
@Suite struct ChangeDiffTests {
  static let labels = Labels.builtIn(.en)

  /// Rows of to-dos made from `generator`: keys from `keys`, a few values each, so that many
  /// keys are in both builds and some rows of those changed.
  static func todos(_ keys: [Int64], _ generator: inout SplitMix) -> [Todo] {
    keys.map { key in
      let value = generator.next()
      return Todo(
        pk: key, text: ["call", "write", "fix", "Fix"][Int(value % 4)],
        priority: [.high, .medium, .low, .none, .other(7)][Int(value / 4 % 5)],
        complete: value / 20 % 2 == 0)
    }
  }

  /// Keys in one of the orders rows come in: increasing, with gaps, shuffled, or with a key
  /// twice.
  static func keys(_ round: Int, _ generator: inout SplitMix) -> [Int64] {
    let count = Int(generator.next() % 40)
    var keys = (0..<count).map { _ in Int64(generator.next() % 60) - 5 }
    switch round % 4 {
    case 0: keys = Array(Set(keys)).sorted()
    case 1: keys = Array(Set(keys)).sorted().filter { $0 % 3 != 0 }
    case 2: keys = Array(Set(keys)).shuffled(using: &generator)
    default: keys.sort()  // may hold a key twice
    }
    return keys
  }

  @Test("rows in key order or not, with keys twice or none, give the same changes both ways")
  func bothWays() {
    var generator = SplitMix(state: 22)
    var walked = 0
    for round in 0..<400 {
      let old = PreviousTodos(
        Self.todos(Self.keys(round, &generator), &generator).map {
          PreviousBuild.Todo(
            pk: $0.pk, text: $0.text, priority: $0.priority.number, complete: $0.complete)
        })
      let new = Self.todos(Self.keys(round / 4, &generator), &generator)
      let plain = ChangeDiff.todos(old, new, labels: Self.labels, inKeyOrder: false)
      let walking = ChangeDiff.todos(old, new, labels: Self.labels, inKeyOrder: true)
      #expect(walking.sorted(by: <) == plain.sorted(by: <), "round \(round)")
      if round % 4 < 2 && (round / 4) % 4 < 2 { walked += 1 }

      let oldPossessions = old.map {
        PreviousBuild.Possession(
          id: $0.pk, name: $0.text, description: $0.complete ? nil : "d",
          photo: $0.priority.map { "photos/\($0).png" })
      }
      let newPossessions = new.map {
        Possession(
          id: $0.pk, name: $0.text, description: $0.complete ? "" : "d", photo: nil)
      }
      let photos = Dictionary(
        new.compactMap { todo in todo.priority.number.map { (todo.pk, "photos/\($0).png") } },
        uniquingKeysWith: { first, _ in first })
      #expect(
        ChangeDiff.possessions(oldPossessions, newPossessions, photos: photos, inKeyOrder: true)
          .sorted(by: <)
          == ChangeDiff.possessions(
            oldPossessions, newPossessions, photos: photos, inKeyOrder: false
          ).sorted(by: <), "round \(round)")

      let oldContacts = old.map {
        PreviousBuild.Contact(id: $0.pk, name: $0.text, address: nil, phone: "1")
      }
      let newContacts = new.map {
        Contact(id: $0.pk, name: $0.text, address: "", phone: $0.complete ? "1" : "2")
      }
      #expect(
        ChangeDiff.contacts(oldContacts, newContacts, inKeyOrder: true).sorted(by: <)
          == ChangeDiff.contacts(oldContacts, newContacts, inKeyOrder: false).sorted(by: <),
        "round \(round)")
    }
    #expect(walked > 50)
  }

  @Test("a changed, an added and a removed to-do, walked in key order")
  func walkedChanges() {
    let old: PreviousTodos = [
      PreviousBuild.Todo(pk: 1, text: "a", priority: 1, complete: false),
      PreviousBuild.Todo(pk: 2, text: "gone", priority: nil, complete: false),
      PreviousBuild.Todo(pk: 4, text: "c", priority: 2, complete: true),
    ]
    let new = [
      Todo(pk: 1, text: "a", priority: .high, complete: true),
      Todo(pk: 3, text: "new", priority: .low, complete: false),
      Todo(pk: 4, text: "C", priority: .medium, complete: true),
    ]
    let changes = ChangeDiff.todos(old, new, labels: Self.labels, inKeyOrder: true).sorted(by: <)
    #expect(
      changes.map { "\($0.kind) \($0.id) \($0.from ?? "-") \($0.to ?? "-")" } == [
        "todo-added 3 - -", "todo-completed 1 - -", "todo-text 4 c C", "todo-removed 2 - -",
      ])
  }

  @Test("to-dos are counted as a dictionary of every priority counts them")
  func counts() {
    var generator = SplitMix(state: 7)
    let priorities: [Priority] = [.high, .medium, .low, .none, .other(0), .other(-4), .other(9)]
    for round in 0..<200 {
      let todos = (0..<Int(generator.next() % 50)).map { _ in
        (
          priority: priorities[Int(generator.next() % UInt64(round % 7 + 1))],
          complete: generator.next() % 3 == 0
        )
      }
      var plain: [Priority: (open: Int, complete: Int)] = [:]
      for todo in todos {
        plain[todo.priority, default: (0, 0)].open += todo.complete ? 0 : 1
        plain[todo.priority, default: (0, 0)].complete += todo.complete ? 1 : 0
      }
      let counted = TodoCounts(todos)
      #expect(
        counted.byPriority.map { [$0.priority ?? 99, Int64($0.open), Int64($0.complete)] }
          == plain.keys.sorted().map { key in
            [key.number ?? 99, Int64(plain[key]?.open ?? 0), Int64(plain[key]?.complete ?? 0)]
          }, "round \(round)")
      #expect(counted.total == todos.count)
      #expect(counted.complete == todos.filter(\.complete).count)
      #expect(counted.open + counted.complete == counted.total)
    }
  }

  @Test("a plan finds a to-do by pk as a look at every to-do does, given in pk order or not")
  func hasTodo() {
    var generator = SplitMix(state: 8)
    for round in 0..<100 {
      var keys = Array(
        Set(
          (0..<Int(generator.next() % 30)).map { _ in
            Int64(generator.next() % 60) - 10
          }))
      if round % 2 == 0 { keys.sort() }
      var data = SiteData()
      data.todos = keys.map { Todo(pk: $0, text: "t", priority: .low, complete: false) }
      data.hasTodos = true
      let plan = SitePlan(data: data, pageSize: 10, routes: Routes(prettyURLs: false))
      for pk in Int64(-12)...Int64(52) {
        #expect(plan.hasTodo(pk: pk) == keys.contains(pk), "round \(round), pk \(pk)")
      }
    }
  }

  @Test(
    "a text compared from the packed rows changes as String's == says: é composed or not is no change"
  )
  func packedTexts() {
    let texts = ["", "a", "A", "caf\u{E9}", "cafe\u{301}", "caf\u{E8}", "日本", "日本語", "a\u{0}b"]
    let rows = TodoRows(texts.map { Todo(pk: 1, text: $0, priority: .high, complete: false) })
    for (position, ours) in texts.enumerated() {
      for theirs in texts {
        #expect(rows.text(at: position, is: theirs) == (ours == theirs), "\(ours) / \(theirs)")
      }
    }
    let old: PreviousTodos = [
      PreviousBuild.Todo(pk: 1, text: "caf\u{E9}", priority: 1, complete: false)
    ]
    let same = [Todo(pk: 1, text: "cafe\u{301}", priority: .high, complete: false)]
    #expect(ChangeDiff.todos(old, same, labels: Self.labels).isEmpty)
    let other = [Todo(pk: 1, text: "caf\u{E8}", priority: .high, complete: false)]
    #expect(ChangeDiff.todos(old, other, labels: Self.labels).map(\.to) == ["caf\u{E8}"])
  }
}

/// The to-dos compared as soon as they are planned (`RenderPaths.earlyTodoDiff`) against its
/// plain twin, which compares them with the other sources after the pages: rebuilds of the
/// same sites give the same bytes both ways.
@Suite struct EarlyTodoDiffTests {
  /// Builds `inputs`, copies the site and its state folder, applies `change` to the inputs and
  /// to the copy, then rebuilds the site with every fast path and the copy without
  /// `earlyTodoDiff`; expects the two to be the same, byte for byte. Returns the site's tree.
  @discardableResult
  static func expectSameBothWays(
    _ name: String, setUp: (inout IncrementalTests.Inputs) throws -> Void = { _ in },
    change: (inout IncrementalTests.Inputs, _ site: String) throws -> Void
  ) throws -> [String: [UInt8]] {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    var inputs = try IncrementalTests.Inputs(folder)
    try setUp(&inputs)
    _ = try IncrementalTests.build(inputs.options)
    try IncrementalTests.copy(folder.sub("site"), folder.sub("plain"))
    try IncrementalTests.copy(folder.sub(".site.taskpress"), folder.sub(".plain.taskpress"))
    try change(&inputs, folder.sub("site"))
    try change(&inputs, folder.sub("plain"))

    _ = try IncrementalTests.build(inputs.options)
    var plain = inputs.options
    plain.output = folder.sub("plain")
    plain.renderPaths = RenderPaths.all.subtracting(.earlyTodoDiff)
    _ = try IncrementalTests.build(plain)

    return IncrementalTests.expectSameTrees(
      plain.output, inputs.options.output, "\(name): comparing the to-dos early differs")
  }

  /// Changes to the databases of `inputs`, once (the site and the copy share them).
  static func onceFor(_ site: String, _ body: () throws -> Void) rethrows {
    if site.hasSuffix("/site") { try body() }
  }

  @Test("every kind of to-do change, with a possession and a contact changed beside them")
  func everyKind() throws {
    let site = try Self.expectSameBothWays("every kind") { inputs, site in
      try Self.onceFor(site) {
        try inputs.change(
          "todo.sqlite",
          """
          UPDATE todo SET text = 'Changed *text*' WHERE pk = 13;
          UPDATE todo SET priority = 1 WHERE pk = 14;
          UPDATE todo SET complete = 1 - complete WHERE pk IN (15, 18);
          INSERT INTO todo VALUES (31, 'New', 2, 0), (40, 'Newer', NULL, 1);
          DELETE FROM todo WHERE pk IN (1, 30);
          """)
        try inputs.change("possessions.sqlite", "UPDATE possessions SET name = 'X' WHERE id = 3")
        try inputs.change("contacts.sqlite", "DELETE FROM contacts WHERE id = 2")
      }
      inputs.options.date = "2026-12-02"
    }
    // The changes were recorded, of the three sources.
    let changes = String(decoding: try #require(site["data/changes.json"]), as: UTF8.self)
    for expected in ["\"Changed *text*\"", "\"Newer\"", "\"X\"", "\"Bob\""] {
      #expect(changes.contains(expected), "\(expected) in \(changes.prefix(400))")
    }
  }

  @Test("a site of an earlier taskpress, without a history: its to-dos are counted as build 1")
  func withoutHistory() throws {
    let site = try Self.expectSameBothWays("no history") { inputs, site in
      try FileManager.default.removeItem(atPath: site + "/data/history.json")
      try FileManager.default.removeItem(atPath: site + "/data/changes.json")
      try Self.onceFor(site) {
        try inputs.change("todo.sqlite", "DELETE FROM todo WHERE pk <= 10")
      }
    }
    let history = try JSONDecoder().decode(
      HistoryFile.self, from: Data(try #require(site["data/history.json"])))
    // Build 1 counts the 30 to-dos the copies had; build 2, the 20 left.
    #expect(history.builds.map { $0.todos?.total } == [30, 20])
  }

  @Test("to-dos without a published copy (the state folder's snapshot), and an option changed")
  func snapshotAndOption() throws {
    try Self.expectSameBothWays(
      "snapshot",
      setUp: { inputs in inputs.options.dataCopies = [.possessions] },
      change: { inputs, site in
        try Self.onceFor(site) {
          try inputs.change("todo.sqlite", "UPDATE todo SET text = 'Snap' WHERE pk = 2")
        }
        inputs.options.pageSize = 5
      })
    try Self.expectSameBothWays("no change, an option") { inputs, _ in
      inputs.options.boardLimit = 4
    }
  }

  @Test("comparing early keeps the changes and counts, and lets go of the rows")
  func comparedInPlace() throws {
    let new = [
      Todo(pk: 1, text: "a", priority: .high, complete: true),
      Todo(pk: 3, text: "c", priority: .low, complete: false),
    ]
    let old: PreviousTodos = [
      PreviousBuild.Todo(pk: 1, text: "a", priority: 1, complete: false),
      PreviousBuild.Todo(pk: 2, text: "b", priority: nil, complete: false),
    ]
    var data = SiteData()
    data.packedTodos = TodoRows(new)
    data.hasTodos = true
    let plan = SitePlan(data: data, pageSize: 10, routes: Routes(prettyURLs: false))
    var previous = PreviousBuild()
    previous.todos = old
    let labels = ChangeDiffTests.labels
    let plainChanges = ChangeDiff.changes(
      previous: previous, plan: plan, photoFiles: [:], labels: labels)
    let compared = ChangeDiff.comparingTodos(
      previous, plan.todos, at: plan.todoPositionsByPK, labels: labels)
    #expect(compared.todos == nil)
    #expect(!compared.isEmpty)
    #expect(compared.comparedTodos?.counts == ChangeDiff.counts(old))
    #expect(
      ChangeDiff.changes(previous: compared, plan: plan, photoFiles: [:], labels: labels)
        == plainChanges)
    #expect(Set(plainChanges.map(\.change)) == [.completed, .added, .removed])
    // With a history of builds, the counts are not needed.
    previous.history = HistoryFile(
      format: HistoryFile.currentFormat, feed: "urn:x",
      builds: [HistoryEntry(build: 1, date: nil, changes: 0)])
    #expect(
      ChangeDiff.comparingTodos(previous, plan.todos, at: plan.todoPositionsByPK, labels: labels)
        .comparedTodos?.counts == nil)
    // The rows as read, in pk order, give what the plan's give.
    #expect(
      ChangeDiff.comparingTodos(previous, try #require(data.packedTodos), at: 0..<2, labels: labels)
        == ChangeDiff.comparingTodos(
          previous, plan.todos, at: plan.todoPositionsByPK, labels: labels))
  }
}
