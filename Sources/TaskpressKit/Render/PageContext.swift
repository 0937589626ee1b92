import Mustache

/// Makes the values each template sees; `Templates/README.md` documents them.
struct PageContext: Sendable {
  let plan: SitePlan
  let labels: Labels
  let labelsValue: MustacheValue
  let siteValue: MustacheValue
  let baseURL: String?
  /// Possession id -> photo file in the site (`photos/1a2b....jpg`).
  let photoFiles: [Int64: PhotoFile]
  /// Labels and routes as every row value uses them.
  let strings: RowStrings
  /// What depends only on a page's folder, made once per folder (without pretty URLs).
  private var folders: [FolderValues] = []

  /// An exported photo: its largest file in the site and its size in pixels, and all its
  /// files (renditions), narrowest first.
  struct PhotoFile: Sendable, Equatable {
    var path: String
    var width: Int?
    var height: Int?
    var renditions: [PublishedPhoto.Rendition] = []
  }

  init(
    plan: SitePlan, labels: Labels, lang: String, baseURL: String?, generated: String?,
    photoFiles: [Int64: PhotoFile]
  ) {
    self.plan = plan
    self.labels = labels
    self.baseURL = baseURL
    self.photoFiles = photoFiles
    strings = RowStrings(routes: plan.routes, labels: labels)
    var labelObject: [String: MustacheValue] = [:]
    for (key, text) in labels.texts {
      labelObject[key] = .string(text)
    }
    labelsValue = .object(labelObject)
    var site: [String: MustacheValue] = [
      "title": .string(labels["siteTitle"]),
      "lang": .string(lang),
      "hasTodos": .bool(plan.hasTodos),
      "hasPossessions": .bool(plan.hasPossessions),
      "hasContacts": .bool(plan.hasContacts),
    ]
    if let baseURL { site["baseURL"] = .string(baseURL) }
    if let generated { site["generated"] = .string(generated) }
    siteValue = .object(site)
    folders = Self.makeFolders(self)
  }

  /// The title a page shows in the browser tab and its heading.
  func title(of page: SitePlan.Page) -> String {
    switch page {
    case .index(let number):
      number == 1 ? labels["tasks"] : "\(labels["tasks"]) · \(labels["page"]) \(number)"
    case .board: labels["board"]
    case .todo(let position):
      nonEmpty(plan.todos[position].text, "\(labels["task"]) \(plan.todos[position].pk)")
    case .possessions: labels["possessions"]
    case .possession(let position):
      nonEmpty(
        plan.possessions[position].name, "\(labels["possessions"]) \(plan.possessions[position].id)"
      )
    case .contacts: labels["contacts"]
    case .contact(let position):
      nonEmpty(plan.contacts[position].name, "\(labels["contacts"]) \(plan.contacts[position].id)")
    case .notFound: labels["notFound"]
    }
  }

  /// Everything the body template and the layout of `page` see.
  func values(for page: SitePlan.Page) -> PageValues {
    values(for: page, file: plan.file(of: page))
  }

