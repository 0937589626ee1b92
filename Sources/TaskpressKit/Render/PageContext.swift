import Mustache

/// Makes the values each template sees; `Templates/README.md` documents them.
struct PageContext: Sendable {
  let plan: SitePlan
  let labels: Labels
  let labelsValue: MustacheValue
  /// `site` as most pages see it: without the build's date.
  let siteValue: MustacheValue
  /// `site` on the pages whose subject the build's date is (`showsDate(_:)`): with
  /// `generated` and `generatedDate` when the build has a date; else `siteValue`.
  let datedSiteValue: MustacheValue
  /// Whether the build has a date (`SOURCE_DATE_EPOCH`).
  let hasDate: Bool
  let baseURL: String?
  /// The sources whose data copies are published (the footer links to those only).
  let dataCopies: Set<BuildOptions.DataSource>
  /// Whether the CSV copies start with a byte order mark.
  let csvByteOrderMark: Bool
  /// Possession id -> photo file in the site (`photos/1a2b....jpg`).
  let photoFiles: [Int64: PhotoFile]
  /// Labels and routes as every row value uses them.
  let strings: RowStrings
  /// What depends only on a page's folder, made once per folder (without pretty URLs).
  var folders: [FolderValues] = []
  /// The record of changes, for the pages that show it (`changes.html`, the first index page);
  /// those pages are rendered once it is known (see `Build.stageChangePages`).
  var changes: ChangeReport?
  /// Each to-do's history as this build carries it on, for the to-dos' timelines.
  var timelines: TodoHistory?
  /// The social card's absolute URL (`SocialCard.path` under `--base-url`) when the build
  /// publishes one: the first page, the board and the first changes page point at it.
  var socialCardImage: String?
  /// The site's title (`--title`, else the labels').
  let siteTitle: String
  /// The trend's points when they are given (tests); nil for the recorded builds'.
  private let givenTrend: [TrendPoint]?
  /// This build's counts: the trend's only point before anything is recorded.
  private let thisBuild: TrendPoint

  /// The points of the trend chart, oldest first: the recorded builds' counts once the changes
  /// are known, or this build's alone.
  var trendPoints: [TrendPoint] {
    if let givenTrend { return givenTrend }
    let recorded =
      changes?.history.compactMap { entry in
        entry.todos.map {
          TrendPoint(
            date: entry.date.map { String($0.prefix(10)) }, open: $0.open, complete: $0.complete,
            build: entry.build)
        }
      } ?? []
    return recorded.isEmpty ? [thisBuild] : recorded
  }

  /// An exported photo: its largest file in the site and its size in pixels, and all its
  /// files (renditions), narrowest first.
  struct PhotoFile: Sendable, Equatable {
    var path: String
    var width: Int?
    var height: Int?
    var renditions: [PublishedPhoto.Rendition] = []
    /// The AVIF twin of each rendition, in the same order; empty without AVIF.
    var avif: [String] = []
  }

  init(
    plan: SitePlan, labels: Labels, lang: String, baseURL: String?, generated: String?,
    photoFiles: [Int64: PhotoFile], title: String? = nil, noindex: Bool = false,
    dataCopies: Set<BuildOptions.DataSource> = Set(BuildOptions.DataSource.allCases),
    csvByteOrderMark: Bool = false, history: [TrendPoint]? = nil, search: Bool = false,
    markdown: Set<BuildOptions.MarkdownField> = []
  ) {
    self.plan = plan
    givenTrend = history
    thisBuild = TrendPoint(
      date: generated, open: plan.todos.count - plan.completeCount, complete: plan.completeCount)
    self.dataCopies = dataCopies
    self.csvByteOrderMark = csvByteOrderMark
    self.labels = labels
    self.baseURL = baseURL
    self.photoFiles = photoFiles
    strings = RowStrings(
      routes: plan.routes, labels: labels, today: generated, markdown: markdown)
    var labelObject: [String: MustacheValue] = [:]
    for (key, text) in labels.texts {
      labelObject[key] = .string(text)
    }
    labelsValue = .object(labelObject)
    siteTitle = title ?? labels["siteTitle"]
    var site: [String: MustacheValue] = [
      "title": .string(siteTitle),
      "lang": .string(lang),
      "hasTodos": .bool(plan.hasTodos),
      "hasPossessions": .bool(plan.hasPossessions),
      "hasContacts": .bool(plan.hasContacts),
    ]
    if let baseURL { site["baseURL"] = .string(baseURL) }
    if noindex { site["noindex"] = true }
    if search { site["search"] = true }
    if plan.hasTodos, plan.hasDueDates {
      // `calendar.ics`: by `webcal:` for an https site (calendar apps subscribe to it).
      var calendar: [String: MustacheValue] = [:]
      if let baseURL, baseURL.hasPrefix("https://") {
        let base = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        calendar["webcal"] = .string(
          "webcal://" + base.dropFirst("https://".count) + "calendar.ics")
      }
      site["calendar"] = .object(calendar)
    }
    siteValue = .object(site)
    hasDate = generated != nil
    if let generated {
      site["generated"] = .string(generated)
      site["generatedDate"] = .string(labels.date(iso: generated))
    }
    datedSiteValue = .object(site)
    folders = Self.makeFolders(self)
  }

