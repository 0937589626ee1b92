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

  /// No fields yet, with room for `capacity`.
  init(capacity: Int) {
    pairs = []
    pairs.reserveCapacity(capacity)
  }

  init(dictionaryLiteral elements: (String, MustacheValue)...) {
    pairs = elements.map { (key: $0.0, value: $0.1) }
  }

  var keys: [String] { pairs.map(\.key) }

  func value(forKey key: String) -> MustacheValue? {
    // Comparing lengths first is nearly free and rules out most keys.
    let length = key.utf8.count
    for pair in pairs where pair.key.utf8.count == length && pair.key == key {
      return pair.value
    }
    return nil
  }

  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    let length = key.utf8.count
    for index in pairs.indices where pairs[index].key.utf8.count == length {
      guard pairs[index].key == key else { continue }
      switch pairs[index].value {
      case .string(let text): return .hand(text, to: body)
      case .utf8(let bytes):
        bytes.withUnsafeBufferPointer(body)
        return .handed
      default: return .useValue
      }
    }
    return .missing
  }

  /// Sets `key` to `value`, replacing an earlier value.
  subscript(key: String) -> MustacheValue? {
    get { value(forKey: key) }
    set {
      let length = key.utf8.count
      let index = pairs.firstIndex { $0.key.utf8.count == length && $0.key == key }
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
  /// The labels of High, Medium, Low and no priority, made once.
  private let fixedLabels: [String]
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
    let fixed = [Priority.high, .medium, .low, .none]
    fixedLabels = fixed.map { labels.priority($0) }
    fixedPriorities = fixed.map { Self.makePriority($0, labels: labels) }
  }

  /// A priority's label: "High", "Priority 9", "No priority".
  func priorityLabel(_ priority: Priority) -> String {
    switch priority {
    case .high: fixedLabels[0]
    case .medium: fixedLabels[1]
    case .low: fixedLabels[2]
    case .none: fixedLabels[3]
    case .other: labels.priority(priority)
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

/// Links from one page to the pages of a section's rows (`todos/7.html`, `possessions/12/`):
/// the same for every id but for the id itself, so each is the page's prefix, the id and the
/// suffix, written straight into one string.
struct RowLinks: Sendable {
  let prefix: [UInt8]
  let suffix: [UInt8]
  /// The link of the page's own row, when the page is one: with pretty URLs it is `./`.
  let own: (id: Int64, link: String)?

  /// Makes the links to the rows of `section` (`todos`) from the page in `file`.
  init(section: String, routes: Routes, fromFile file: String, ownID: Int64?) {
    own = ownID.map { ($0, routes.link(to: "\(section)/\($0)", fromFile: file)) }
    // Make the link to `section/x` and keep what is around the `x`.
    (prefix, suffix) = Self.split(routes.link(to: section + "/x", fromFile: file))
  }

  /// Makes the links to the files of the folder `folder` (`photos/`) from the page in `file`;
  /// `link` is not used with them, `withFile(named:_:)` is.
  init(assetsIn folder: String, routes: Routes, fromFile file: String) {
    own = nil
    (prefix, suffix) = Self.split(routes.asset(folder + "x", fromFile: file))
  }

  private static func split(_ sample: String) -> ([UInt8], [UInt8]) {
    let bytes = Array(sample.utf8)
    let end = bytes.lastIndex(of: UInt8(ascii: "x")) ?? bytes.endIndex
    return (Array(bytes[..<end]), end < bytes.endIndex ? Array(bytes[(end + 1)...]) : [])
  }

  /// The link to the page of the row with id `id`.
  func link(_ id: Int64) -> String {
    if let own, own.id == id { return own.link }
    var link = ""
    withLink(id) { link = String(decoding: $0, as: UTF8.self) }
    return link
  }

  /// Hands `body` the link to the page of the row with id `id`, written on the stack.
  func withLink(_ id: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    if let own, own.id == id {
      _ = MustacheTextLookup.hand(own.link, to: body)
      return
    }
    let capacity = prefix.count + DecimalText.maximumLength + suffix.count
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
      var index = Self.copy(prefix, into: buffer, at: 0)
      index = DecimalText.write(id, into: buffer, at: index)
      index = Self.copy(suffix, into: buffer, at: index)
      body(UnsafeBufferPointer(rebasing: buffer[..<index]))
    }
  }

  /// Copies `bytes` into `buffer` from `index` in one piece; returns the index after them.
  @inline(__always)
  private static func copy(
    _ bytes: [UInt8], into buffer: UnsafeMutableBufferPointer<UInt8>, at index: Int
  ) -> Int {
    bytes.withUnsafeBufferPointer { source in
      guard let from = source.baseAddress, let to = buffer.baseAddress else { return index }
      (to + index).update(from: from, count: source.count)
      return index + source.count
    }
  }

  /// Hands `body` the link to the file `name` of the folder these links were made for,
  /// written on the stack.
  func withFile(named name: Substring.UTF8View, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    let capacity = prefix.count + name.count + suffix.count
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
      var index = Self.copy(prefix, into: buffer, at: 0)
      for byte in name {
        buffer[index] = byte
        index += 1
      }
      index = Self.copy(suffix, into: buffer, at: index)
      body(UnsafeBufferPointer(rebasing: buffer[..<index]))
    }
  }
}

/// What the to-dos on one page share: the rows, the texts, and the links from this page to the
/// to-dos' pages.
final class TodoLinks: Sendable {
  let todos: [Todo]
  /// The texts of `todos`.
  let texts: TodoTexts
  let strings: RowStrings
  let rows: RowLinks

  /// Makes the links of the to-dos in `todos` from the page in `file`.
  ///
  /// - Parameters:
  ///   - todos: the to-dos, in index order.
  ///   - texts: their texts (`SitePlan.todoTexts`).
  ///   - strings: the labels and routes.
  ///   - file: the page the links are on.
  ///   - ownPK: the to-do whose page `file` is, if it is one.
  init(todos: [Todo], texts: TodoTexts, strings: RowStrings, fromFile file: String, ownPK: Int64?) {
    precondition(texts.count == todos.count, "the texts of other to-dos")
    self.todos = todos
    self.texts = texts
    self.strings = strings
    rows = RowLinks(section: "todos", routes: strings.routes, fromFile: file, ownID: ownPK)
  }

  /// The link to the page of the to-do with primary key `pk`.
  func link(_ pk: Int64) -> String {
    rows.link(pk)
  }
}

/// What the possessions on one page share: the links from this page to their pages and to
/// their photos.
final class PossessionLinks: Sendable {
  let strings: RowStrings
  let rows: RowLinks
  let photos: RowLinks
  let file: String

  init(strings: RowStrings, fromFile file: String, ownID: Int64?) {
    self.strings = strings
    self.file = file
    rows = RowLinks(section: "possessions", routes: strings.routes, fromFile: file, ownID: ownID)
    photos = RowLinks(assetsIn: "photos/", routes: strings.routes, fromFile: file)
  }

  /// Hands `body` the link to a photo of the site, `photos/NAME`, written on the stack.
  func photo(_ path: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> MustacheTextLookup {
    // Compared as bytes: `hasPrefix` on strings compares characters, several times slower.
    let folder = "photos/".utf8
    let bytes = path.utf8
    guard bytes.starts(with: folder), !bytes.dropFirst(folder.count).contains(UInt8(ascii: "/"))
    else {
      return .hand(strings.routes.asset(path, fromFile: file), to: body)
    }
    photos.withFile(named: path.utf8.dropFirst(folder.count), body)
    return .handed
  }

  /// The link to a photo of the site, `photos/NAME`.
  func photo(_ path: String) -> String {
    var link = ""
    _ = photo(path) { link = String(decoding: $0, as: UTF8.self) }
    return link
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
    // By length first: a lookup that falls through a to-do to the page (`labels`, `site`)
    // costs at most one comparison of strings.
    return switch key.utf8.count {
    case 2 where key == "pk": .int(todos[position].pk)
    case 3 where key == "url": .string(links.link(todos[position].pk))
    case 4 where key == "text": .string(todos[position].text)
    case 5 where key == "title":
      todos[position].text.isEmpty
        ? .string("\(strings.task) \(todos[position].pk)") : .string(todos[position].text)
    case 5 where key == "check": .string(todos[position].complete ? "☑" : "☐")
    case 6 where key == "status":
      .string(todos[position].complete ? strings.complete : strings.inProgress)
    case 8 where key == "priority": strings.priority(todos[position].priority)
    case 8 where key == "complete": .bool(todos[position].complete)
    default: nil
    }
  }

  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    // The text is read in place and the link written on the stack: no string is made.
    switch key.utf8.count {
    case 2 where key == "pk": return .hand(links.todos[position].pk, to: body)
    case 3 where key == "url":
      links.rows.withLink(links.todos[position].pk, body)
      return .handed
    case 4 where key == "text":
      links.texts.withText(position, body)
      return .handed
    case 5 where key == "title":
      guard !links.texts.isEmpty(position) else { return .useValue }
      links.texts.withText(position, body)
      return .handed
    case 5 where key == "check": return .hand(links.todos[position].complete ? "☑" : "☐", to: body)
    case 6 where key == "status":
      let strings = links.strings
      return .hand(links.todos[position].complete ? strings.complete : strings.inProgress, to: body)
    case 8 where key == "priority" || key == "complete": return .useValue
    default: return .missing
    }
  }
}

/// A possession as templates see it; `photo` only when it has one in the site.
struct PossessionValue: MustacheObject {
  let possession: Possession
  let photo: PageContext.PhotoFile?
  let links: PossessionLinks
  private var strings: RowStrings { links.strings }

  var keys: [String] {
    ["id", "name", "title", "text", "description", "url"] + (photo == nil ? [] : ["photo"])
  }

  func value(forKey key: String) -> MustacheValue? {
    // By length first, as `TodoValue` does.
    switch key.utf8.count {
    case 5 where key == "title", 4 where key == "text":
      .string(
        possession.name.isEmpty ? "\(strings.possessions) \(possession.id)" : possession.name)
    case 3 where key == "url": .string(links.rows.link(possession.id))
    case 5 where key == "photo": photo.map(photoValue)
    case 4 where key == "name": .string(possession.name)
    case 11 where key == "description": .string(possession.description)
    case 2 where key == "id": .int(possession.id)
    default: nil
    }
  }

  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    switch key.utf8.count {
    case 5 where key == "title", 4 where key == "text":
      guard !possession.name.isEmpty else { return .useValue }
      return .hand(possession.name, to: body)
    case 3 where key == "url":
      links.rows.withLink(possession.id, body)
      return .handed
    case 5 where key == "photo": return photo == nil ? .missing : .useValue
    case 4 where key == "name": return .hand(possession.name, to: body)
    case 11 where key == "description": return .hand(possession.description, to: body)
    case 2 where key == "id": return .hand(possession.id, to: body)
    default: return .missing
    }
  }

  private func photoValue(_ photo: PageContext.PhotoFile) -> MustacheValue {
    .computed(PhotoValue(links: links, id: possession.id, name: possession.name, photo: photo))
  }
}