  /// ``values(for:)`` of a page whose file (`plan.file(of: page)`) the caller has already.
  ///
  /// With `reused`, the values of a to-do page are those of the last to-do page of the same
  /// folder moved to this one (see `ReusedPageValues`): they equal fresh values, and are good
  /// until the next page's values are asked for from `reused`.
  func values(
    for page: SitePlan.Page, file: String, reusing reused: ReusedPageValues? = nil
  ) -> PageValues {
    let folder = folderValues(of: file)
    if let reused, case .todo(let position) = page, let folder,
      let chrome = folder.chromes[Self.section(of: page)]
    {
      return todoValues(position, file: file, chrome: chrome, links: folder.todoLinks, reused)
    }
    let context = common(for: page, file: file, folder: folder)
    switch page {
    case .index(let number):
      let positions = plan.todoPositions(onIndexPage: number)
      let links = todoLinks(from: file, folder: folder)
      context["groups"] = groups(positions, links)
      let items = TodoListValues(links: links)
      context["todos"] = .list(
        MustacheList(count: positions.count) { items.value(at: positions.lowerBound + $0) })
      context["counts"] = counts()
      context["pagination"] = pagination(number, from: file)
    case .board:
      // The cards are made as the template reaches them: a board of 100,000 to-dos is never
      // in memory as values, only as the page's bytes.
      var inProgress: [Int] = []
      var complete: [Int] = []
      for position in plan.todos.indices {
        if plan.todos[position].complete {
          complete.append(position)
        } else {
          inProgress.append(position)
        }
      }
      context["columns"] = .array([
        column("in-progress", labels["inProgress"], inProgress),
        column("complete", labels["complete"], complete),
      ])
      context["counts"] = counts()
    case .todo(let position):
      let links = todoLinks(from: file, folder: folder, ownPK: plan.todos[position].pk)
      context["todo"] = todo(at: position, links)
      addNeighbours(position, count: plan.todos.count, to: context) { neighbour in
        todo(at: neighbour, links)
      }
    case .possessions:
      let links =
        folder?.possessionLinks ?? PossessionLinks(strings: strings, fromFile: file, ownID: nil)
      context["possessions"] = .list(
        MustacheList(count: plan.possessions.count) { possession(at: $0, links) })
    case .possession(let position):
      // Without pretty URLs a page's link to its own possession is made like any other.
      let links =
        folder?.possessionLinks
        ?? PossessionLinks(strings: strings, fromFile: file, ownID: plan.possessions[position].id)
      context["possession"] = possession(at: position, links)
      addNeighbours(position, count: plan.possessions.count, to: context) { neighbour in
        possession(at: neighbour, links)
      }
    case .contacts:
      let links = contactLinks(from: file, ownID: nil)
      context["contacts"] = .array(plan.contacts.indices.map { contact(at: $0, links) })
      context["letters"] = letters(links)
    case .contact(let position):
      let links = contactLinks(from: file, ownID: plan.contacts[position].id)
      context["contact"] = contact(at: position, links)
      addNeighbours(position, count: plan.contacts.count, to: context) { neighbour in
        contact(at: neighbour, links)
      }
    case .notFound:
      break
    }
    return context
  }

  // MARK: - Common to every page

  private func common(for page: SitePlan.Page, file: String, folder: FolderValues?)
    -> PageValues
  {
    let section = Self.section(of: page)
    let chrome = folder?.chromes[section] ?? makeChrome(file: file, section: section)
    return PageValues(
      site: siteValue, labels: labelsValue, page: .computed(pageInfo(page, file: file)),
      chrome: chrome)
  }

  /// What `page` says of itself (`page.title`, ...).
  private func pageInfo(_ page: SitePlan.Page, file: String) -> PageInfo {
    var info = PageInfo(title: title(of: page), kind: PageKind(page).name, file: file)
    if let baseURL, page != .notFound {
      info.canonical = plan.routes.absolute(plan.name(of: page), baseURL: baseURL)
    }
    if page == .contacts {
      info.script = "search.js"
    }
    return info
  }

  /// The values of the to-do page of the to-do at `position`, in `file` whose folder's chrome
  /// and links are `chrome` and `links`: the reused set of that folder, moved to this page.
  private func todoValues(
    _ position: Int, file: String, chrome: Chrome, links: TodoLinks, _ reused: ReusedPageValues
  ) -> PageValues {
    let page = SitePlan.Page.todo(position)
    let count = plan.todos.count
    let set = reused.todoPages(for: chrome) {
      let info = PageInfoCursor(pageInfo(page, file: file))
      let values = PageValues(
        site: siteValue, labels: labelsValue, page: .computed(info), chrome: chrome)
      let set = ReusedPageValues.TodoPageSet(values: values, info: info, links: links)
      values["todo"] = .computed(set.todo)
      addNeighbours(position, count: count, to: values) { neighbour in
        neighbour < position ? set.previousValue : set.nextValue
      }
      (set.hasPrevious, set.hasNext) = (position > 0, position + 1 < count)
      return set
    }
    set.info.info.title = title(of: page)
    set.info.info.file = file
    if let baseURL {
      set.info.info.canonical = plan.routes.absolute(plan.name(of: page), baseURL: baseURL)
    }
    set.todo.position = position
    set.previous.position = position - 1
    set.next.position = position + 1
    // The names `values(for:)` gives (in another order, which nothing sees); `content` not yet.
    let values = set.values
    values["content"] = nil
    let (hasPrevious, hasNext) = (position > 0, position + 1 < count)
    if hasPrevious != set.hasPrevious {
      // `Optional.none`, not `nil`: a `MustacheValue` literal `nil` is `.null`, a value.
      values["previous"] = hasPrevious ? .some(set.previousValue) : .none
      set.hasPrevious = hasPrevious
    }
    if hasNext != set.hasNext {
      values["next"] = hasNext ? .some(set.nextValue) : .none
      set.hasNext = hasNext
    }
    return values
  }

