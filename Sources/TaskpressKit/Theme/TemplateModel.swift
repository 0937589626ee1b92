/// Every variable each template of a theme can see, declared once: `Templates/README.md` in
/// code. The rows' names come from the render layer's row types (`TodoValue.Field`, ...); the
/// rest is declared here. The theme's templates are checked against it when they are loaded (see
/// `TemplateCheck`), and a test compares it with the values pages are really rendered with.
enum TemplateModel {
  /// The shape of a value a template can look up.
  indirect enum Shape: Sendable, Hashable {
    /// Text, a number or a flag: a section over it shows its content once (or not at all).
    case scalar
    /// An object: its fields, by name.
    case object([Field])
    /// A list: a section shows its content once per element, with the element on top.
    case list(Shape)
  }

  /// A named value of an object.
  struct Field: Sendable, Hashable {
    var name: String
    var shape: Shape
    /// Absent on some pages or rows (`page.canonical` without `--base-url`, a possession's
    /// `photo`); the others are always there.
    var isOptional = false

    init(_ name: String, _ shape: Shape = .scalar, optional: Bool = false) {
      self.name = name
      self.shape = shape
      isOptional = optional
    }
  }

  /// What every page sees at the top level.
  static let common: [Field] = [
    Field(
      "site",
      .object([
        Field("title"), Field("lang"), Field("generated", optional: true),
        Field("generatedDate", optional: true), Field("baseURL", optional: true),
        Field("noindex", optional: true), Field("search", optional: true),
        Field("calendar", .object([Field("webcal", optional: true)]), optional: true),
        Field("hasTodos"), Field("hasPossessions"), Field("hasContacts"),
      ])),
    Field(
      "page",
      row(PageInfo.Field.self, optional: ["canonical", "script", "ogImage", "ogDescription"])),
    Field("root"), Field("assets"), Field("home"),
    Field("nav", .list(.object([Field("url"), Field("label"), Field("current")]))),
    Field("data", .list(.object([Field("name"), Field("url"), Field("last")]))),
    Field("labels", .object(Labels.keys.map { Field($0) })),
  ]

  /// The shape of a row type of the render layer, from its `Field` cases (the keys it is
  /// written with), with the shapes of those that are not text or numbers and the names of
  /// those that can be absent.
  private static func row<Row: TemplateField>(
    _ type: Row.Type, shapes: [String: Shape] = [:], optional: Set<String> = []
  ) -> Shape {
    .object(
      Row.allCases.map {
        Field($0.rawValue, shapes[$0.rawValue] ?? .scalar, optional: optional.contains($0.rawValue))
      })
  }

  /// A to-do, wherever one appears.
  static let todo = row(
    TodoValue.Field.self,
    shapes: [
      "priority": .object([Field("label"), Field("level"), Field("number", optional: true)])
    ], optional: ["due", "dueDate", "titleMarkdown"])

  static let counts: Shape = .object([
    Field("total"), Field("complete"), Field("inProgress"), Field("summary"),
  ])

  /// A change on `changes.html` and in `latestChanges`.
  static let change: Shape = .object([
    Field("kind"), Field("label"), Field("title"), Field("url"), Field("from"), Field("to"),
    Field("titleHTML"), Field("fromHTML"), Field("toHTML"), Field("removed"),
  ])

  /// `latestChanges` of the first index page.
  static let latestChanges: Shape = .object([
    Field("url"), Field("hasChanges"), Field("build"), Field("date"), Field("dateText"),
    Field("count"), Field("summary"), Field("more"),
    Field("kinds", .list(.object([Field("kind"), Field("label"), Field("count")]))),
    Field("items", .list(change)),
  ])

  /// `history`: every recorded build, oldest first.
  static let history: Shape = .list(
    .object([
      Field("build"), Field("date"), Field("dateText"), Field("changes"), Field("total"),
      Field("open"), Field("complete"), Field("possessions"), Field("contacts"),
      Field(
        "byPriority",
        .list(.object([Field("level"), Field("label"), Field("open"), Field("complete")]))),
    ]))

  /// `timeline` of a to-do's page: its first build and each change since, oldest first.
  static let timeline: Shape = .list(
    .object([
      Field("kind"), Field("label"), Field("build"), Field("title"), Field("date"),
      Field("dateText"), Field("url"),
    ]))

  /// A filtered list, wherever one is linked; its `count` on the first index page only (a
  /// summary page).
  static let list: Shape = .object([
    Field("kind"), Field("key"), Field("label"), Field("title"), Field("count", optional: true),
    Field("url"), Field("current"),
  ])

