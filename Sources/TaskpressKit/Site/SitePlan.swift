/// Every page of the site and the order of things on them, decided before anything renders.
///
/// Pages are planned as small values and their contexts are made when they render, so the plan
/// of 100,000 to-dos stays small.
struct SitePlan: Sendable {
  /// One page to render.
  enum Page: Sendable, Hashable {
    /// Index page `number` (1-based).
    case index(Int)
    case board
    /// The to-do at `position` in index order.
    case todo(Int)
    /// Page `number` of the possession list (1-based): `possessions/index.html`, then
    /// `possessions/page/2.html`.
    case possessions(Int)
    /// The possession at `position` in id order.
    case possession(Int)
    case contacts
    /// The contact at `position` in name order.
    case contact(Int)
    case notFound
    /// Page `number` of `changes.html` (1-based): the builds that changed something, newest
    /// first. Planned once the changes are known (see `ChangeReport`), not in ``pages``.
    case changes(Int)
    /// `calendar.html`: the open to-dos' due dates by month, when they have any. Rendered
    /// with the changes pages, not in ``pages``.
    case calendar
    /// `flow.html`: the flow numbers of the recorded builds (burnup, cumulative flow, cycle
    /// time, throughput, aging) as charts and tables. Rendered with the changes pages.
    case flow
    /// `report.html`: one printable page of progress, burnup, overdue and oldest open to-dos
    /// and the latest changes. Rendered with the changes pages.
    case report
    /// Page `number` (1-based) of the filtered list `lists[list]` (`status/complete/`).
    case list(Int, Int)
    /// The front page (`index.html`) of a site without to-dos: the possession list's first page
    /// there.
    case possessionsFront
    /// The front page of a site with contacts only: the contact list there.
    case contactsFront
  }

  /// A filtered list of to-dos: those of one status, or of one priority level, in index order.
  struct TodoList: Sendable, Equatable {
    enum Kind: String, Sendable {
      case status, priority
    }
    let kind: Kind
    /// `in-progress`, `complete`; `high`, `medium`, `low`, `other`, `none`.
    let key: String
    /// The positions of its to-dos in index order: a range for a priority (the index is
    /// sorted by priority), a list for a status (4 bytes a to-do).
    let members: Members
    /// The priority of a priority list's first to-do (for its label); nil for a status.
    let priority: Priority?

    enum Members: Sendable, Equatable {
      case range(Range<Int>)
      case positions([Int32])
    }

    var count: Int {
      switch members {
      case .range(let range): range.count
      case .positions(let positions): positions.count
      }
    }

    /// The position in index order of its `index`th to-do.
    func position(_ index: Int) -> Int {
      switch members {
      case .range(let range): range.lowerBound + index
      case .positions(let positions): Int(positions[index])
      }
    }

    /// The index in the list of the to-do at `position` in index order; nil when it is not on
    /// the list.
    func index(ofPosition position: Int) -> Int? {
      switch members {
      case .range(let range):
        return range.contains(position) ? position - range.lowerBound : nil
      case .positions(let positions):
        // In index order: a binary search.
        var low = 0
        var high = positions.count
        while low < high {
          let middle = (low + high) / 2
          if positions[middle] < position { low = middle + 1 } else { high = middle }
        }
        return low < positions.count && positions[low] == position ? low : nil
      }
    }

    /// The route name of its page `number` (`status/complete/index`, `priority/high/page/2`).
    func name(page number: Int) -> String {
      number == 1 ? "\(kind.rawValue)/\(key)/index" : "\(kind.rawValue)/\(key)/page/\(number)"
    }
  }

  /// To-dos in index order: High, Medium, Low, other by number, no priority; then pk.
  let todos: TodoRows
  /// Their texts, in the same order, ready to hand to a render.
  var todoTexts: TodoTexts { todos.texts }
  /// To-dos by pk, for the data copies: `todos` read in pk order, without a second copy of
  /// the rows.
  var todosByPK: LazyMapSequence<[Int32], Todo> {
    let rows = todos
    return todoPositionsByPK.map { rows[$0] }
  }
  /// The positions in `todos` in pk order: the data copies and the changes read the packed
  /// rows there, without making a `Todo` of each.
  var todoPositionsByPK: LazyMapSequence<[Int32], Int> {
    todoOrderByPK.lazy.map { Int($0) }
  }
  /// The positions in `todos` in pk order, when the to-dos were given in pk order (as
  /// `TodoSource` reads them): 4 bytes a row instead of a second array of them.
  private let pkOrder: [Int32]?