  /// What the layout around a page needs that depends only on the page's folder and section.
  final class Chrome: Sendable {
    let root: MustacheValue
    let assets: MustacheValue
    let home: MustacheValue
    let nav: MustacheValue
    let data: MustacheValue
    /// Whether every page of a folder and section shares this chrome (one made up front), so
    /// that templates specialized for it are worth keeping.
    let isShared: Bool

    init(
      root: MustacheValue, assets: MustacheValue, home: MustacheValue, nav: MustacheValue,
      data: MustacheValue, isShared: Bool
    ) {
      self.root = root
      self.assets = assets
      self.home = home
      self.nav = nav
      self.data = data
      self.isShared = isShared
    }
  }

  /// The layout's links in each section, and the links to to-dos, from the pages of a folder.
  final class FolderValues: Sendable {
    /// `todos/`, or `""` for the site's root.
    let folder: String
    let chromes: [String: Chrome]
    let todoLinks: TodoLinks
    let possessionLinks: PossessionLinks

    init(
      folder: String, chromes: [String: Chrome], todoLinks: TodoLinks,
      possessionLinks: PossessionLinks
    ) {
      self.folder = folder
      self.chromes = chromes
      self.todoLinks = todoLinks
      self.possessionLinks = possessionLinks
    }
  }

  /// The values of every folder a page can be in without pretty URLs, made once.
  private static func makeFolders(_ context: PageContext) -> [FolderValues] {
    guard !context.plan.routes.prettyURLs else { return [] }
    return ["", "page/", "todos/", "possessions/", "contacts/"].map { folder in
      let file = folder + "x.html"
      var chromes: [String: Chrome] = [:]
      for section in ["index", "board", "possessions", "contacts", ""] {
        chromes[section] = context.makeChrome(file: file, section: section, isShared: true)
      }
      let links = TodoLinks(
        todos: context.plan.todos, texts: context.plan.todoTexts, strings: context.strings,
        fromFile: file, ownPK: nil)
      return FolderValues(
        folder: folder, chromes: chromes, todoLinks: links,
        possessionLinks: PossessionLinks(strings: context.strings, fromFile: file, ownID: nil))
    }
  }

  /// The values of the folder `file` is in, when they were made up front.
  private func folderValues(of file: String) -> FolderValues? {
    guard !folders.isEmpty else { return nil }
    var file = file
    return file.withUTF8 { bytes in
      var length = bytes.count
      while length > 0 && bytes[length - 1] != UInt8(ascii: "/") { length -= 1 }
      let folder = UnsafeBufferPointer(rebasing: bytes[..<length])
      for entry in folders where entry.folder.utf8.count == length {
        var name = entry.folder
        if name.withUTF8({ $0.elementsEqual(folder) }) { return entry }
      }
      return nil
    }
  }