/// A possession's photo as templates see it: each field is made when a template reads it (a
/// gallery reads four of the six).
struct PhotoValue: MustacheObject {
  let links: PossessionLinks
  /// The possession's id and name, for `alt`.
  let id: Int64
  let name: String
  let photo: PageContext.PhotoFile

  var keys: [String] {
    ["url", "alt", "width", "height", "thumbWidth", "thumbHeight", "thumbUrl", "srcset"]
  }

  /// The size of the largest side of a thumbnail.
  static let thumbnailSide = 320

  private var width: Int { photo.width ?? Self.thumbnailSide }
  private var height: Int { photo.height ?? Self.thumbnailSide }

  /// `side` scaled as the photo is to fit a thumbnail: never up, and at least one pixel.
  private func thumbnail(_ side: Int) -> Int64 {
    let scale = min(1, Double(Self.thumbnailSide) / Double(max(width, height, 1)))
    return Int64(max(1, (Double(side) * scale).rounded()))
  }

  func value(forKey key: String) -> MustacheValue? {
    // By length first, as `TodoValue` does.
    switch key.utf8.count {
    case 3 where key == "url": return .string(links.photo(photo.path))
    case 3 where key == "alt":
      let strings = links.strings
      return .string(name.isEmpty ? "\(strings.photo) \(id)" : strings.photoOf + " " + name)
    case 5 where key == "width": return .int(Int64(width))
    case 6 where key == "height": return .int(Int64(height))
    case 10 where key == "thumbWidth": return .int(thumbnail(width))
    case 11 where key == "thumbHeight": return .int(thumbnail(height))
    case 8 where key == "thumbUrl":
      return .string(links.photo(photo.renditions.first?.path ?? photo.path))
    case 6 where key == "srcset": return .string(srcset)
    default: return nil
    }
  }

