import Mustache

extension PageContext {
  // MARK: - To-dos

  func todo(at position: Int, _ links: TodoLinks) -> MustacheValue {
    .computed(TodoValue(links: links, position: position))
  }

  func todoLinks(from file: String, folder: FolderValues?, ownPosition: Int? = nil)
    -> TodoLinks
  {
    // Without pretty URLs a page's link to its own to-do is made like any other.
    folder?.todoLinks
      ?? TodoLinks(
        todos: plan.todos, texts: plan.todoTexts, strings: strings, fromFile: file,
        ownPosition: ownPosition)
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

  func groups(_ positions: Range<Int>, _ links: TodoLinks) -> MustacheValue {
    let items = TodoListValues(links: links)
    var groups: [MustacheValue] = []
    var start = positions.lowerBound
    while start < positions.upperBound {
      let priority = plan.todos.priority(start)
      var end = start
      while end < positions.upperBound, plan.todos.priority(end) == priority {
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

  func counts() -> MustacheValue {
    .object([
      "total": .int(Int64(plan.todos.count)),
      "complete": .int(Int64(plan.completeCount)),
      "inProgress": .int(Int64(plan.todos.count - plan.completeCount)),
      "summary": .string(
        labels.format(
          "countsSummary",
          [
            "total": "\(plan.todos.count)",
            "inProgress": "\(plan.todos.count - plan.completeCount)",
            "complete": "\(plan.completeCount)",
          ])),
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

  /// Page `number` of `total` of a paginated list whose page `n` has the route name `name(n)`.
  func pagination(
    _ number: Int, total: Int, from file: String, name: (Int) -> String
  ) -> MustacheValue {
    let routes = plan.routes
    func url(_ page: Int) -> String {
      routes.link(to: name(page), fromFile: file)
    }
    // Objects of a few fields each, as `Fields`: cheaper to make than dictionaries, and an
    // index of 100,000 to-dos has 1,000 pages of them.
    var value: Fields = [
      "current": .int(Int64(number)),
      "total": .int(Int64(total)),
      "hasMultiple": .bool(total > 1),
      "summary": .string(
        labels.format("pageOf", ["current": "\(number)", "total": "\(total)"])),
      "pages": .array(
        Self.pageWindow(current: number, total: total).map { page in
          guard let page else { return .computed(["gap": true] as Fields) }
          let fields: Fields = [
            "number": .int(Int64(page)), "url": .string(url(page)),
            "current": .bool(page == number),
          ]
          return .computed(fields)
        }),
    ]
    if number > 1 { value["previous"] = .string(url(number - 1)) }
    if number < total { value["next"] = .string(url(number + 1)) }
    return .computed(value)
  }

  // MARK: - Possessions and contacts

  func possession(at position: Int, _ links: PossessionLinks) -> MustacheValue {
    let possession = plan.possessions[position]
    return .computed(
      PossessionValue(possession: possession, photo: photoFiles[possession.id], links: links))
  }

  func contactLinks(from file: String, ownID: Int64?) -> RowLinks {
    RowLinks(section: "contacts", routes: plan.routes, fromFile: file, ownID: ownID)
  }

  func contact(at position: Int, _ links: RowLinks) -> MustacheValue {
    .computed(ContactValue(contact: plan.contacts[position], links: links, strings: strings))
  }

  /// Contacts grouped by the first letter of their name, for the letter links.
  ///
  /// Names are sorted by their lower-cased text, so names that start with no letter (`#`) can
  /// come before, between and after the letters; they still make one group (and one id), placed
  /// where the first of them is.
  func letters(_ links: RowLinks) -> MustacheValue {
    var order: [String] = []
    var groups: [String: [MustacheValue]] = [:]
    for position in plan.contacts.indices {
      let letter = Self.initial(of: plan.contacts[position].name)
      if groups[letter] == nil { order.append(letter) }
      groups[letter, default: []].append(contact(at: position, links))
    }
    return .array(order.map { letterGroup($0, groups[$0] ?? []) })
  }

  func letterGroup(_ letter: String, _ contacts: [MustacheValue]) -> MustacheValue {
    .object([
      "letter": .string(letter), "anchor": .string(Self.anchor(letter)),
      "contacts": .array(contacts),
    ])
  }

  /// The letter a name is filed under (see `ContactName`), or `#`.
  static func initial(of name: String) -> String {
    ContactName.initial(of: name)
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

  func addNeighbours(
    _ position: Int, count: Int, to context: PageValues,
    _ make: (Int) -> MustacheValue
  ) {
    if position > 0 { context["previous"] = make(position - 1) }
    if position + 1 < count { context["next"] = make(position + 1) }
    context["hasNeighbours"] = .bool(count > 1)
  }

  func nonEmpty(_ text: String, _ fallback: @autoclosure () -> String) -> String {
    text.isEmpty ? fallback() : text
  }
}