  private func makeChrome(file: String, section current: String, isShared: Bool = false)
    -> Chrome
  {
    let routes = plan.routes
    var nav: [MustacheValue] = []
    func navItem(_ name: String, _ label: String, _ section: String) {
      let item: Fields = [
        "url": .string(routes.link(to: name, fromFile: file)),
        "label": .string(labels[label]),
        "current": .bool(section == current),
      ]
      nav.append(.computed(item))
    }
    if plan.hasTodos || !(plan.hasPossessions || plan.hasContacts) {
      navItem("", "tasks", "index")
    }
    if plan.hasTodos { navItem("board", "board", "board") }
    if plan.hasPossessions { navItem("possessions/index", "possessions", "possessions") }
    if plan.hasContacts { navItem("contacts/index", "contacts", "contacts") }
    var data: [Fields] = []
    for (given, base) in [
      (plan.hasTodos, "todos"), (plan.hasPossessions, "possessions"),
      (plan.hasContacts, "contacts"),
    ] where given {
      for format in ["json", "csv"] {
        // `last` is false on the others, not absent: inside the loop a missing name is looked
        // up in the page, which would keep the loop from being rendered once per folder.
        data.append([
          "name": .string("\(base).\(format)"),
          "url": .string(routes.asset("data/\(base).\(format)", fromFile: file)),
          "last": false,
        ])
      }
    }
    if !data.isEmpty {
      data[data.count - 1]["last"] = true
    }
    return Chrome(
      root: .string(routes.root(fromFile: file)),
      assets: .string(routes.asset("assets/", fromFile: file)),
      home: .string(routes.link(to: homeName, fromFile: file)),
      nav: .array(nav),
      data: .array(data.map { .computed($0) }), isShared: isShared)
  }

  /// The page the site's title links to: the task list, or the first section there is.
  private var homeName: String {
    if plan.hasTodos || !(plan.hasPossessions || plan.hasContacts) { return "" }
    return plan.hasPossessions ? "possessions/index" : "contacts/index"
  }

  /// The navigation entry a page belongs to.
  private static func section(of page: SitePlan.Page) -> String {
    switch page {
    case .index, .todo: "index"
    case .board: "board"
    case .possessions, .possession: "possessions"
    case .contacts, .contact: "contacts"
    case .notFound: ""
    }
  }

  // MARK: - To-dos

  private func todo(at position: Int, _ links: TodoLinks) -> MustacheValue {
    .computed(TodoValue(links: links, position: position))
  }

  private func todoLinks(from file: String, folder: FolderValues?, ownPK: Int64? = nil)
    -> TodoLinks
  {
    // Without pretty URLs a page's link to its own to-do is made like any other.
    folder?.todoLinks
      ?? TodoLinks(
        todos: plan.todos, texts: plan.todoTexts, strings: strings, fromFile: file, ownPK: ownPK)
  }

  /// The CSS-friendly name of a priority: `high`, `medium`, `low`, `other`, `none`.
  static func level(_ priority: Priority) -> String {
    switch priority {
    case .high: "high"
    case .medium: "medium"
    case .low: "low"
    case .other: "other"
    case .none: "none"
    }
  }

  private func groups(_ positions: Range<Int>, _ links: TodoLinks) -> MustacheValue {
    let items = TodoListValues(links: links)
    var groups: [MustacheValue] = []
    var start = positions.lowerBound
    while start < positions.upperBound {
      let priority = plan.todos[start].priority
      var end = start
      while end < positions.upperBound, plan.todos[end].priority == priority {
        end += 1
      }
      groups.append(
        .object([
          "label": .string(labels.priority(priority)),
          "level": .string(Self.level(priority)),
          "count": .int(Int64(end - start)),
          "todos": .list(
            MustacheList(count: end - start) { [start] in items.value(at: start + $0) }),
        ]))
      start = end
    }
    return .array(groups)
  }

  private func counts() -> MustacheValue {
    .object([
      "total": .int(Int64(plan.todos.count)),
      "complete": .int(Int64(plan.completeCount)),
      "inProgress": .int(Int64(plan.todos.count - plan.completeCount)),
    ])
  }

  /// The page numbers a page links to: the first, the last, and two on each side of the
  /// current one, with a gap where numbers are left out (so 1,000 pages do not list 1,000
  /// links each).
  static func pageWindow(current: Int, total: Int) -> [Int?] {
    var numbers: [Int?] = []
    var last = 0
    for page in 1...max(total, 1) where page == 1 || page == total || abs(page - current) <= 2 {
      if page > last + 1 { numbers.append(nil) }
      numbers.append(page)
      last = page
    }
    return numbers
  }