  /// Whether a to-do with `pk` is in the plan: a binary search of the pk order, or a look at
  /// every to-do when they were not given in that order.
  func hasTodo(pk: Int64) -> Bool {
    position(ofTodoPK: pk) != nil
  }

  /// The position in index order of the to-do with `pk`, nil when there is none: a binary
  /// search of the pk order, or a look at every to-do when they were not given in that order
  /// (`findsTodosByHalving` is false).
  func position(ofTodoPK pk: Int64) -> Int? {
    guard let pkOrder else { return todos.indices.first { todos.pk($0) == pk } }
    var low = 0
    var high = pkOrder.count
    while low < high {
      let middle = (low + high) / 2
      let found = todos.pk(Int(pkOrder[middle]))
      if found == pk { return Int(pkOrder[middle]) }
      if found < pk { low = middle + 1 } else { high = middle }
    }
    return nil
  }

  /// Whether `position(ofTodoPK:)` halves the pk order rather than looking at every to-do.
  var findsTodosByHalving: Bool { pkOrder != nil }

  /// The positions in `todos` in pk order, as `todoPositionsByPK` reads them (4 bytes a row):
  /// the array itself, which outlives the plan when kept (the to-dos' copy record is made from
  /// it once the plan is let go of).
  var todoOrderByPK: [Int32] {
    pkOrder ?? todos.indices.sorted { todos.pk($0) < todos.pk($1) }.map { Int32($0) }
  }

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
  /// The filtered lists: In Progress and Complete, then each priority level that has to-dos
  /// (High, Medium and Low always).
  let lists: [TodoList]
  /// Cards a board column shows at most; at least 1.
  let boardLimit: Int
  /// To-dos per index page; at least 1.
  let pageSize: Int
  /// Index pages; at least 1.
  let pageCount: Int
  /// Possessions per page of the possession list; at least 1.
  let galleryPageSize: Int
  /// Pages of the possession list; at least 1.
  let galleryPageCount: Int
  let routes: Routes

  /// The plan of `data`: `pageSize` to-dos per index and list page, `galleryPageSize`
  /// possessions per page of the possession list (0 for one page of each).
  init(
    data: SiteData, pageSize: Int, routes: Routes, boardLimit: Int = 50, galleryPageSize: Int = 0
  ) {
    let given = data.packedTodos ?? TodoRows(data.todos)
    if given.isInPKOrder, given.count < Int(Int32.max) {
      let (order, positions) = Self.indexOrder(byPK: given)
      todos = TodoRows(given, at: order)
      pkOrder = positions
    } else {
      todos = TodoRows(
        given, at: given.indices.sorted { Self.indexOrder(given, $0, $1) })
      pkOrder = nil
    }
    completeCount = given.indices.reduce(0) { $0 + (given.isComplete($1) ? 1 : 0) }
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
    self.galleryPageSize = galleryPageSize == 0 ? max(possessions.count, 1) : galleryPageSize
    galleryPageCount = max(
      1, (possessions.count + self.galleryPageSize - 1) / self.galleryPageSize)
    self.routes = routes
    self.boardLimit = max(1, boardLimit)
    lists = hasTodos ? Self.lists(todos) : []
  }

  /// The filtered lists of `todos`, which are in index order.
  static func lists(_ todos: TodoRows) -> [TodoList] {
    var inProgress: [Int32] = []
    var complete: [Int32] = []
    for position in todos.indices {
      if todos.isComplete(position) {
        complete.append(Int32(truncatingIfNeeded: position))
      } else {
        inProgress.append(Int32(truncatingIfNeeded: position))
      }
    }
    var lists = [
      TodoList(kind: .status, key: "in-progress", members: .positions(inProgress), priority: nil),
      TodoList(kind: .status, key: "complete", members: .positions(complete), priority: nil),
    ]
    // Each level is one run of the index order (other numbers are one level).
    var start = 0
    for (rank, key) in ["high", "medium", "low", "other", "none"].enumerated() {
      var end = start
      while end < todos.count, todos.priority(end).rank == rank { end += 1 }
      let named: [Priority] = [.high, .medium, .low]
      if end > start || rank < 3 {
        lists.append(
          TodoList(
            kind: .priority, key: key, members: .range(start..<end),
            priority: end > start ? todos.priority(start) : named[rank]))
      }
      start = end
    }
    return lists
  }