  static let pagination: Shape = .object([
    Field("current"), Field("total"), Field("hasMultiple"), Field("summary"),
    Field("previous", optional: true), Field("next", optional: true),
    Field(
      "pages",
      .list(
        .object([
          Field("number", optional: true), Field("url", optional: true),
          Field("current", optional: true), Field("gap", optional: true),
        ]))),
  ])

  /// The front page's charts.
  static let charts: Shape = .object([
    Field(
      "progress",
      .object([
        Field("percent"), Field("complete"), Field("total"), Field("summary"), Field("svg"),
        Field("change", optional: true),
      ])),
    Field(
      "priority",
      .object([
        Field(
          "rows",
          .list(
            .object([
              Field("label"), Field("level"), Field("url"), Field("inProgress"),
              Field("complete"), Field("total"), Field("description"), Field("svg"),
            ])))
      ])),
    Field(
      "trend",
      .object([
        Field(
          "points",
          .list(
            .object([
              Field("label"), Field("date", optional: true), Field("inProgress"),
              Field("complete"),
            ]))),
        Field("count"), Field("hasMany"), Field("axis", .list(.object([Field("label")]))),
        Field("first"), Field("last"), Field("svg"),
      ])),
    Field(
      "flow",
      .object([
        Field("cycle"), Field("cycleCount"), Field("median", optional: true),
        Field("percentile85", optional: true), Field("lastWeek"), Field("lastWeekCompleted"),
        Field("oldest", optional: true), Field("oldestDays", optional: true),
      ]), optional: true),
  ])

  /// A row of a flow chart's table: a point (a day, or an undated build).
  private static func point(_ fields: [Field]) -> Shape {
    .object([Field("label"), Field("date"), Field("build")] + fields)
  }

  /// `burnup` of `flow.html` and `report.html`.
  static let burnup: Shape = .object([
    Field(
      "rows",
      .list(point([Field("scope"), Field("done"), Field("added"), Field("removed")]))),
    Field("axis", .list(.object([Field("label")]))), Field("description"), Field("svg"),
  ])

  /// `aging` of `flow.html` and `report.html`: the oldest open to-dos.
  static let aging: Shape = .object([
    Field(
      "todos",
      .list(
        .object([
          Field("url"), Field("title"), Field("level"), Field("priority"), Field("since"),
          Field("sinceText"), Field("days"), Field("hasDays"),
        ]))),
    Field("hasTodos"), Field("countedTo", optional: true),
  ])

  static let possession = row(
    PossessionValue.Field.self,
    shapes: ["photo": row(PhotoValue.Field.self, optional: ["avifSrcset"])],
    optional: ["photo"])

  static let contact = row(ContactValue.Field.self, optional: ["tel"])

  /// `previous`, `next` and `hasNeighbours` of a page of one row.
  private static func neighbours(_ row: Shape) -> [Field] {
    [
      Field("previous", row, optional: true), Field("next", row, optional: true),
      Field("hasNeighbours"),
    ]
  }

