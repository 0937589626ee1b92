/// The kinds of page a site has, each rendered from a body template of its own.
enum PageKind: Int, CaseIterable, Sendable {
  case index, board, todo, possessions, possession, contacts, contact, notFound, changes, list
  case calendar, flow, report

  init(_ page: SitePlan.Page) {
    self =
      switch page {
      case .index: .index
      case .board: .board
      case .todo: .todo
      case .possessions, .possessionsFront: .possessions
      case .possession: .possession
      case .contacts, .contactsFront: .contacts
      case .contact: .contact
      case .notFound: .notFound
      case .changes: .changes
      case .list: .list
      case .calendar: .calendar
      case .flow: .flow
      case .report: .report
      }
  }

  /// The name of the body template without its extension (`todo` for `todo.md`), which is
  /// also the class of the page's `<body>` (`page.kind`).
  var name: String {
    switch self {
    case .index: "index"
    case .board: "board"
    case .todo: "todo"
    case .possessions: "possessions"
    case .possession: "possession"
    case .contacts: "contacts"
    case .contact: "contact"
    case .notFound: "404"
    case .changes: "changes"
    case .list: "list"
    case .calendar: "calendar"
    case .flow: "flow"
    case .report: "report"
    }
  }
}
