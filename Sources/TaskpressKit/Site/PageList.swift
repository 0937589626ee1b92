extension SitePlan {
  /// Pages in order, kept as runs of pages numbered one after the other (`todo(0)`, `todo(1)`,
  /// ...): the pages of a million to-dos are one run, where an array of `Page`s takes 24 MB,
  /// held through the whole rendering. A page is made when it is read.
  struct PageList: RandomAccessCollection, Sendable, Equatable, ExpressibleByArrayLiteral {
    /// `count` pages from `first`, each numbered one more than the one before.
    private struct Run: Sendable {
      var first: Page
      var count: Int
    }

    private var runs: [Run] = []
    /// Where each run ends in the list.
    private var ends: [Int] = []

    init() {}

    init(_ pages: some Sequence<Page>) {
      self += pages
    }

    init(arrayLiteral pages: Page...) {
      self.init(pages)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { ends.last ?? 0 }

    subscript(position: Int) -> Page {
      precondition(position >= 0 && position < endIndex, "no page at \(position)")
      // The run that holds `position`: the first that ends after it.
      var low = 0
      var high = ends.count - 1
      while low < high {
        let middle = (low + high) / 2
        if ends[middle] <= position { low = middle + 1 } else { high = middle }
      }
      let offset = position - (low == 0 ? 0 : ends[low - 1])
      guard let page = Self.page(runs[low].first, plus: offset) else {
        preconditionFailure("a run of pages that are not numbered")
      }
      return page
    }

    /// Adds `page` at the end.
    mutating func append(_ page: Page) {
      if let last = runs.last, Self.page(last.first, plus: last.count) == page {
        runs[runs.count - 1].count += 1
        ends[ends.count - 1] += 1
      } else {
        runs.append(Run(first: page, count: 1))
        ends.append(endIndex + 1)
      }
    }

    static func += (list: inout PageList, pages: some Sequence<Page>) {
      for page in pages { list.append(page) }
    }

    /// The pages for which `isIncluded` is true, as a list (`Sequence.filter` would make an
    /// array of them).
    func filter(_ isIncluded: (Page) throws -> Bool) rethrows -> PageList {
      var kept = PageList()
      for page in self where try isIncluded(page) { kept.append(page) }
      return kept
    }

    static func == (lhs: PageList, rhs: PageList) -> Bool {
      lhs.elementsEqual(rhs)
    }

    /// The page `offset` numbers after `page`: nil for a page that has no number, unless
    /// `offset` is 0 (such a page is a run of its own).
    private static func page(_ page: Page, plus offset: Int) -> Page? {
      switch page {
      case .index(let number): .index(number + offset)
      case .todo(let position): .todo(position + offset)
      case .possessions(let number): .possessions(number + offset)
      case .possession(let position): .possession(position + offset)
      case .contact(let position): .contact(position + offset)
      case .changes(let number): .changes(number + offset)
      case .list(let list, let number): .list(list, number + offset)
      default: offset == 0 ? page : nil
      }
    }
  }
}