  /// Every file of the photo with its width, for `srcset`: `../photos/a-320.webp 320w, ...`.
  private var srcset: String {
    guard !photo.renditions.isEmpty else { return links.photo(photo.path) }
    return photo.renditions.map { "\(links.photo($0.path)) \($0.width)w" }.joined(separator: ", ")
  }

  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    switch key.utf8.count {
    case 3 where key == "url": return links.photo(photo.path, body)
    case 3 where key == "alt": return .useValue
    case 5 where key == "width": return .hand(Int64(width), to: body)
    case 6 where key == "height": return .hand(Int64(height), to: body)
    case 10 where key == "thumbWidth": return .hand(thumbnail(width), to: body)
    case 11 where key == "thumbHeight": return .hand(thumbnail(height), to: body)
    case 8 where key == "thumbUrl", 6 where key == "srcset": return .useValue
    default: return .missing
    }
  }
}

/// A contact as templates see it.
struct ContactValue: MustacheObject {
  let contact: Contact
  let links: RowLinks
  let strings: RowStrings

  var keys: [String] { ["id", "name", "title", "text", "address", "phone", "url"] }

  func value(forKey key: String) -> MustacheValue? {
    switch key {
    case "title", "text":
      .string(contact.name.isEmpty ? "\(strings.contacts) \(contact.id)" : contact.name)
    case "url": .string(links.link(contact.id))
    case "name": .string(contact.name)
    case "address": .string(contact.address)
    case "phone": .string(contact.phone)
    case "id": .int(contact.id)
    default: nil
    }
  }

  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    switch key {
    case "title", "text":
      return contact.name.isEmpty ? .useValue : .hand(contact.name, to: body)
    case "url":
      links.withLink(contact.id, body)
      return .handed
    case "name": return .hand(contact.name, to: body)
    case "address": return .hand(contact.address, to: body)
    case "phone": return .hand(contact.phone, to: body)
    case "id": return .hand(contact.id, to: body)
    default: return .missing
    }
  }
}