  /// The index of the list of `kind` and `key` in `lists`.
  func list(_ kind: TodoList.Kind, _ key: String) -> Int? {
    lists.firstIndex { $0.kind == kind && $0.key == key }
  }

  /// Pages of the list at `index` in `lists`; at least 1.
  func pageCount(ofList index: Int) -> Int {
    max(1, (lists[index].count + pageSize - 1) / pageSize)
  }

  /// Whether the site's front page is a list of possessions or contacts: there are no to-dos.
  var frontPage: Page? {
    guard !hasTodos else { return nil }
    if hasPossessions { return .possessionsFront }
    return hasContacts ? .contactsFront : nil
  }

  /// Whether `lhs` comes before `rhs` in index order.
  static func indexOrder(_ lhs: Todo, _ rhs: Todo) -> Bool {
    lhs.priority != rhs.priority ? lhs.priority < rhs.priority : lhs.pk < rhs.pk
  }

  /// Whether the to-do at `lhs` of `todos` comes before the one at `rhs` in index order.
  static func indexOrder(_ todos: TodoRows, _ lhs: Int, _ rhs: Int) -> Bool {
    let (left, right) = (todos.priority(lhs), todos.priority(rhs))
    return left != right ? left < right : todos.pk(lhs) < todos.pk(rhs)
  }

  /// `todos`, which are in pk order, in index order: one pass counts each priority's group,
  /// the next places each to-do in its group, which keeps pk order within it; only the rare
  /// other numbers need sorting. (Sorting 100,000 to-dos was a hundredth of a second that
  /// nothing else ran beside.)
  /// Returns the positions in `todos` in index order, and where each of them went.
  static func indexOrder(byPK todos: TodoRows) -> (order: [Int], positions: [Int32]) {
    // By `Priority.rank`: only the group of other numbers (3) needs sorting within.
    var starts = [Int](repeating: 0, count: 6)
    for position in todos.indices { starts[todos.priority(position).rank + 1] += 1 }
    for index in 1..<starts.count { starts[index] += starts[index - 1] }
    // Where each group's next to-do goes, then the positions in `todos` in index order.
    var next = starts
    var order = [Int](repeating: 0, count: todos.count)
    for position in todos.indices {
      let group = todos.priority(position).rank
      order[next[group]] = position
      next[group] += 1
    }
    order[starts[3]..<starts[4]].sort { indexOrder(todos, $0, $1) }
    var positions = [Int32](repeating: 0, count: todos.count)
    for (position, given) in order.enumerated() { positions[given] = Int32(position) }
    return (order, positions)
  }

  /// Every page, in a fixed order.
  var pages: PageList {
    var pages = PageList()
    if let frontPage {
      pages.append(frontPage)
    } else {
      pages += (1...pageCount).lazy.map(Page.index)
    }
    if hasTodos {
      pages.append(.board)
      for list in lists.indices {
        pages += (1...pageCount(ofList: list)).lazy.map { Page.list(list, $0) }
      }
      pages += todos.indices.lazy.map(Page.todo)
    }
    if hasPossessions {
      pages += (1...galleryPageCount).lazy.map(Page.possessions)
      pages += possessions.indices.lazy.map(Page.possession)
    }
    if hasContacts {
      pages.append(.contacts)
      pages += contacts.indices.lazy.map(Page.contact)
    }
    pages.append(.notFound)
    return pages
  }

  /// The route name of a page (`todos/3`, `page/2`); see ``Routes``.
  func name(of page: Page) -> String {
    switch page {
    case .index(let number): number == 1 ? "" : "page/\(number)"
    case .board: "board"
    case .todo(let position): "todos/" + todos.pageName(position)
    case .possessions(let number): number == 1 ? "possessions/index" : "possessions/page/\(number)"
    case .possession(let position): "possessions/\(possessions[position].id)"
    case .contacts: "contacts/index"
    case .contact(let position): "contacts/\(contacts[position].id)"
    case .notFound: "404"
    case .changes(let number): number == 1 ? "changes" : "changes/\(number)"
    case .calendar: "calendar"
    case .flow: "flow"
    case .report: "report"
    case .list(let list, let number): lists[list].name(page: number)
    case .possessionsFront, .contactsFront: ""
    }
  }

