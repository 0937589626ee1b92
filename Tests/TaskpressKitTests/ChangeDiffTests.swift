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
      let old = Self.todos(Self.keys(round, &generator), &generator).map {
        PreviousBuild.Todo(
          pk: $0.pk, text: $0.text, priority: $0.priority.number, complete: $0.complete)
      }
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
    let old = [
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
    let old = [PreviousBuild.Todo(pk: 1, text: "caf\u{E9}", priority: 1, complete: false)]
    let same = [Todo(pk: 1, text: "cafe\u{301}", priority: .high, complete: false)]
    #expect(ChangeDiff.todos(old, same, labels: Self.labels).isEmpty)
    let other = [Todo(pk: 1, text: "caf\u{E8}", priority: .high, complete: false)]
    #expect(ChangeDiff.todos(old, other, labels: Self.labels).map(\.to) == ["caf\u{E8}"])
  }
}
