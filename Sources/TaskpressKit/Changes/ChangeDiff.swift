/// The changes between the previous build's snapshot and this build's data, in list order.
enum ChangeDiff {
  /// Every change of the sources both builds have; `photoFiles` names this build's photos as
  /// the possessions' data copy does. With `inKeyOrder`, rows that both builds have in key
  /// order are paired in one walk (`RenderPaths.keyOrderDiff`; see `pair`).
  static func changes(
    previous: PreviousBuild, plan: SitePlan, photoFiles: [Int64: PageContext.PhotoFile],
    labels: Labels, inKeyOrder: Bool = true
  ) -> [Change] {
    var changes: [Change] = []
    if plan.hasTodos, let compared = previous.comparedTodos {
      changes += compared.changes
    } else if plan.hasTodos, let old = previous.todos {
      changes += todos(
        old, plan.todos, at: plan.todoPositionsByPK, labels: labels, inKeyOrder: inKeyOrder)
    }
    if plan.hasPossessions, let old = previous.possessions {
      changes += possessions(
        old, plan.possessions, photos: photoFiles.mapValues(\.path), inKeyOrder: inKeyOrder)
    }
    if plan.hasContacts, let old = previous.contacts {
      changes += contacts(old, plan.contacts, inKeyOrder: inKeyOrder)
    }
    return changes.sorted(by: <)
  }

  /// `previous` with its to-dos compared with this build's already, and their rows let go of
  /// (`RenderPaths.earlyTodoDiff`): the other sources are compared once the photos are named,
  /// after the pages, but the to-dos need only this build's rows, and a million of the
  /// previous ones are about 100 MB that need not be held while the plan and the pages are
  /// made. `changes(previous:...)` and the report take what they need of them from
  /// `comparedTodos`.
  ///
  /// `new`'s rows at `positions` are this build's to-dos in pk order, as
  /// `plan.todoPositionsByPK` has them: the rows as read, when they are in pk order.
  static func comparingTodos(
    _ previous: consuming PreviousBuild, _ new: TodoRows, at positions: some Collection<Int>,
    labels: Labels, inKeyOrder: Bool = true
  ) -> PreviousBuild {
    var previous = previous
    guard let old = previous.todos.take() else { return previous }
    // The counts only for a history without builds, the one case the report reads them.
    let counted = previous.history?.builds.isEmpty ?? true
    previous.comparedTodos = PreviousBuild.ComparedTodos(
      changes: todos(old, new, at: positions, labels: labels, inKeyOrder: inKeyOrder),
      counts: counted ? counts(old) : nil)
    return previous
  }

  /// The previous build's to-dos, counted.
  static func counts(_ old: PreviousTodos) -> TodoCounts {
    TodoCounts(old.indices.lazy.map { (Priority(stored: old.priority($0)), old.isComplete($0)) })
  }

  /// The changes of the to-dos: `new`'s rows at `positions`, in pk order. A row's text is made
  /// into a `String` only for a change that shows it.
  static func todos(
    _ old: PreviousTodos, _ new: TodoRows, at positions: some Collection<Int>,
    labels: Labels, inKeyOrder: Bool = true
  ) -> [Change] {
    var changes: [Change] = []
    func change(_ kind: Change.Kind, _ position: Int, from: String? = nil, to: String? = nil) {
      changes.append(
        Change(
          source: .todos, change: kind, id: new.pk(position), key: new.key(position),
          text: new.text(position),
          from: from, to: to))
    }
    let compareDue = old.hasDueDates
    // The previous rows by their place in `old`: a text is a `String` only where it shows.
    pair(
      old.indices, { old.pk($0) }, positions, { new.pk($0) }, inKeyOrder: inKeyOrder,
      matched: { was, position in
        let complete = new.isComplete(position)
        if old.isComplete(was) != complete {
          change(complete ? .completed : .reopened, position)
        }
        let priority = new.priority(position)
        if old.priority(was) != priority.number {
          change(
            .priority, position, from: labels.priority(Priority(stored: old.priority(was))),
            to: labels.priority(priority))
        }
        if !old.withText(was, { new.text(at: position, isUTF8: $0) }) {
          change(.text, position, from: old.text(was), to: new.text(position))
        }
        // Due dates only when the previous copy has them: a copy without the field (of a site
        // that had none) records no due date as added.
        if compareDue, old.due(was) != new.due(position) {
          change(
            .due, position, from: dueText(old.due(was), labels),
            to: dueText(new.due(position), labels))
        }
      },
      added: { change(.added, $0) },
      removed: { was in
        changes.append(
          Change(
            source: .todos, change: .removed, id: old.pk(was), key: old.key(was),
            text: old.text(was)))
      })
    return changes
  }

