import Mustache
import Testing

@testable import TaskpressKit

@Suite struct PageContextTests {
  @Test("each page kind names its body template, and every kind is one page's")
  func pageKinds() {
    let pages: [SitePlan.Page] = [
      .index(1), .board, .todo(0), .possessions(1), .possession(0), .contacts, .contact(0),
      .notFound, .changes(1), .list(0, 1), .calendar, .flow, .report,
    ]
    #expect(
      pages.map { PageKind($0).name }
        == [
          "index", "board", "todo", "possessions", "possession", "contacts", "contact", "404",
          "changes", "list", "calendar", "flow", "report",
        ])
    #expect(PageKind(.possessionsFront) == .possessions)
    #expect(PageKind(.contactsFront) == .contacts)
    #expect(pages.map(PageKind.init) == PageKind.allCases)
  }

  @Test(
    "a row page's file, written in one piece, is the file of its name", arguments: [false, true])
  func rowFiles(prettyURLs: Bool) {
    var data = SiteData()
    data.hasTodos = true
    data.hasPossessions = true
    data.hasContacts = true
    let ids: [Int64] = [0, 7, -12, 1_000_000, .max, .min]
    data.todos = ids.map { Todo(pk: $0, text: "t", priority: .high, complete: false) }
    data.possessions = ids.map { Possession(id: $0, name: "p", description: "", photo: nil) }
    data.contacts = ids.map { Contact(id: $0, name: "c", address: "", phone: "") }
    let plan = SitePlan(data: data, pageSize: 100, routes: Routes(prettyURLs: prettyURLs))
    for position in ids.indices {
      for page in [SitePlan.Page.todo(position), .possession(position), .contact(position)] {
        #expect(plan.file(of: page) == plan.routes.file(plan.name(of: page)))
      }
    }
    #expect(
      plan.file(of: .todo(plan.todos.firstIndex { $0.pk == -12 } ?? 0)).hasPrefix("todos/-12"))
  }

  @Test("a page's own names never shadow the names every page shares (either may be asked first)")
  func ownNamesAreNotShared() {
    var data = SiteData()
    data.hasTodos = true
    data.hasPossessions = true
    data.hasContacts = true
    data.todos = (1...3).map { Todo(pk: $0, text: "t", priority: .high, complete: $0 == 2) }
    data.possessions = (1...3).map { Possession(id: $0, name: "p", description: "", photo: nil) }
    data.contacts = (1...3).map { Contact(id: $0, name: "c", address: "", phone: "") }
    let plan = SitePlan(data: data, pageSize: 2, routes: Routes(prettyURLs: false))
    let context = PageContext(
      plan: plan, labels: .builtIn(.en), lang: "en", baseURL: "https://example.org",
      generated: nil, photoFiles: [:])
    for page in plan.pages {
      let values = context.values(for: page)
      values["content"] = .string("c")
      #expect(Set(values.keys).count == values.keys.count, "\(page): \(values.keys)")
    }
  }

  @Test(
    "a to-do page's values moved from page to page equal fresh ones, in any order",
    arguments: [false, true])
  func reusedValues(prettyURLs: Bool) {
    var data = SiteData()
    data.hasTodos = true
    data.todos = (1...6).map {
      Todo(pk: $0, text: $0 == 3 ? "" : "t\($0)", priority: .high, complete: $0 == 2)
    }
    let plan = SitePlan(data: data, pageSize: 2, routes: Routes(prettyURLs: prettyURLs))
    let context = PageContext(
      plan: plan, labels: .builtIn(.en), lang: "en", baseURL: "https://example.org",
      generated: nil, photoFiles: [:])
    let reused = ReusedPageValues()
    let order = [0, 1, 2, 5, 4, 3, 0, 5, 5, 2]
    for position in order {
      let page = SitePlan.Page.todo(position)
      let file = plan.file(of: page)
      let fresh = context.values(for: page, file: file)
      let moved = context.values(for: page, file: file, reusing: reused)
      #expect(moved.dictionary == fresh.dictionary, "to-do page \(position)")
      #expect(moved.keys.sorted() == fresh.keys.sorted(), "to-do page \(position)")
      // What the renderer adds is gone when the values move on.
      moved["content"] = .string("page \(position)")
    }
    // Without pretty URLs all to-do pages share one folder: one set, reused.
    #expect(reused.todoPages.count == (prettyURLs ? 0 : 1))
  }

  @Test(
    "one thread's renderer and buffers, going through pages of every kind and folder in any order, render each page as a fresh pair would",
    arguments: [false, true])
  func reusedScratch(prettyURLs: Bool) throws {
    var data = SiteData()
    data.hasTodos = true
    data.hasPossessions = true
    data.hasContacts = true
    data.todos = (1...5).map { Todo(pk: $0, text: "t\($0)", priority: .high, complete: $0 == 2) }
    data.possessions = (1...2).map { Possession(id: $0, name: "p", description: "", photo: nil) }
    data.contacts = (1...2).map { Contact(id: $0, name: "c", address: "", phone: "") }
    // Two to-dos a page: the first index page is in the site's root, the others in `page/`.
    let plan = SitePlan(data: data, pageSize: 2, routes: Routes(prettyURLs: prettyURLs))
    let context = PageContext(
      plan: plan, labels: .builtIn(.en), lang: "en", baseURL: "https://example.org",
      generated: nil, photoFiles: [:])
    let pages = plan.pages
    #expect(Set(pages.map { OutputPath.split(plan.file(of: $0)).folder }).count >= 4)
    let renderer = try PageRenderer(theme: .builtIn, paths: .all)
    let buffers = RenderBuffers()
    // Forth, back, and each page twice in a row.
    let order =
      Array(pages.indices) + pages.indices.reversed() + pages.indices.flatMap { [$0, $0] }
    for index in order {
      let file = plan.file(of: pages[index])
      let fresh = RenderBuffer()
      try PageRenderer(theme: .builtIn, paths: .all).render(
        pages[index], file: file, context: context, appendingTo: fresh, buffers: RenderBuffers())
      let output = RenderBuffer()
      try renderer.render(
        pages[index], file: file, context: context, appendingTo: output, buffers: buffers)
      let page = String(decoding: output.bytes, as: UTF8.self)
      #expect(page == String(decoding: fresh.bytes, as: UTF8.self), "\(file)")
    }
  }

  @Test("to-do texts kept as UTF-8 in one block hand each text as its string's bytes")
  func todoTexts() {
    let texts = ["Buy milk", "", "Café ☕ 𝄞", "", "a\u{0}b", String(repeating: "x", count: 1000)]
    let todos = texts.enumerated().map {
      Todo(pk: Int64($0.offset), text: $0.element, priority: .low, complete: false)
    }
    let kept = TodoTexts(todos)
    #expect(kept.count == texts.count)
    for (position, text) in texts.enumerated() {
      #expect(kept.withText(position) { Array($0) } == Array(text.utf8))
      #expect(kept.isEmpty(position) == text.isEmpty)
    }
    #expect(TodoTexts([]).count == 0)
  }

  @Test("packed to-dos give back every field as given, and a plan of them is a plan of the array")
  func packedRows() {
    var generator = SplitMix(state: 7)
    let priorities: [Priority] = [
      .high, .medium, .low, .other(0), .other(.min), .other(.max), .other(-4), .none,
      .other(1), .other(2), .other(3),
    ]
    let texts = ["Buy milk", "", "Café ☕ 𝄞", String(repeating: "x", count: 1000)]
    let dues: [String?] = [nil, "2008-07-25T12:46:40Z", "", "soon"]
    var pk: Int64 = .min
    let todos = (0..<300).map { number -> Todo in
      pk += Int64.random(in: 1...1000, using: &generator)
      return Todo(
        pk: pk, text: texts[number % texts.count],
        priority: priorities.randomElement(using: &generator) ?? .none,
        complete: Bool.random(using: &generator), due: dues[number % 3 == 0 ? 0 : number % 4])
    }
    let rows = TodoRows(todos)
    #expect(Array(rows) == todos)
    for position in todos.indices {
      #expect(rows.pk(position) == todos[position].pk)
      #expect(rows.priority(position) == todos[position].priority)
      #expect(rows.isComplete(position) == todos[position].complete)
      #expect(rows.hasDue(position) == (todos[position].due != nil))
      #expect(rows.texts.withText(position) { Array($0) } == Array(todos[position].text.utf8))
    }
    #expect(TodoRows([]).isEmpty)
    var array = SiteData()
    array.hasTodos = true
    array.todos = todos
    var packed = array
    packed.todos = []
    packed.packedTodos = rows
    let routes = Routes(prettyURLs: false)
    let fromArray = SitePlan(data: array, pageSize: 7, routes: routes)
    let fromPacked = SitePlan(data: packed, pageSize: 7, routes: routes)
    #expect(Array(fromPacked.todos) == Array(fromArray.todos))
    #expect(Array(fromPacked.todosByPK) == todos)
    #expect(fromPacked.lists == fromArray.lists)
    #expect(fromPacked.completeCount == fromArray.completeCount)
    #expect(fromPacked.pages == fromArray.pages)
  }

  @Test(
    "packed to-dos without due dates, and with no or few priorities of other numbers, keep every field in index order"
  )
  func packedRowsSparse() {
    for otherAt in [nil, 0, 5, 9] as [Int?] {
      let todos = (0..<10).map { number -> Todo in
        let priority: Priority = number == otherAt ? .other(7) : (number % 3 == 0 ? .high : .none)
        let due: String? = number == 9 && otherAt == 9 ? "soon" : nil
        return Todo(
          pk: Int64(number * 3), text: number % 2 == 0 ? "" : "to-do \(number)",
          priority: priority, complete: number % 4 == 0, due: due)
      }
      let rows = TodoRows(todos)
      #expect(Array(rows) == todos)
      var data = SiteData()
      data.hasTodos = true
      data.packedTodos = rows
      let plan = SitePlan(data: data, pageSize: 3, routes: Routes(prettyURLs: false))
      #expect(
        Array(plan.todos) == todos.sorted(by: SitePlan.indexOrder), "\(String(describing: otherAt))"
      )
      #expect(Array(plan.todosByPK) == todos)
      #expect(
        TodoRows(rows, at: [9, 0, 5]).map(\.priority) == [9, 0, 5].map { todos[$0].priority })
    }
    let blank = TodoTexts(
      (0..<3).map { Todo(pk: Int64($0), text: "", priority: .none, complete: false) })
    #expect((0..<3).allSatisfy { blank.isEmpty($0) && blank.withText($0) { $0.isEmpty } })
    let reordered = TodoTexts(blank, at: [2, 0])
    #expect(reordered.count == 2 && reordered.isEmpty(1) && reordered.withText(0) { $0.isEmpty })
  }

  @Test("a list of pages kept as runs gives back each page in order, as an array of them would")
  func pageList() {
    let pages: [SitePlan.Page] = [
      .index(1), .index(2), .index(3), .board, .list(0, 1), .list(0, 2), .list(1, 1), .todo(0),
      .todo(1), .todo(2), .todo(4), .todo(3), .todo(3), .possessions(1), .possessions(2),
      .possessions(4), .possession(0),
      .possession(1), .contacts, .contact(0), .contact(2), .notFound, .notFound, .changes(1),
      .changes(2), .possessionsFront, .contactsFront,
    ]
    let list = SitePlan.PageList(pages)
    #expect(Array(list) == pages)
    #expect(list.count == pages.count)
    #expect(Array(list.filter { $0 != .index(1) }) == pages.filter { $0 != .index(1) })
    #expect(list.filter { _ in false }.isEmpty && SitePlan.PageList().isEmpty)
    #expect(list == SitePlan.PageList(pages) && list != SitePlan.PageList(pages.dropLast()))
    // A plan's pages: the array the plan made before, page by page.
    var data = SiteData()
    data.hasTodos = true
    data.hasPossessions = true
    data.todos = (0..<25).map { number -> Todo in
      let priority: Priority = number % 3 == 0 ? .high : .low
      return Todo(pk: Int64(number * 2), text: "t", priority: priority, complete: number % 2 == 0)
    }
    data.possessions = (0..<3).map {
      Possession(id: Int64($0), name: "p\($0)", description: "", photo: nil)
    }
    let plan = SitePlan(
      data: data, pageSize: 4, routes: Routes(prettyURLs: false), galleryPageSize: 2)
    #expect(plan.galleryPageCount == 2)
    var expected: [SitePlan.Page] = (1...plan.pageCount).map(SitePlan.Page.index) + [.board]
    for index in plan.lists.indices {
      expected += (1...plan.pageCount(ofList: index)).map { SitePlan.Page.list(index, $0) }
    }
    expected += plan.todos.indices.map(SitePlan.Page.todo)
    expected += (1...plan.galleryPageCount).map(SitePlan.Page.possessions)
    expected += plan.possessions.indices.map(SitePlan.Page.possession) + [.notFound]
    #expect(Array(plan.pages) == expected)
  }

  @Test("a list of paths in one block gives back each path, and compares as its paths")
  func pathList() {
    let paths = ["index.html", "", "todos/1.html", "é/ü.html", String(repeating: "a/", count: 200)]
    let list = PathList(paths)
    #expect(Array(list) == paths)
    #expect(
      list == ["index.html", "", "todos/1.html", "é/ü.html", String(repeating: "a/", count: 200)])
    #expect(list != PathList(paths.dropLast()))
    #expect(PathList(["ab", "c"]) != PathList(["a", "bc"]))
    #expect(PathList().isEmpty)
    #expect(
      list.indices.map { index in list.withPath(index) { Array($0) } }
        == paths.map { Array($0.utf8) })
  }

  @Test("a list moving one to-do object from row to row renders as fresh objects would, nested too")
  func listValues() throws {
    var data = SiteData()
    data.hasTodos = true
    data.todos = (1...3).map { Todo(pk: $0, text: "t\($0)", priority: .high, complete: false) }
    let plan = SitePlan(data: data, pageSize: 10, routes: Routes(prettyURLs: false))
    let links = TodoLinks(
      todos: plan.todos, texts: plan.todoTexts,
      strings: RowStrings(routes: plan.routes, labels: .builtIn(.en)), fromFile: "board.html",
      ownPosition: nil)
    let items = TodoListValues(links: links)
    let elements = MustacheList(count: 3) { items.value(at: $0) }
    let list = MustacheValue.list(elements)
    let fresh = MustacheValue.array(
      (0..<3).map { .computed(TodoValue(links: links, position: $0)) })
    for position in 0..<3 {
      #expect(elements[position] == .computed(TodoValue(links: links, position: position)))
    }
    // Two elements held at once are two objects.
    let (first, second) = (elements[0], elements[1])
    #expect(first != second)
    let template = try Template(
      source: "{{#todos}}{{pk}}:{{#todos}}{{pk}}{{/todos}}:{{title}};{{/todos}}", name: "t")
    let expected = "1:123:t1;2:123:t2;3:123:t3;"
    #expect(try template.render(["todos": list]) == expected)
    #expect(try template.render(["todos": fresh]) == expected)
  }

  @Test("to-dos read in pk order are put in index order by groups, as a full sort would")
  func indexOrder() {
    var generator = SplitMix(state: 169)
    let priorities: [Priority] = [.high, .medium, .low, .other(0), .other(9), .other(-4), .none]
    for count in [0, 1, 2, 50, 1000] {
      var pk: Int64 = -30
      let byPK = (0..<count).map { _ -> Todo in
        pk += Int64.random(in: 1...3, using: &generator)
        let priority = priorities.randomElement(using: &generator) ?? .none
        return Todo(pk: pk, text: "t\(pk)", priority: priority, complete: false)
      }
      for given in [byPK, byPK.shuffled(using: &generator)] {
        var data = SiteData()
        data.hasTodos = true
        data.todos = given
        let plan = SitePlan(data: data, pageSize: 10, routes: Routes(prettyURLs: false))
        #expect(Array(plan.todos) == given.sorted(by: SitePlan.indexOrder))
        #expect(Array(plan.todosByPK) == byPK)
      }
    }
  }

  @Test(
    "every object of every page hands over the text its value would insert, or none",
    arguments: [false, true])
  func handedTextAgreesWithValues(prettyURLs: Bool) throws {
    var data = SiteData()
    data.hasTodos = true
    data.hasPossessions = true
    data.hasContacts = true
    data.todos = (1...5).map {
      Todo(pk: $0, text: $0 == 2 ? "" : "t<\($0)>", priority: .high, complete: $0 == 3)
    }
    data.possessions = (1...3).map {
      Possession(id: $0, name: $0 == 1 ? "" : "p&\($0)", description: "d\($0)", photo: nil)
    }
    data.contacts = (1...2).map {
      Contact(id: $0, name: $0 == 1 ? "" : "c", address: "a", phone: "")
    }
    let plan = SitePlan(data: data, pageSize: 2, routes: Routes(prettyURLs: prettyURLs))
    let context = PageContext(
      plan: plan, labels: .builtIn(.en), lang: "en", baseURL: "https://example.org/r",
      generated: nil,
      photoFiles: [2: PageContext.PhotoFile(path: "photos/2.png", width: 50, height: 20)])
    var checked = 0
    var handed = 0
    func check(_ value: MustacheValue, depth: Int) {
      guard depth < 6 else { return }
      switch value {
      case .computed(let box):
        for key in box.object.keys + ["nope", "labels", "title", "url", "page"] {
          let expected = box.object.value(forKey: key)
          var bytes: [UInt8] = []
          let answer = box.object.text(forKey: key) { bytes.append(contentsOf: $0) }
          checked += 1
          switch answer {
          case .missing: #expect(expected == nil, "\(type(of: box.object)).\(key)")
          case .useValue: #expect(expected != nil, "\(type(of: box.object)).\(key)")
          case .handed:
            handed += 1
            #expect(
              String(decoding: bytes, as: UTF8.self) == expected?.interpolatedText,
              "\(type(of: box.object)).\(key)")
          }
          if let expected { check(expected, depth: depth + 1) }
        }
      case .object(let fields):
        for field in fields.values { check(field, depth: depth + 1) }
      case .array(let items):
        for item in items { check(item, depth: depth + 1) }
      case .list(let list):
        for index in 0..<list.count { check(list[index], depth: depth + 1) }
      default:
        break
      }
    }
    let reused = ReusedPageValues()
    for page in plan.pages {
      let file = plan.file(of: page)
      for values in [
        context.values(for: page, file: file),
        context.values(for: page, file: file, reusing: reused),
      ] {
        values["content"] = .utf8(Array("<p>c</p>".utf8))
        check(.computed(values), depth: 0)
      }
    }
    #expect(checked > 1000)
    #expect(handed > 200)
  }

  @Test("a photo's fields: its link, its alt text, its size and its thumbnail's")
  func photoFields() throws {
    var data = SiteData()
    data.hasPossessions = true
    let sizes: [(Int?, Int?)] = [(640, 480), (100, 1000), (10, 5), (nil, nil), (0, 0)]
    data.possessions = sizes.indices.map {
      Possession(
        id: Int64($0 + 1), name: $0 == 0 ? "" : "Lamp \($0)", description: "", photo: nil)
    }
    let plan = SitePlan(data: data, pageSize: 100, routes: Routes(prettyURLs: false))
    var files: [Int64: PageContext.PhotoFile] = [:]
    for (index, size) in sizes.enumerated() {
      files[Int64(index + 1)] = PageContext.PhotoFile(
        path: "photos/p\(index).png", width: size.0, height: size.1)
    }
    let context = PageContext(
      plan: plan, labels: .builtIn(.en), lang: "en", baseURL: nil, generated: nil,
      photoFiles: files)
    func fields(_ position: Int) -> [String: MustacheValue] {
      let values = context.values(for: .possession(position))
      guard case .computed(let possession)? = values["possession"],
        case .computed(let photo)? = possession.object.value(forKey: "photo")
      else { return [:] }
      #expect(photo.object.keys.count == 8)
      return photo.object.dictionary
    }
    #expect(
      fields(0) == [
        "url": "../photos/p0.png", "alt": "Photo 1", "width": 640, "height": 480,
        "thumbWidth": 320, "thumbHeight": 240, "thumbUrl": "../photos/p0.png",
        "srcset": "../photos/p0.png",
      ])
    #expect(fields(1)["alt"] == "Photo of Lamp 1")
    #expect(fields(1)["thumbWidth"] == 32)
    #expect(fields(1)["thumbHeight"] == 320)
    #expect(fields(2)["thumbWidth"] == 10)
    #expect(fields(2)["thumbHeight"] == 5)
    #expect(fields(3)["width"] == 320)
    #expect(fields(3)["thumbHeight"] == 320)
    #expect(fields(4)["thumbWidth"] == 1)

    // With renditions: the narrowest for the gallery, all of them in `srcset`.
    files[1] = PageContext.PhotoFile(
      path: "photos/a-640.webp", width: 640, height: 480,
      renditions: [
        .init(path: "photos/a-320.webp", width: 320, height: 240),
        .init(path: "photos/a-640.webp", width: 640, height: 480),
      ])
    let withRenditions = PageContext(
      plan: plan, labels: .builtIn(.en), lang: "en", baseURL: nil, generated: nil,
      photoFiles: files)
    let values = withRenditions.values(for: .possession(0))
    guard case .computed(let possession)? = values["possession"],
      case .computed(let photo)? = possession.object.value(forKey: "photo")
    else {
      Issue.record("no photo")
      return
    }
    #expect(photo.object.value(forKey: "thumbUrl") == "../photos/a-320.webp")
    #expect(
      photo.object.value(forKey: "srcset")
        == "../photos/a-320.webp 320w, ../photos/a-640.webp 640w")
    #expect(photo.object.value(forKey: "url") == "../photos/a-640.webp")
  }

  static func context(contacts names: [String]) -> PageContext {
    var data = SiteData()
    data.hasContacts = true
    data.contacts = names.enumerated().map { index, name in
      Contact(id: Int64(index + 1), name: name, address: "", phone: "")
    }
    let plan = SitePlan(data: data, pageSize: 100, routes: Routes(prettyURLs: false))
    return PageContext(
      plan: plan, labels: .builtIn(.en), lang: "en", baseURL: nil, generated: nil,
      photoFiles: [:])
  }

  /// The `anchor` and number of contacts of each letter group on the contacts page.
  static func letterGroups(_ context: PageContext) -> [String] {
    guard case .array(let letters)? = context.values(for: .contacts)["letters"] else { return [] }
    return letters.map { letter in
      guard case .object(let group) = letter, case .string(let anchor)? = group["anchor"],
        case .array(let contacts)? = group["contacts"]
      else { return "?" }
      return "\(anchor) \(contacts.count)"
    }
  }

  @Test("names without a leading letter make one group, wherever they sort")
  func oneGroupForNonLetters() {
    // `<` sorts before the letters, `{` and U+202E after them.
    let context = Self.context(contacts: ["{{x}}", "Bob", "<b>", "alice", "\u{202E}x", "Ann"])
    #expect(Self.letterGroups(context) == ["other 3", "A 2", "B 1"])
  }

  @Test("letters outside ASCII get code point anchors; accented letters file under their letter")
  func nonASCIILetters() {
    let context = Self.context(contacts: ["Émile", "Zoë", "émilie", "山田", "Øre"])
    #expect(Self.letterGroups(context) == ["E 2", "Z 1", "ud8 1", "u5c71 1"])
  }
}