  private func pagination(_ number: Int, from file: String) -> MustacheValue {
    let routes = plan.routes
    func url(_ page: Int) -> String {
      routes.link(to: plan.name(of: .index(page)), fromFile: file)
    }
    // Objects of a few fields each, as `Fields`: cheaper to make than dictionaries, and an
    // index of 100,000 to-dos has 1,000 pages of them.
    var value: Fields = [
      "current": .int(Int64(number)),
      "total": .int(Int64(plan.pageCount)),
      "hasMultiple": .bool(plan.pageCount > 1),
      "pages": .array(
        Self.pageWindow(current: number, total: plan.pageCount).map { page in
          guard let page else { return .computed(["gap": true] as Fields) }
          let fields: Fields = [
            "number": .int(Int64(page)), "url": .string(url(page)),
            "current": .bool(page == number),
          ]
          return .computed(fields)
        }),
    ]
    if number > 1 { value["previous"] = .string(url(number - 1)) }
    if number < plan.pageCount { value["next"] = .string(url(number + 1)) }
    return .computed(value)
  }

  private func column(_ key: String, _ label: String, _ positions: [Int]) -> MustacheValue {
    let file = plan.file(of: .board)
    let links = todoLinks(from: file, folder: folderValues(of: file))
    let items = TodoListValues(links: links)
    return .object([
      "key": .string(key), "label": .string(label), "count": .int(Int64(positions.count)),
      "todos": .list(MustacheList(count: positions.count) { items.value(at: positions[$0]) }),
    ])
  }

  // MARK: - Possessions and contacts

  private func possession(at position: Int, _ links: PossessionLinks) -> MustacheValue {
    let possession = plan.possessions[position]
    return .computed(
      PossessionValue(possession: possession, photo: photoFiles[possession.id], links: links))
  }

  private func contactLinks(from file: String, ownID: Int64?) -> RowLinks {
    RowLinks(section: "contacts", routes: plan.routes, fromFile: file, ownID: ownID)
  }

  private func contact(at position: Int, _ links: RowLinks) -> MustacheValue {
    .computed(ContactValue(contact: plan.contacts[position], links: links, strings: strings))
  }

  /// Contacts grouped by the first letter of their name, for the letter links.
  ///
  /// Names are sorted by their lower-cased text, so names that start with no letter (`#`) can
  /// come before, between and after the letters; they still make one group (and one id), placed
  /// where the first of them is.
  private func letters(_ links: RowLinks) -> MustacheValue {
    var order: [String] = []
    var groups: [String: [MustacheValue]] = [:]
    for position in plan.contacts.indices {
      let letter = Self.initial(of: plan.contacts[position].name)
      if groups[letter] == nil { order.append(letter) }
      groups[letter, default: []].append(contact(at: position, links))
    }
    return .array(order.map { letterGroup($0, groups[$0] ?? []) })
  }

  private func letterGroup(_ letter: String, _ contacts: [MustacheValue]) -> MustacheValue {
    .object([
      "letter": .string(letter), "anchor": .string(Self.anchor(letter)),
      "contacts": .array(contacts),
    ])
  }

  /// The upper-cased first character of a name, or `#` when it does not start with a letter.
  static func initial(of name: String) -> String {
    guard let first = name.first, first.isLetter else { return "#" }
    return first.uppercased()
  }

  /// An id-safe name for a letter: ASCII letters as they are, anything else as its code points.
  static func anchor(_ letter: String) -> String {
    if letter == "#" { return "other" }
    return letter.unicodeScalars.map { scalar in
      scalar.isASCII && scalar.properties.isAlphabetic
        ? String(scalar) : "u" + String(scalar.value, radix: 16)
    }.joined()
  }

  // MARK: - Helpers

  private func addNeighbours(
    _ position: Int, count: Int, to context: PageValues,
    _ make: (Int) -> MustacheValue
  ) {
    if position > 0 { context["previous"] = make(position - 1) }
    if position + 1 < count { context["next"] = make(position + 1) }
    context["hasNeighbours"] = .bool(count > 1)
  }

  private func nonEmpty(_ text: String, _ fallback: @autoclosure () -> String) -> String {
    text.isEmpty ? fallback() : text
  }
}
