import Mustache

/// A to-do that a page's values show, moved from page to page: see `ReusedPageValues`.
///
/// `@unchecked Sendable`: moved and read by the one thread that renders the pages.
final class TodoCursor: TemplateRow, @unchecked Sendable {
  let links: TodoLinks
  /// The to-do's place in index order.
  @exclusivity(unchecked) var position = 0

  init(links: TodoLinks) {
    self.links = links
  }

  typealias Field = TodoValue.Field

  func answer<Sink: FieldSink>(_ field: Field, to sink: Sink, _ body: TextBody) -> Sink.Result {
    TodoValue(links: links, position: position).answer(field, to: sink, body)
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
final class PageInfoCursor: TemplateRow, @unchecked Sendable {
  @exclusivity(unchecked) var info: PageInfo

  init(_ info: PageInfo) {
    self.info = info
  }

  typealias Field = PageInfo.Field

  func has(_ field: Field) -> Bool { info.has(field) }

  func answer<Sink: FieldSink>(_ field: Field, to sink: Sink, _ body: TextBody) -> Sink.Result {
    info.answer(field, to: sink, body)
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
    /// The index page whose link `values` has as `list` now (0: none yet): the to-dos of one
    /// index page share it.
    var listPage = 0

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