  /// The changes of the to-dos `new`, in their order.
  static func todos(
    _ old: PreviousTodos, _ new: [Todo], labels: Labels, inKeyOrder: Bool = true
  ) -> [Change] {
    todos(old, TodoRows(new), at: new.indices, labels: labels, inKeyOrder: inKeyOrder)
  }

  /// A due date as the changes show it: its day in the locale's format, the text as stored
  /// when it is not a date, the `dueNone` label when there is none.
  static func dueText(_ due: String?, _ labels: Labels) -> String {
    guard let due else { return labels["dueNone"] }
    let todo = Todo(pk: 0, text: "", priority: .none, complete: false, due: due)
    return todo.dueDay.map { labels.date(iso: String($0)) } ?? due
  }

  static func possessions(
    _ old: [PreviousBuild.Possession], _ new: [Possession], photos: [Int64: String],
    inKeyOrder: Bool = true
  ) -> [Change] {
    var changes: [Change] = []
    func change(
      _ kind: Change.Kind, _ possession: Possession, from: String? = nil, to: String? = nil
    ) {
      changes.append(
        Change(
          source: .possessions, change: kind, id: possession.id, text: possession.name,
          from: from, to: to))
    }
    pair(
      old, \.id, new, \.id, inKeyOrder: inKeyOrder,
      matched: { was, possession in
        if was.photo != photos[possession.id] { change(.photo, possession) }
        if was.name != possession.name {
          change(.name, possession, from: was.name, to: possession.name)
        }
        if (was.description ?? "") != possession.description {
          change(
            .description, possession, from: was.description ?? "", to: possession.description)
        }
      },
      added: { change(.added, $0) },
      removed: { was in
        changes.append(Change(source: .possessions, change: .removed, id: was.id, text: was.name))
      })
    return changes
  }

  /// Contacts: added, removed, renamed, and changed address or phone (which the changes do not
  /// show: the data copies of contacts are published only when asked for).
  static func contacts(
    _ old: [PreviousBuild.Contact], _ new: [Contact], inKeyOrder: Bool = true
  ) -> [Change] {
    var changes: [Change] = []
    func change(_ kind: Change.Kind, _ contact: Contact, from: String? = nil, to: String? = nil) {
      changes.append(
        Change(
          source: .contacts, change: kind, id: contact.id, text: contact.name, from: from, to: to
        ))
    }
    pair(
      old, \.id, new, \.id, inKeyOrder: inKeyOrder,
      matched: { was, contact in
        if was.name != contact.name { change(.name, contact, from: was.name, to: contact.name) }
        if (was.address ?? "") != contact.address || (was.phone ?? "") != contact.phone {
          change(.details, contact)
        }
      },
      added: { change(.added, $0) },
      removed: { was in
        changes.append(Change(source: .contacts, change: .removed, id: was.id, text: was.name))
      })
    return changes
  }

  /// Pairs the rows of the previous build and of this one by key: `matched` for a key both
  /// have, `added` for a row only this build has, `removed` for a row only the previous build
  /// had. When a key is twice in `old`, the first row is its; when twice in `new`, the second
  /// row is added. The calls come in no particular order (the changes are sorted after).
  ///
  /// The plain way puts `old` in a dictionary by key and looks up each row of `new`. With
  /// `inKeyOrder`, when both are in strictly increasing key order (as the data copies and the
  /// plan have them), they are walked side by side instead: no hashing, no dictionary of
  /// 100,000 rows.
  static func pair<Old, New, Olds: RandomAccessCollection<Old>>(
    _ old: Olds, _ oldKey: (Old) -> Int64, _ new: some Sequence<New>,
    _ newKey: (New) -> Int64, inKeyOrder: Bool,
    matched: (Old, New) -> Void, added: (New) -> Void, removed: (Old) -> Void
  ) {
    if inKeyOrder, isIncreasing(old.lazy.map(oldKey)), isIncreasing(new.lazy.map(newKey)) {
      var next = old.startIndex
      for row in new {
        let key = newKey(row)
        while next < old.endIndex, oldKey(old[next]) < key {
          removed(old[next])
          old.formIndex(after: &next)
        }
        if next < old.endIndex, oldKey(old[next]) == key {
          matched(old[next], row)
          old.formIndex(after: &next)
        } else {
          added(row)
        }
      }
      old[next...].forEach(removed)
      return
    }
    var before = Dictionary(old.map { (oldKey($0), $0) }, uniquingKeysWith: { first, _ in first })
    for row in new {
      if let was = before.removeValue(forKey: newKey(row)) {
        matched(was, row)
      } else {
        added(row)
      }
    }
    before.values.forEach(removed)
  }

  /// Whether each key is greater than the one before.
  private static func isIncreasing(_ keys: some Sequence<Int64>) -> Bool {
    var last: Int64?
    for key in keys {
      if let last, key <= last { return false }
      last = key
    }
    return true
  }
}