  /// What the body template of each page kind sees besides `common`, by kind
  /// (`PageKind.name`).
  static let pages: [String: [Field]] = [
    "index": [
      Field("todos", .list(todo)),
      Field(
        "groups",
        .list(
          .object([Field("label"), Field("level"), Field("count"), Field("todos", .list(todo))]))),
      Field("counts", counts, optional: true),
      Field("pagination", pagination),
      Field("lists", .object([Field("status", .list(list)), Field("priority", .list(list))])),
      Field("charts", charts, optional: true),
      Field("latestChanges", latestChanges, optional: true),
      Field("history", history, optional: true),
    ],
    "flow": [
      Field("asOf"),
      Field("burnup", burnup, optional: true),
      Field(
        "cumulative",
        .object([
          Field("rows", .list(point([Field("open"), Field("complete")]))),
          Field("axis", .list(.object([Field("label")]))), Field("svg"),
        ]), optional: true),
      Field(
        "byPriority",
        .object([
          Field("priorities", .list(.object([Field("label"), Field("level")]))),
          Field(
            "rows",
            .list(point([Field("complete"), Field("counts", .list(.object([Field("open")])))]))),
          Field("axis", .list(.object([Field("label")]))), Field("svg"),
        ]), optional: true),
      Field(
        "cycle",
        .object([
          Field("count"), Field("summary"), Field("median"), Field("percentile85"),
          Field(
            "rows",
            .list(
              .object([
                Field("label"), Field("count"), Field("isMedian"), Field("isPercentile85"),
              ]))),
          Field("svg"),
        ]), optional: true),
      Field(
        "throughput",
        .object([
          Field("rows", .list(.object([Field("week"), Field("completed")]))),
          Field("hasWeeks"), Field("axis", .list(.object([Field("label")]))), Field("svg"),
        ]), optional: true),
      Field("aging", aging, optional: true),
      Field("reportURL", optional: true),
    ],
    "report": [
      Field("charts", charts),
      Field("burnup", burnup, optional: true),
      Field("aging", aging, optional: true),
      Field(
        "due",
        .object([
          Field(
            "todos",
            .list(
              .object([
                Field("url"), Field("title"), Field("level"), Field("priority"), Field("due"),
                Field("dueText"), Field("overdue"),
              ]))),
          Field("hasTodos"),
        ])),
      Field("latestChanges", latestChanges, optional: true),
    ],
    "calendar": [
      Field(
        "months",
        .list(
          .object([
            Field("title"), Field("id"),
            Field(
              "weeks",
              .list(
                .object([
                  Field(
                    "days",
                    .list(
                      .object([
                        Field("inMonth"), Field("day", optional: true),
                        Field("date", optional: true), Field("dateText", optional: true),
                        Field("weekday", optional: true),
                        Field(
                          "todos",
                          .list(
                            .object([
                              Field("url"), Field("title"), Field("overdue"),
                              Field(
                                "priority",
                                .object([
                                  Field("label"), Field("level"), Field("number", optional: true),
                                ])),
                            ])), optional: true),
                        Field("hasTodos", optional: true), Field("count", optional: true),
                        Field("isToday", optional: true),
                        Field("more", .object([Field("label")]), optional: true),
                      ])))
                ]))),
          ]))),
      Field("hasMonths"), Field("weekdays", .list(.scalar)),
      Field("overdue", .object([Field("count"), Field("label")]), optional: true),
      Field("later", .object([Field("label")]), optional: true),
      Field("calendars", .list(.object([Field("label"), Field("url")]))),
    ],
    "changes": [
      Field(
        "builds",
        .list(
          .object([
            Field("build"), Field("anchor"), Field("title"), Field("date"), Field("dateText"),
            Field("latest"), Field("count"), Field("summary"), Field("more"),
            Field(
              "groups",
              .list(
                .object([
                  Field("kind"), Field("label"), Field("count"), Field("items", .list(change)),
                ]))),
          ]))),
      Field("pagination", pagination),
      Field("history", history),
      Field("feed"), Field("changesData"),
      Field(
        "earlierBuilds",
        .list(
          .object([
            Field("build"), Field("anchor"), Field("title"), Field("date"), Field("dateText"),
            Field("url"),
          ]))),
      Field("hasEarlierBuilds"),
    ],
    "board": [
      Field(
        "columns",
        .list(
          .object([
            Field("key"), Field("label"), Field("count"), Field("url"), Field("todos", .list(todo)),
            Field(
              "more", .object([Field("count"), Field("url"), Field("label")]), optional: true),
          ]))),
      Field("counts", counts),
    ],
    "list": [
      Field("list", list), Field("todos", .list(todo)), Field("pagination", pagination),
      Field("lists", .object([Field("status", .list(list)), Field("priority", .list(list))])),
    ],
    "todo": [
      Field("todo", todo), Field("list", .object([Field("url"), Field("title")])),
      Field("boardURL"), Field("timeline", timeline),
    ] + neighbours(todo),
    "possessions": [Field("possessions", .list(possession)), Field("pagination", pagination)],
    "possession": [Field("possession", possession)] + neighbours(possession),
    "contacts": [
      Field("contacts", .list(contact)),
      Field(
        "letters",
        .list(.object([Field("letter"), Field("anchor"), Field("contacts", .list(contact))]))),
    ],
    "contact": [Field("contact", contact)] + neighbours(contact),
    "404": [],
  ]

  /// The layout's own variable: the page's rendered body.
  static let content = Field("content")

  /// The top level a body template of `kind` sees.
  static func body(_ kind: String) -> Shape {
    .object(common + (pages[kind] ?? []))
  }

  /// The top levels the layout sees: one for each page kind, each with `content`.
  static var layout: [Shape] {
    PageKind.allCases.map(\.name).map { .object(common + (pages[$0] ?? []) + [content]) }
  }
}

extension TemplateModel.Shape {
  /// The field `name` of an object; nil for a list, a scalar or a name it does not have.
  func field(_ name: String) -> TemplateModel.Field? {
    guard case .object(let fields) = self else { return nil }
    return fields.first { $0.name == name }
  }

  /// Every dotted name that reaches a value from here, up to `depth` parts (`todo`,
  /// `todo.priority`, `todo.priority.label`, ...), for suggestions.
  func names(depth: Int) -> [String] {
    guard depth > 0, case .object(let fields) = self else { return [] }
    var names: [String] = []
    for field in fields {
      names.append(field.name)
      names += field.shape.names(depth: depth - 1).map { field.name + "." + $0 }
    }
    return names
  }
}
