/// Every page of the site and the order of things on them, decided before anything renders.
///
/// Pages are planned as small values and their contexts are made when they render, so the plan
/// of 100,000 to-dos stays small.
struct SitePlan: Sendable {
  /// One page to render.
  enum Page: Sendable, Equatable {
    /// Index page `number` (1-based).
    case index(Int)
    case board
    /// The to-do at `position` in index order.
    case todo(Int)
    case possessions
    /// The possession at `position` in id order.
    case possession(Int)
    case contacts
    /// The contact at `position` in name order.
    case contact(Int)
    case notFound
    /// Page `number` of `changes.html` (1-based): the builds that changed something, newest
    /// first. Planned once the changes are known (see `ChangeReport`), not in ``pages``.
    case changes(Int)
  }

  /// To-dos in index order: High, Medium, Low, other by number, no priority; then pk.
  let todos: [Todo]
  /// Their texts, in the same order, ready to hand to a render.
  let todoTexts: TodoTexts
  /// To-dos by pk, for the data copies: `todos` read in pk order, without a second copy of
  /// the rows.
  var todosByPK: LazyMapSequence<[Int32], Todo> {
    let rows = todos
    let order = pkOrder ?? rows.indices.sorted { rows[$0].pk < rows[$1].pk }.map { Int32($0) }
    return order.lazy.map { rows[Int($0)] }
  }
  /// The positions in `todos` in pk order, when the to-dos were given in pk order (as
  /// `TodoSource` reads them): 4 bytes a row instead of a second array of them.
  private let pkOrder: [Int32]?
  /// How many to-dos are complete.
  let completeCount: Int
  /// Possessions by id.
  let possessions: [Possession]
  /// Contacts by name, then id.
  let contacts: [Contact]
  /// Whether each source was given (a given source with no rows still gets its pages).
  let hasTodos: Bool
  /// Whether the to-dos have a due date: the data copies then have a `due` column.
  let hasDueDates: Bool
  let hasPossessions: Bool
  let hasContacts: Bool
  /// To-dos per index page; at least 1.
  let pageSize: Int
  /// Index pages; at least 1.
  let pageCount: Int
  let routes: Routes

  init(data: SiteData, pageSize: Int, routes: Routes) {
    let isByPK = data.todos.indices.dropFirst().allSatisfy {
      data.todos[$0 - 1].pk < data.todos[$0].pk
    }
    if isByPK, data.todos.count < Int(Int32.max) {
      (todos, pkOrder) = Self.indexOrder(byPK: data.todos)
    } else {
      todos = data.todos.sorted(by: Self.indexOrder)
      pkOrder = nil
    }
    todoTexts = TodoTexts(todos)
    completeCount = data.todos.reduce(0) { $0 + ($1.complete ? 1 : 0) }
    possessions = data.possessions.sorted { $0.id < $1.id }
    // Each name's key made once: folding a name is not cheap.
    contacts = data.contacts.map { (ContactName.sortKey($0.name), $0) }.sorted { lhs, rhs in
      lhs.0 != rhs.0 ? lhs.0 < rhs.0 : lhs.1.id < rhs.1.id
    }.map(\.1)
    hasTodos = data.hasTodos
    hasDueDates = data.hasDueDates
    hasPossessions = data.hasPossessions
    hasContacts = data.hasContacts
    self.pageSize = pageSize == 0 ? max(todos.count, 1) : pageSize
    pageCount = max(1, (todos.count + self.pageSize - 1) / self.pageSize)
    self.routes = routes
  }

  /// Whether `lhs` comes before `rhs` in index order.
  static func indexOrder(_ lhs: Todo, _ rhs: Todo) -> Bool {
    lhs.priority != rhs.priority ? lhs.priority < rhs.priority : lhs.pk < rhs.pk
  }

  /// `todos`, which are in pk order, in index order: one pass counts each priority's group,
  /// the next places each to-do in its group, which keeps pk order within it; only the rare
  /// other numbers need sorting. (Sorting 100,000 to-dos was a hundredth of a second that
  /// nothing else ran beside.)
  /// Returns the to-dos in index order, and where each of the given ones went.
  static func indexOrder(byPK todos: [Todo]) -> (todos: [Todo], positions: [Int32]) {
    // By `Priority.rank`: only the group of other numbers (3) needs sorting within.
    var starts = [Int](repeating: 0, count: 6)
    for todo in todos { starts[todo.priority.rank + 1] += 1 }
    for index in 1..<starts.count { starts[index] += starts[index - 1] }
    // Where each group's next to-do goes, then the positions in `todos` in index order.
    var next = starts
    var order = [Int](repeating: 0, count: todos.count)
    for position in todos.indices {
      let group = todos[position].priority.rank
      order[next[group]] = position
      next[group] += 1
    }
    order[starts[3]..<starts[4]].sort { indexOrder(todos[$0], todos[$1]) }
    var positions = [Int32](repeating: 0, count: todos.count)
    for (position, given) in order.enumerated() { positions[given] = Int32(position) }
    return (order.map { todos[$0] }, positions)
  }