  /// The file a page is written to.
  func file(of page: Page) -> String {
    switch page {
    case .todo(let position) where todos.hasTextKey(position):
      routes.file("todos/" + todos.pageName(position))
    case .todo(let position): rowFile("todos/", todos.pk(position))
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

  /// The page of the possession list the possession at `position` is on.
  func galleryPage(ofPossessionAt position: Int) -> Int {
    position / galleryPageSize + 1
  }

  /// The positions of the possessions on page `number` of the possession list.
  func possessionPositions(onGalleryPage number: Int) -> Range<Int> {
    let start = min((number - 1) * galleryPageSize, possessions.count)
    return start..<min(start + galleryPageSize, possessions.count)
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
  /// The to-dos packed as `TodoSource` reads them; when set, `todos` is not read.
  var packedTodos: TodoRows?
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
  /// Where the text of each to-do starts in `bytes`, and where the last ends; nil when every
  /// text is empty (the due dates of a site without them: 8 MB of zeros for a million to-dos).
  private let starts: UnsafeMutablePointer<Int>?
  /// How many to-dos.
  let count: Int

  convenience init(_ todos: [Todo]) {
    var builder = Builder()
    for todo in todos {
      var text = todo.text
      text.withUTF8 { builder.append($0) }
    }
    self.init(builder)
  }

  /// Texts as they are read, one after another.
  struct Builder {
    fileprivate var bytes: [UInt8] = []
    /// Where each text ends in `bytes`.
    fileprivate var ends: [Int] = []

    /// How many texts.
    var count: Int { ends.count }

    mutating func append(_ text: UnsafeBufferPointer<UInt8>) {
      bytes.append(contentsOf: text)
      ends.append(bytes.count)
    }
  }

  init(_ builder: consuming Builder) {
    let builder = builder
    count = builder.ends.count
    let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(builder.bytes.count, 1))
    builder.bytes.withUnsafeBufferPointer { source in
      if let base = source.baseAddress { bytes.initialize(from: base, count: source.count) }
    }
    self.bytes = bytes
    guard !builder.bytes.isEmpty else {
      starts = nil
      return
    }
    let starts = UnsafeMutablePointer<Int>.allocate(capacity: count + 1)
    starts[0] = 0
    for (position, end) in builder.ends.enumerated() { starts[position + 1] = end }
    self.starts = starts
  }

  /// The texts at `positions` of `texts`, in that order.
  init(_ texts: TodoTexts, at positions: some Collection<Int>) {
    count = positions.count
    guard let given = texts.starts else {
      bytes = .allocate(capacity: 1)
      starts = nil
      return
    }
    let total = positions.reduce(0) { $0 + given[$1 + 1] - given[$1] }
    bytes = .allocate(capacity: max(total, 1))
    let starts = UnsafeMutablePointer<Int>.allocate(capacity: count + 1)
    var end = 0
    for (position, from) in positions.enumerated() {
      starts[position] = end
      let length = given[from + 1] - given[from]
      (bytes + end).initialize(from: texts.bytes + given[from], count: length)
      end += length
    }
    starts[count] = end
    self.starts = starts
  }

  deinit {
    bytes.deallocate()
    starts?.deallocate()
  }

  /// Hands the UTF-8 text of the to-do at `position` to `body`.
  @inline(__always)
  func withText<R>(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows
    -> R
  {
    precondition(position >= 0 && position < count, "no to-do at \(position)")
    guard let starts else { return try body(UnsafeBufferPointer(start: bytes, count: 0)) }
    return try body(
      UnsafeBufferPointer(
        start: bytes + starts[position], count: starts[position + 1] - starts[position]))
  }

  /// Whether every text is empty.
  var isEmptyOfText: Bool { starts == nil }

  /// Whether the text of the to-do at `position` is empty.
  func isEmpty(_ position: Int) -> Bool {
    precondition(position >= 0 && position < count, "no to-do at \(position)")
    guard let starts else { return true }
    return starts[position] == starts[position + 1]
  }
}
