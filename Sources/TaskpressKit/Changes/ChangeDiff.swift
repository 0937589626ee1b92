/// The changes between the previous build's snapshot and this build's data, in list order.
enum ChangeDiff {
  /// Every change of the sources both builds have; `photoFiles` names this build's photos as
  /// the possessions' data copy does.
  static func changes(
    previous: PreviousBuild, plan: SitePlan, photoFiles: [Int64: PageContext.PhotoFile],
    labels: Labels
  ) -> [Change] {
    var changes: [Change] = []
    if plan.hasTodos, let old = previous.todos {
      changes += todos(old, plan.todosByPK, labels: labels)
    }
    if plan.hasPossessions, let old = previous.possessions {
      changes += possessions(old, plan.possessions, photos: photoFiles.mapValues(\.path))
    }
    if plan.hasContacts, let old = previous.contacts {
      changes += contacts(old, plan.contacts)
    }
    return changes.sorted(by: <)
  }

  static func todos(_ old: [PreviousBuild.Todo], _ new: some Sequence<Todo>, labels: Labels)
    -> [Change]
  {
    var before = Dictionary(old.map { ($0.pk, $0) }, uniquingKeysWith: { first, _ in first })
    var changes: [Change] = []
    func change(_ kind: Change.Kind, _ todo: Todo, from: String? = nil, to: String? = nil) {
      changes.append(
        Change(source: .todos, change: kind, id: todo.pk, text: todo.text, from: from, to: to))
    }
    for todo in new {
      guard let was = before.removeValue(forKey: todo.pk) else {
        change(.added, todo)
        continue
      }
      if was.complete != todo.complete { change(todo.complete ? .completed : .reopened, todo) }
      if was.priority != todo.priority.number {
        change(
          .priority, todo, from: labels.priority(Priority(stored: was.priority)),
          to: labels.priority(todo.priority))
      }
      if was.text != todo.text { change(.text, todo, from: was.text, to: todo.text) }
    }
    for was in before.values {
      changes.append(Change(source: .todos, change: .removed, id: was.pk, text: was.text))
    }
    return changes
  }

  static func possessions(
    _ old: [PreviousBuild.Possession], _ new: [Possession], photos: [Int64: String]
  ) -> [Change] {
    var before = Dictionary(old.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    var changes: [Change] = []
    for possession in new {
      func change(_ kind: Change.Kind, from: String? = nil, to: String? = nil) {
        changes.append(
          Change(
            source: .possessions, change: kind, id: possession.id, text: possession.name,
            from: from, to: to))
      }
      guard let was = before.removeValue(forKey: possession.id) else {
        change(.added)
        continue
      }
      if was.photo != photos[possession.id] { change(.photo) }
      if was.name != possession.name { change(.name, from: was.name, to: possession.name) }
      if (was.description ?? "") != possession.description {
        change(.description, from: was.description ?? "", to: possession.description)
      }
    }
    for was in before.values {
      changes.append(Change(source: .possessions, change: .removed, id: was.id, text: was.name))
    }
    return changes
  }

  /// Contacts: added, removed, renamed, and changed address or phone (which the changes do not
  /// show: the data copies of contacts are published only when asked for).
  static func contacts(_ old: [PreviousBuild.Contact], _ new: [Contact]) -> [Change] {
    var before = Dictionary(old.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    var changes: [Change] = []
    for contact in new {
      func change(_ kind: Change.Kind, from: String? = nil, to: String? = nil) {
        changes.append(
          Change(
            source: .contacts, change: kind, id: contact.id, text: contact.name, from: from,
            to: to))
      }
      guard let was = before.removeValue(forKey: contact.id) else {
        change(.added)
        continue
      }
      if was.name != contact.name { change(.name, from: was.name, to: contact.name) }
      if (was.address ?? "") != contact.address || (was.phone ?? "") != contact.phone {
        change(.details)
      }
    }
    for was in before.values {
      changes.append(Change(source: .contacts, change: .removed, id: was.id, text: was.name))
    }
    return changes
  }
}