/// What a page says of itself: `page.title`, `page.kind`, `page.file`, and `page.canonical`
/// and `page.script` when it has them.
struct PageInfo: MustacheObject {
  var title: String
  let kind: String
  var file: String
  var canonical: String?
  var script: String?

  init(title: String, kind: String, file: String) {
    self.title = title
    self.kind = kind
    self.file = file
  }

  var keys: [String] {
    ["title", "kind", "file"] + (canonical == nil ? [] : ["canonical"])
      + (script == nil ? [] : ["script"])
  }

  func value(forKey key: String) -> MustacheValue? {
    // By length first, as `TodoValue` does.
    switch key.utf8.count {
    case 5 where key == "title": .string(title)
    case 4 where key == "kind": .string(kind)
    case 4 where key == "file": .string(file)
    case 9 where key == "canonical": canonical.map { .string($0) }
    case 6 where key == "script": script.map { .string($0) }
    default: nil
    }
  }

  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    switch key.utf8.count {
    case 5 where key == "title": return .hand(title, to: body)
    case 4 where key == "kind": return .hand(kind, to: body)
    case 4 where key == "file": return .hand(file, to: body)
    case 9 where key == "canonical": return canonical.map { .hand($0, to: body) } ?? .missing
    case 6 where key == "script": return script.map { .hand($0, to: body) } ?? .missing
    default: return .missing
    }
  }
}

