import Mustache

// The values templates see, as computed objects: a page of 100,000 to-dos (the board) or
// 100,000 pages of one to-do each never build a dictionary per row, and a field is made only
// when a template reads it. `Templates/README.md` documents the names; `PageContext` decides
// what goes where.

/// A few fields in order, looked up one by one: cheaper than a dictionary for the handful of
/// names a page or a priority has.
struct Fields: MustacheObject, ExpressibleByDictionaryLiteral {
  private(set) var pairs: [(key: String, value: MustacheValue)]

  init() {
    pairs = []
  }

  init(dictionaryLiteral elements: (String, MustacheValue)...) {
    pairs = elements.map { (key: $0.0, value: $0.1) }
  }

  var keys: [String] { pairs.map(\.key) }

  func value(forKey key: String) -> MustacheValue? {
    for pair in pairs where pair.key == key {
      return pair.value
    }
    return nil
  }

  /// Sets `key` to `value`, replacing an earlier value.
  subscript(key: String) -> MustacheValue? {
    get { value(forKey: key) }
    set {
      let index = pairs.firstIndex { $0.key == key }
      switch (index, newValue) {
      case (let index?, let value?): pairs[index].value = value
      case (let index?, nil): pairs.remove(at: index)
      case (nil, let value?): pairs.append((key: key, value: value))
      case (nil, nil): break
      }
    }
  }
}

/// What every value of one build shares: the labels and the routes, with the texts a row
/// needs made once.
final class RowStrings: Sendable {
  let routes: Routes
  let labels: Labels
  let task: String
  let possessions: String
  let contacts: String
  let photo: String
  let photoOf: String
  let complete: String
  let inProgress: String
  /// The `priority` object of High, Medium, Low and no priority, made once.
  private let fixedPriorities: [MustacheValue]

  init(routes: Routes, labels: Labels) {
    self.routes = routes
    self.labels = labels
    task = labels["task"]
    possessions = labels["possessions"]
    contacts = labels["contacts"]
    photo = labels["photo"]
    photoOf = labels["photoOf"]
    complete = labels.status(complete: true)
    inProgress = labels.status(complete: false)
    fixedPriorities = [Priority.high, .medium, .low, .none].map {
      Self.makePriority($0, labels: labels)
    }
  }

  /// The `priority` object of a to-do: `label`, `level` and `number` (none for no priority).
  func priority(_ priority: Priority) -> MustacheValue {
    switch priority {
    case .high: fixedPriorities[0]
    case .medium: fixedPriorities[1]
    case .low: fixedPriorities[2]
    case .none: fixedPriorities[3]
    case .other: Self.makePriority(priority, labels: labels)
    }
  }

  private static func makePriority(_ priority: Priority, labels: Labels) -> MustacheValue {
    var fields: Fields = [
      "label": .string(labels.priority(priority)),
      "level": .string(PageContext.level(priority)),
    ]
    if let number = priority.number {
      fields["number"] = .int(number)
    }
    return .computed(fields)
  }
}

/// What the to-dos on one page share: the rows, the texts, and the start and end of a link from
/// this page to a to-do's page (`../todos/` and `.html`), so a link costs one concatenation.
final class TodoLinks: Sendable {
  let todos: [Todo]
  let strings: RowStrings
  let prefix: String
  let suffix: String
  /// The link of the page's own to-do, when the page is one: with pretty URLs it is `./`.
  let own: (pk: Int64, link: String)?

  /// Makes the links of the to-dos in `todos` from the page in `file`.
  ///
  /// - Parameters:
  ///   - todos: the to-dos, in index order.
  ///   - strings: the labels and routes.
  ///   - file: the page the links are on.
  ///   - ownPK: the to-do whose page `file` is, if it is one.
  init(todos: [Todo], strings: RowStrings, fromFile file: String, ownPK: Int64?) {
    self.todos = todos
    self.strings = strings
    own = ownPK.map { ($0, strings.routes.link(to: "todos/\($0)", fromFile: file)) }
    // A link to `todos/N` is the same for every N but for N itself: make the one to `todos/x`
    // and keep what is around the `x`.
    let sample = strings.routes.link(to: "todos/x", fromFile: file)
    let end = sample.utf8.lastIndex(of: UInt8(ascii: "x")) ?? sample.utf8.endIndex
    prefix = String(sample[..<end])
    suffix = end < sample.endIndex ? String(sample[sample.index(after: end)...]) : ""
  }

  /// The link to the page of the to-do with primary key `pk`.
  func link(_ pk: Int64) -> String {
    if let own, own.pk == pk { return own.link }
    return prefix + String(pk) + suffix
  }
}

/// A to-do as templates see it, with links relative to the page it is on.
///
/// Two words, so a `MustacheValue` holds it without a box of its own.
struct TodoValue: MustacheObject {
  let links: TodoLinks
  let position: Int

  var keys: [String] { ["pk", "text", "title", "priority", "complete", "status", "check", "url"] }