  /// Every page, in a fixed order.
  var pages: [Page] {
    var pages: [Page] = []
    pages.reserveCapacity(
      pageCount + 4 + (hasTodos ? todos.count : 0) + (hasPossessions ? possessions.count : 0)
        + (hasContacts ? contacts.count : 0))
    pages += (1...pageCount).map(Page.index)
    if hasTodos {
      pages.append(.board)
      pages += todos.indices.map(Page.todo)
    }
    if hasPossessions {
      pages.append(.possessions)
      pages += possessions.indices.map(Page.possession)
    }
    if hasContacts {
      pages.append(.contacts)
      pages += contacts.indices.map(Page.contact)
    }
    pages.append(.notFound)
    return pages
  }

  /// The route name of a page (`todos/3`, `page/2`); see ``Routes``.
  func name(of page: Page) -> String {
    switch page {
    case .index(let number): number == 1 ? "" : "page/\(number)"
    case .board: "board"
    case .todo(let position): "todos/\(todos[position].pk)"
    case .possessions: "possessions/index"
    case .possession(let position): "possessions/\(possessions[position].id)"
    case .contacts: "contacts/index"
    case .contact(let position): "contacts/\(contacts[position].id)"
    case .notFound: "404"
    case .changes(let number): number == 1 ? "changes" : "changes/\(number)"
    }
  }

  /// The file a page is written to.
  func file(of page: Page) -> String {
    switch page {
    case .todo(let position): rowFile("todos/", todos[position].pk)
    case .possession(let position): rowFile("possessions/", possessions[position].id)
    case .contact(let position): rowFile("contacts/", contacts[position].id)
    default: routes.file(name(of: page))
    }
  }

  /// `routes.file(name(of: page))` of a row's page (`todos/7.html`, `todos/7/index.html`),
  /// written in one piece: it is asked for once per row.
  private func rowFile(_ folder: StaticString, _ id: Int64) -> String {
    let suffix: StaticString = routes.prettyURLs ? "/index.html" : ".html"
    let capacity = folder.utf8CodeUnitCount + DecimalText.length(id) + suffix.utf8CodeUnitCount
    return String(unsafeUninitializedCapacity: capacity) { buffer in
      var index = Self.write(folder, into: buffer, at: 0)
      index = DecimalText.write(id, into: buffer, at: index)
      return Self.write(suffix, into: buffer, at: index)
    }
  }

  /// Writes `text` into `buffer` from `index`; returns the index after it.
  private static func write(
    _ text: StaticString, into buffer: UnsafeMutableBufferPointer<UInt8>, at index: Int
  ) -> Int {
    var end = index
    for byte in UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount) {
      buffer[end] = byte
      end += 1
    }
    return end
  }

  /// The index page a to-do is listed on.
  func indexPage(ofTodoAt position: Int) -> Int {
    position / pageSize + 1
  }

  /// The positions of the to-dos on index page `number`.
  func todoPositions(onIndexPage number: Int) -> Range<Int> {
    let start = min((number - 1) * pageSize, todos.count)
    return start..<min(start + pageSize, todos.count)
  }
}

/// What a site is made of: the rows of every source.
struct SiteData: Sendable {
  var todos: [Todo] = []
  var possessions: [Possession] = []
  var contacts: [Contact] = []
  var hasTodos = false
  var hasPossessions = false
  var hasContacts = false
  /// Whether the to-dos have a due date (their source maps a column for it).
  var hasDueDates = false
}

/// The texts of some to-dos as UTF-8 in one block of memory, made once for a build: a render
/// hands a to-do's text from here without counting references to its `String` (two atomic
/// operations for every text shown, a few hundred thousand a build).
final class TodoTexts: @unchecked Sendable {
  // Written only by `init`.
  private let bytes: UnsafeMutablePointer<UInt8>
  /// Where the text of each to-do starts in `bytes`, and where the last ends.
  private let starts: UnsafeMutablePointer<Int>
  /// How many to-dos.
  let count: Int

  init(_ todos: [Todo]) {
    let total = todos.reduce(0) { $0 + $1.text.utf8.count }
    bytes = .allocate(capacity: max(total, 1))
    starts = .allocate(capacity: todos.count + 1)
    count = todos.count
    var end = 0
    for (position, todo) in todos.enumerated() {
      starts[position] = end
      var text = todo.text
      text.withUTF8 { utf8 in
        guard let base = utf8.baseAddress else { return }
        (bytes + end).initialize(from: base, count: utf8.count)
        end += utf8.count
      }
    }
    starts[todos.count] = end
  }

  deinit {
    bytes.deallocate()
    starts.deallocate()
  }

  /// Hands the UTF-8 text of the to-do at `position` to `body`.
  @inline(__always)
  func withText<R>(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    precondition(position >= 0 && position < count, "no to-do at \(position)")
    return body(
      UnsafeBufferPointer(
        start: bytes + starts[position], count: starts[position + 1] - starts[position]))
  }

  /// Whether the text of the to-do at `position` is empty.
  func isEmpty(_ position: Int) -> Bool {
    precondition(position >= 0 && position < count, "no to-do at \(position)")
    return starts[position] == starts[position + 1]
  }
}