// MARK: - Values reused from page to page

/// A to-do that a page's values show, moved from page to page: see `ReusedPageValues`.
///
/// `@unchecked Sendable`: moved and read by the one thread that renders the pages.
final class TodoCursor: MustacheObject, @unchecked Sendable {
  let links: TodoLinks
  /// The to-do's place in index order.
  @exclusivity(unchecked) var position = 0

  init(links: TodoLinks) {
    self.links = links
  }

  var keys: [String] { TodoValue(links: links, position: position).keys }

  func value(forKey key: String) -> MustacheValue? {
    TodoValue(links: links, position: position).value(forKey: key)
  }

  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    TodoValue(links: links, position: position).text(forKey: key, body)
  }
}

/// The to-dos of a list (a board column, an index page), made as a template reaches them: one
/// object moved from to-do to to-do while nothing else holds it, so that a board of 100,000
/// cards does not make and free 100,000 objects. A to-do that is still held when the next is
/// asked for (a template going through the same list inside it) keeps its object, and the list
/// makes another.
///
/// `@unchecked Sendable`: a page's values are used by the one thread that renders it.
final class TodoListValues: @unchecked Sendable {
  private let links: TodoLinks
  private var cursor: TodoCursor
  private var box: MustacheObjectBox

  init(links: TodoLinks) {
    self.links = links
    cursor = TodoCursor(links: links)
    box = MustacheObjectBox(cursor)
  }

  /// The to-do at `position` in index order.
  func value(at position: Int) -> MustacheValue {
    if !isKnownUniquelyReferenced(&box) {
      cursor = TodoCursor(links: links)
      box = MustacheObjectBox(cursor)
    }
    cursor.position = position
    return .computed(box)
  }
}

/// What a page says of itself, changed from page to page: see `ReusedPageValues`.
///
/// `@unchecked Sendable`: changed and read by the one thread that renders the pages.
final class PageInfoCursor: MustacheObject, @unchecked Sendable {
  @exclusivity(unchecked) var info: PageInfo

  init(_ info: PageInfo) {
    self.info = info
  }

  var keys: [String] { info.keys }

  func value(forKey key: String) -> MustacheValue? {
    info.value(forKey: key)
  }

  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    // Field by field: a copy of the whole `info` would retain each of its strings.
    switch key.utf8.count {
    case 5 where key == "title": return .hand(info.title, to: body)
    case 4 where key == "kind": return .hand(info.kind, to: body)
    case 4 where key == "file": return .hand(info.file, to: body)
    case 9 where key == "canonical": return info.canonical.map { .hand($0, to: body) } ?? .missing
    case 6 where key == "script": return info.script.map { .hand($0, to: body) } ?? .missing
    default: return .missing
    }
  }
}

/// The values of to-do pages, made once per folder by each render thread and then moved from
/// page to page: a site's 100,000 to-do pages make no objects of their own.
///
/// Used by one thread (each render thread has its own, see `RenderBuffers`); a page's
/// values are good until the next page's are asked for.
final class ReusedPageValues {
  /// The values of to-do pages, one set per chrome (a folder), made as pages need them.
  fileprivate(set) var todoPages: [TodoPageSet] = []