  func value(forKey key: String) -> MustacheValue? {
    // Each field is read from the array in place: a copy of the whole row would retain its
    // text for every lookup.
    let todos = links.todos
    let strings = links.strings
    return switch key {
    case "title":
      todos[position].text.isEmpty
        ? .string("\(strings.task) \(todos[position].pk)") : .string(todos[position].text)
    case "url": .string(links.link(todos[position].pk))
    case "priority": strings.priority(todos[position].priority)
    case "check": .string(todos[position].complete ? "☑" : "☐")
    case "status": .string(todos[position].complete ? strings.complete : strings.inProgress)
    case "complete": .bool(todos[position].complete)
    case "pk": .int(todos[position].pk)
    case "text": .string(todos[position].text)
    default: nil
    }
  }
}

/// A possession as templates see it; `photo` only when it has one in the site.
struct PossessionValue: MustacheObject {
  let possession: Possession
  let photo: PageContext.PhotoFile?
  let file: String
  let strings: RowStrings

  var keys: [String] {
    ["id", "name", "title", "text", "description", "url"] + (photo == nil ? [] : ["photo"])
  }

  func value(forKey key: String) -> MustacheValue? {
    switch key {
    case "title", "text":
      .string(
        possession.name.isEmpty ? "\(strings.possessions) \(possession.id)" : possession.name)
    case "url": .string(strings.routes.link(to: "possessions/\(possession.id)", fromFile: file))
    case "photo": photo.map(photoValue)
    case "name": .string(possession.name)
    case "description": .string(possession.description)
    case "id": .int(possession.id)
    default: nil
    }
  }

  private func photoValue(_ photo: PageContext.PhotoFile) -> MustacheValue {
    let alt =
      possession.name.isEmpty
      ? "\(strings.photo) \(possession.id)" : "\(strings.photoOf) \(possession.name)"
    let width = photo.width ?? 320
    let height = photo.height ?? 320
    let scale = min(1, 320 / Double(max(width, height, 1)))
    let fields: Fields = [
      "url": .string(strings.routes.asset(photo.path, fromFile: file)),
      "alt": .string(alt),
      "width": .int(Int64(width)),
      "height": .int(Int64(height)),
      "thumbWidth": .int(Int64(max(1, (Double(width) * scale).rounded()))),
      "thumbHeight": .int(Int64(max(1, (Double(height) * scale).rounded()))),
    ]
    return .computed(fields)
  }
}

/// A contact as templates see it.
struct ContactValue: MustacheObject {
  let contact: Contact
  let file: String
  let strings: RowStrings

  var keys: [String] { ["id", "name", "title", "text", "address", "phone", "url"] }

  func value(forKey key: String) -> MustacheValue? {
    switch key {
    case "title", "text":
      .string(contact.name.isEmpty ? "\(strings.contacts) \(contact.id)" : contact.name)
    case "url": .string(strings.routes.link(to: "contacts/\(contact.id)", fromFile: file))
    case "name": .string(contact.name)
    case "address": .string(contact.address)
    case "phone": .string(contact.phone)
    case "id": .int(contact.id)
    default: nil
    }
  }
}

/// Everything a page's templates see at the top level: what every page has (`site`, `labels`,
/// `page`, the layout's links) and what its kind adds (`todo`, `groups`, `content`, ...).
struct PageValues: MustacheObject {
  let site: MustacheValue
  let labels: MustacheValue
  let page: MustacheValue
  let chrome: PageContext.Chrome
  /// What the page's kind adds, and `content` once the body is rendered.
  var extra = Fields()

  static let commonKeys = ["page"] + SharedPageValues.keys

  var keys: [String] { Self.commonKeys + extra.keys }

  /// The values this page shares with every page of the same chrome.
  var shared: SharedPageValues {
    SharedPageValues(site: site, labels: labels, chrome: chrome)
  }

  func value(forKey key: String) -> MustacheValue? {
    if key == "page" { return page }
    return SharedPageValues.value(forKey: key, site: site, labels: labels, chrome: chrome)
      ?? extra.value(forKey: key)
  }

  subscript(key: String) -> MustacheValue? {
    get { value(forKey: key) }
    set { extra[key] = newValue }
  }
}

/// The top-level values that every page with the same chrome has alike: `site`, `labels` and
/// the layout's links. Templates are specialized for them (see `PageRenderer`).
struct SharedPageValues: MustacheObject {
  let site: MustacheValue
  let labels: MustacheValue
  let chrome: PageContext.Chrome

  static let keys = ["site", "labels", "root", "assets", "home", "nav", "data"]

  var keys: [String] { Self.keys }

  func value(forKey key: String) -> MustacheValue? {
    Self.value(forKey: key, site: site, labels: labels, chrome: chrome)
  }

  /// The value of `key` when it is one of `keys`; nil otherwise.
  static func value(
    forKey key: String, site: MustacheValue, labels: MustacheValue, chrome: PageContext.Chrome
  ) -> MustacheValue? {
    switch key {
    case "labels": labels
    case "site": site
    case "assets": chrome.assets
    case "nav": chrome.nav
    case "data": chrome.data
    case "home": chrome.home
    case "root": chrome.root
    default: nil
    }
  }
}