  /// The title a page shows in the browser tab and its heading.
  func title(of page: SitePlan.Page) -> String {
    switch page {
    case .index(let number):
      number == 1
        ? labels["tasks"]
        : "\(labels["tasks"]) · \(labels.format("pageNumber", ["n": "\(number)"]))"
    case .board: labels["board"]
    case .todo(let position):
      nonEmpty(plan.todos.text(position), "\(labels["task"]) \(plan.todos.keyText(position))")
    case .possessions(let number):
      number == 1
        ? labels["possessions"]
        : "\(labels["possessions"]) · \(labels.format("pageNumber", ["n": "\(number)"]))"
    case .possessionsFront: labels["possessions"]
    case .possession(let position):
      nonEmpty(
        plan.possessions[position].name, "\(labels["possessions"]) \(plan.possessions[position].id)"
      )
    case .contacts, .contactsFront: labels["contacts"]
    case .contact(let position):
      nonEmpty(plan.contacts[position].name, "\(labels["contacts"]) \(plan.contacts[position].id)")
    case .notFound: labels["notFound"]
    case .changes(let number):
      number == 1
        ? labels["changes"]
        : "\(labels["changes"]) · \(labels.format("pageNumber", ["n": "\(number)"]))"
    case .calendar: labels["calendar"]
    case .flow: labels["flow"]
    case .report: labels["report"]
    case .list(let list, let number):
      number == 1
        ? listTitle(list)
        : "\(listTitle(list)) · \(labels.format("pageNumber", ["n": "\(number)"]))"
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
    if case .todo(let position) = page {
      return todoValues(position, file: file, folder: folder, reusing: reused)
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
      // The site-wide counts on the first page only, a summary page: the others change only
      // with the to-dos they list.
      if number == 1 { context["counts"] = counts() }
      context["pagination"] = pagination(
        number, total: plan.pageCount, from: file, name: { plan.name(of: .index($0)) })
      context["lists"] = listLinks(from: file, withCounts: number == 1)
      if number == 1, let changes {
        context["latestChanges"] = latestChanges(changes, from: file)
        context["history"] = history(changes)
      }
      if number == 1, plan.hasTodos {
        context["charts"] = charts(from: file)
      }
    case .board:
      // The cards are made as the template reaches them, at most `boardLimit` a column: the
      // rest are on the status's list.
      context["columns"] = .array(
        ["in-progress", "complete"].compactMap { plan.list(.status, $0) }.map {
          column($0, from: file)
        })
      context["counts"] = counts()
    case .list(let list, let number):
      let todos = plan.lists[list]
      let start = min((number - 1) * plan.pageSize, todos.count)
      let end = min(start + plan.pageSize, todos.count)
      let items = TodoListValues(links: todoLinks(from: file, folder: folder))
      // Without counts: a list's pages change only with the to-dos they list.
      context["list"] = listValue(list, from: file, withCount: false)
      context["lists"] = listLinks(from: file, current: list, withCounts: false)
      context["todos"] = .list(
        MustacheList(count: end - start) { items.value(at: todos.position(start + $0)) })
      context["pagination"] = pagination(
        number, total: plan.pageCount(ofList: list), from: file,
        name: { todos.name(page: $0) })
    case .todo:
      break  // see `todoValues`
    case .possessions, .possessionsFront:
      let number = if case .possessions(let number) = page { number } else { 1 }
      let positions = plan.possessionPositions(onGalleryPage: number)
      let links =
        folder?.possessionLinks ?? PossessionLinks(strings: strings, fromFile: file, ownID: nil)
      context["possessions"] = .list(
        MustacheList(count: positions.count) { possession(at: positions.lowerBound + $0, links) })
      context["pagination"] = pagination(
        number, total: plan.galleryPageCount, from: file,
        name: { plan.name(of: .possessions($0)) })
    case .possession(let position):
      // Without pretty URLs a page's link to its own possession is made like any other.
      let links =
        folder?.possessionLinks
        ?? PossessionLinks(strings: strings, fromFile: file, ownID: plan.possessions[position].id)
      context["possession"] = possession(at: position, links)
      addNeighbours(position, count: plan.possessions.count, to: context) { neighbour in
        possession(at: neighbour, links)
      }
    case .contacts, .contactsFront:
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
    case .changes(let number):
      if let changes { addChanges(changes, page: number, file: file, to: context) }
    case .calendar:
      addCalendar(file: file, to: context)
    case .flow:
      if let flow = changes?.flow { addFlow(flow, file: file, to: context) }
    case .report:
      addReport(file: file, to: context)
    }
    return context
  }

  // MARK: - Common to every page

  /// Whether `page` shows the build's date (`site.generated`): the first page and the record
  /// of changes, whose subject it is, and which every build renders. The others do not, so
  /// that a build on a new date rewrites only them and the to-dos whose `overdue` state
  /// flips (`PageFingerprints`).
  static func showsDate(_ page: SitePlan.Page) -> Bool {
    switch page {
    case .index(1), .changes, .report, .possessionsFront, .contactsFront: true
    default: false
    }
  }

  func common(for page: SitePlan.Page, file: String, folder: FolderValues?)
    -> PageValues
  {
    let section = Self.section(of: page)
    let dated = hasDate && Self.showsDate(page)
    // A web server serves 404.html for a missing page at any depth: with a base URL its links
    // are absolute, so they work wherever it is served. A page with the date has a chrome of
    // its own: the templates specialized for a folder's chrome are for the `site` without it.
    let chrome =
      page == .notFound && baseURL != nil
      ? makeChrome(file: file, section: section, absoluteBase: baseURL)
      : (dated ? nil : folder?.chromes[section]) ?? makeChrome(file: file, section: section)
    return PageValues(
      site: dated ? datedSiteValue : siteValue, labels: labelsValue,
      page: .computed(pageInfo(page, file: file)), chrome: chrome)
  }

  /// What `page` says of itself (`page.title`, ...).
  func pageInfo(_ page: SitePlan.Page, file: String) -> PageInfo {
    var info = PageInfo(title: title(of: page), kind: PageKind(page).name, file: file)
    if let baseURL, page != .notFound {
      // A front page that repeats a list names the list as the page to index.
      let canonical: SitePlan.Page =
        switch page {
        case .possessionsFront: .possessions(1)
        case .contactsFront: .contacts
        default: page
        }
      info.canonical = plan.routes.absolute(plan.name(of: canonical), baseURL: baseURL)
    }
    if page == .contacts || page == .contactsFront {
      info.script = "search.js"
    }
    if page == .flow || page == .report {
      info.script = "flow.js"
    }
    if let socialCardImage, page == .index(1) || page == .board || page == .changes(1) {
      info.ogImage = socialCardImage
      info.ogDescription = progressSummary
    }
    return info
  }

  /// The values of the to-do page of the to-do at `position`, in `file`: one set of objects
  /// (`ReusedPageValues.TodoPageSet`) moved to this page. With `reused`, a page in a folder made
  /// up front takes the set its folder's last to-do page had (a site's 100,000 to-do pages make
  /// no objects of their own); without, or elsewhere, the set is made for this page alone. Made
  /// one way, moved one way: the two differ only in whether the set is kept.
  func todoValues(
    _ position: Int, file: String, folder: FolderValues?, reusing reused: ReusedPageValues?
  ) -> PageValues {
    let page = SitePlan.Page.todo(position)
    let count = plan.todos.count
    let section = Self.section(of: page)
    let chrome = folder?.chromes[section] ?? makeChrome(file: file, section: section)
    func make() -> ReusedPageValues.TodoPageSet {
      let links = todoLinks(from: file, folder: folder, ownPosition: position)
      let info = PageInfoCursor(pageInfo(page, file: file))
      let values = PageValues(
        site: siteValue, labels: labelsValue, page: .computed(info), chrome: chrome)
      let set = ReusedPageValues.TodoPageSet(values: values, info: info, links: links)
      values["todo"] = .computed(set.todo)
      values["hasNeighbours"] = .bool(count > 1)
      values["boardURL"] = .string(plan.routes.link(to: "board", fromFile: file))
      return set
    }

    // Links differ from page to page only where there is no folder made up front.
    let set = folder == nil ? make() : reused?.todoPages(for: chrome, make: make) ?? make()
    set.info.info.title = title(of: page)
    set.info.info.file = file
    if let baseURL {
      set.info.info.canonical = plan.routes.absolute(plan.name(of: page), baseURL: baseURL)
    }
    set.todo.position = position
    let listPage = plan.indexPage(ofTodoAt: position)
    if listPage != set.listPage {
      // Made the same way for every page; kept while the pages are of one index page.
      let page = SitePlan.Page.index(listPage)
      let list: Fields = [
        "url": .string(plan.routes.link(to: plan.name(of: page), fromFile: file)),
        "title": .string(title(of: page)),
      ]
      set.values["list"] = .computed(list)
      set.listPage = listPage
    }
    set.previous.position = position - 1
    set.next.position = position + 1
    let values = set.values
    values["timeline"] = timeline(ofTodoAt: position, from: file)
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
}