  init() {}

  /// The objects behind one folder's to-do page values.
  final class TodoPageSet {
    let values: PageValues
    let info: PageInfoCursor
    let todo: TodoCursor
    let previous: TodoCursor
    let next: TodoCursor
    let previousValue: MustacheValue
    let nextValue: MustacheValue
    /// Whether `values` has `previous` and `next` now.
    var hasPrevious = false
    var hasNext = false

    init(values: PageValues, info: PageInfoCursor, links: TodoLinks) {
      self.values = values
      self.info = info
      todo = TodoCursor(links: links)
      previous = TodoCursor(links: links)
      next = TodoCursor(links: links)
      previousValue = .computed(previous)
      nextValue = .computed(next)
    }
  }

  /// The set for `chrome`, made by `make` the first time.
  func todoPages(for chrome: PageContext.Chrome, make: () -> TodoPageSet) -> TodoPageSet {
    if let found = todoPages.first(where: { $0.values.chrome === chrome }) { return found }
    let made = make()
    todoPages.append(made)
    return made
  }
}

/// Everything a page's templates see at the top level: what every page has (`site`, `labels`,
/// `page`, the layout's links) and what its kind adds (`todo`, `groups`, `content`, ...).
///
/// A class: the body and the layout of a page read the same values, through one reference,
/// and `content` set after the body is rendered is seen by the layout. `@unchecked Sendable`:
/// the values of a page are made, changed and read by the one thread that renders it.
final class PageValues: MustacheObject, @unchecked Sendable {
  let site: MustacheValue
  let labels: MustacheValue
  let page: MustacheValue
  let chrome: PageContext.Chrome
  /// What the page's kind adds, and `content` once the body is rendered: room for a to-do
  /// page's five. Changed only between renders, by the thread that renders the page, so each
  /// of its many reads needs no run-time check of exclusive access.
  @exclusivity(unchecked) private var extra = Fields(capacity: 5)

  init(site: MustacheValue, labels: MustacheValue, page: MustacheValue, chrome: PageContext.Chrome)
  {
    self.site = site
    self.labels = labels
    self.page = page
    self.chrome = chrome
  }

  static let commonKeys = ["page"] + SharedPageValues.keys

  var keys: [String] { Self.commonKeys + extra.keys }

  /// The values this page shares with every page of the same chrome.
  var shared: SharedPageValues {
    SharedPageValues(site: site, labels: labels, chrome: chrome)
  }

  func value(forKey key: String) -> MustacheValue? {
    if key.utf8.count == 4 && key == "page" { return page }
    // The page's own values first: the shared ones are mostly rendered once per chrome (see
    // `PageRenderer`), so they are asked for less. The two sets of names do not meet.
    return extra.value(forKey: key)
      ?? SharedPageValues.value(forKey: key, site: site, labels: labels, chrome: chrome)
  }

  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    if key.utf8.count == 4 && key == "page" { return .useValue }
    switch extra.text(forKey: key, body) {
    case .missing:
      // The shared values hand no text over: they are asked for their values.
      return SharedPageValues.value(forKey: key, site: site, labels: labels, chrome: chrome) == nil
        ? .missing : .useValue
    case let found:
      return found
    }
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
    // By length first: every page's own keys (`todo`, `content`, ...) are looked up here
    // before they are found in the page, so a miss must be cheap.
    switch key.utf8.count {
    case 3:
      key == "nav" ? chrome.nav : nil
    case 4:
      switch key {
      case "site": site
      case "data": chrome.data
      case "home": chrome.home
      case "root": chrome.root
      default: nil
      }
    case 6:
      switch key {
      case "labels": labels
      case "assets": chrome.assets
      default: nil
      }
    default:
      nil
    }
  }
}
