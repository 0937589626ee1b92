import Mustache

extension PageContext {
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
  static func makeFolders(_ context: PageContext) -> [FolderValues] {
    guard !context.plan.routes.prettyURLs else { return [] }
    // The filtered lists' folders (`status/complete/`, `priority/high/page/`) too.
    let lists = context.plan.lists.flatMap { list in
      ["\(list.kind.rawValue)/\(list.key)/", "\(list.kind.rawValue)/\(list.key)/page/"]
    }
    // The gallery's later pages (`possessions/page/`) too.
    let gallery = context.plan.galleryPageCount > 1 ? ["possessions/page/"] : []
    return (["", "page/", "todos/", "possessions/", "contacts/"] + lists + gallery).map { folder in
      let file = folder + "x.html"
      var chromes: [String: Chrome] = [:]
      for section in ["index", "board", "possessions", "contacts", "", "changes"] {
        chromes[section] = context.makeChrome(file: file, section: section, isShared: true)
      }
      let links = TodoLinks(
        todos: context.plan.todos, texts: context.plan.todoTexts, strings: context.strings,
        fromFile: file, ownPosition: nil)
      return FolderValues(
        folder: folder, chromes: chromes, todoLinks: links,
        possessionLinks: PossessionLinks(strings: context.strings, fromFile: file, ownID: nil))
    }
  }

  /// The values of the folder `file` is in, when they were made up front.
  func folderValues(of file: String) -> FolderValues? {
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

  /// The chrome of the page in `file`; with `absoluteBase`, its links are absolute URLs under
  /// it (404.html, which a web server serves at any depth).
  func makeChrome(
    file: String, section current: String, isShared: Bool = false, absoluteBase: String? = nil
  ) -> Chrome {
    let routes = plan.routes
    let absolute = absoluteBase.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
    func link(_ name: String) -> String {
      absolute.map { routes.absolute(name, baseURL: $0) } ?? routes.link(to: name, fromFile: file)
    }
    func asset(_ path: String) -> String {
      absolute.map { $0 + path } ?? routes.asset(path, fromFile: file)
    }
    var nav: [MustacheValue] = []
    func navItem(_ name: String, _ label: String, _ section: String) {
      let item: Fields = [
        "url": .string(link(name)),
        "label": .string(labels[label]),
        "current": .bool(section == current),
      ]
      nav.append(.computed(item))
    }
    if plan.hasTodos || !(plan.hasPossessions || plan.hasContacts) {
      navItem("", "tasks", "index")
    }
    if plan.hasTodos { navItem("board", "board", "board") }
    if plan.hasTodos, plan.hasDueDates { navItem("calendar", "calendar", "calendar") }
    if plan.hasTodos { navItem("flow", "flow", "flow") }
    if plan.hasPossessions { navItem("possessions/index", "possessions", "possessions") }
    if plan.hasContacts { navItem("contacts/index", "contacts", "contacts") }
    navItem("changes", "changes", "changes")
    var data: [Fields] = []
    for (given, base) in [
      (plan.hasTodos, BuildOptions.DataSource.todos),
      (plan.hasPossessions, .possessions), (plan.hasContacts, .contacts),
    ] where given && dataCopies.contains(base) {
      for format in ["json", "csv"] {
        // `last` is false on the others, not absent: inside the loop a missing name is looked
        // up in the page, which would keep the loop from being rendered once per folder.
        data.append([
          "name": .string("\(base.rawValue).\(format)"),
          "url": .string(asset("data/\(base.rawValue).\(format)")),
          "last": false,
        ])
      }
    }
    if !data.isEmpty {
      data[data.count - 1]["last"] = true
    }
    return Chrome(
      root: .string(absolute ?? routes.root(fromFile: file)),
      assets: .string(asset("assets/")),
      home: .string(link(homeName)),
      nav: .array(nav),
      data: .array(data.map { .computed($0) }), isShared: isShared)
  }

  /// The page the site's title links to: the task list, or the first section there is.
  var homeName: String {
    if plan.hasTodos || !(plan.hasPossessions || plan.hasContacts) { return "" }
    return plan.hasPossessions ? "possessions/index" : "contacts/index"
  }

  /// The navigation entry a page belongs to.
  static func section(of page: SitePlan.Page) -> String {
    switch page {
    case .index, .todo, .list: "index"
    case .board: "board"
    case .possessions, .possession, .possessionsFront: "possessions"
    case .contacts, .contact, .contactsFront: "contacts"
    case .notFound: ""
    case .calendar: "calendar"
    case .flow: "flow"
    case .report: "report"
    case .changes: "changes"
    }
  }
}
