import Mustache

extension PageContext {
  // MARK: - Changes

  /// Changes listed for one build on `changes.html`; the rest are counted (`more`).
  static let changesPerBuild = 1000
  /// Changes listed in `latestChanges` on the first index page.
  static let latestChangesShown = 5

  /// What `changes.html` page `number` adds: `builds`, `pagination`, `history`, `feed` and
  /// `changesData`.
  func addChanges(_ report: ChangeReport, page number: Int, file: String, to context: PageValues) {
    let builds = report.builds(onPage: number)
    context["builds"] = .array(
      builds.indices.map { index in
        buildValue(
          builds[index], latest: index == 0 && number == 1, from: file,
          limit: Self.changesPerBuild)
      })
    context["pagination"] = changesPagination(report, number, from: file)
    context["history"] = history(report)
    context["feed"] = .string(plan.routes.asset("feed.xml", fromFile: file))
    context["changesData"] = .string(plan.routes.asset("data/changes.json", fromFile: file))
    let earlier = number == 1 ? earlierBuilds(report, from: file) : []
    context["earlierBuilds"] = .array(earlier)
    context["hasEarlierBuilds"] = .bool(!earlier.isEmpty)
  }

  /// `latestChanges` of the first index page: the last build that changed something.
  func latestChanges(_ report: ChangeReport, from file: String) -> MustacheValue {
    var value: Fields = [
      "url": .string(plan.routes.link(to: "changes", fromFile: file)),
      "hasChanges": .bool(report.builds.first != nil),
    ]
    guard let build = report.builds.first else {
      for key in ["build", "date", "dateText", "summary", "more"] { value[key] = false }
      value["count"] = .int(0)
      value["kinds"] = .array([])
      value["items"] = .array([])
      return .computed(value)
    }
    value["build"] = .int(Int64(build.build))
    value["date"] = .string(build.date)
    value["dateText"] = .string(labels.date(iso: String(build.date.prefix(10))))
    value["count"] = .int(Int64(build.changes.count))
    value["summary"] = .string(labels.changesCount(build.changes.count))
    value["kinds"] = .array(
      groups(of: build.changes).map { range in
        let first = build.changes[range.lowerBound]
        let kind: Fields = [
          "kind": .string(first.kind), "label": .string(labels[first.labelKey]),
          "count": .int(Int64(range.count)),
        ]
        return .computed(kind)
      })
    let shown = build.changes.prefix(Self.latestChangesShown)
    value["items"] = .array(shown.map { changeValue($0, from: file) })
    let more = build.changes.count - shown.count
    value["more"] = more > 0 ? .string(labels.format("moreChanges", ["n": "\(more)"])) : false
    return .computed(value)
  }

  /// `history`: every recorded build, oldest first, with its counts (for a trend).
  func history(_ report: ChangeReport) -> MustacheValue {
    .array(
      report.history.map { entry in
        let todos = entry.todos
        var value: Fields = [
          "build": .int(Int64(entry.build)),
          "date": entry.date.map(MustacheValue.string) ?? false,
          "dateText": entry.date.map { .string(labels.date(iso: String($0.prefix(10)))) } ?? false,
          "changes": .int(Int64(entry.changes)),
          "total": .int(Int64(todos?.total ?? 0)),
          "open": .int(Int64(todos?.open ?? 0)),
          "complete": .int(Int64(todos?.complete ?? 0)),
          "possessions": .int(Int64(entry.possessions ?? 0)),
          "contacts": .int(Int64(entry.contacts ?? 0)),
        ]
        value["byPriority"] = .array(
          (todos?.byPriority ?? []).map { counts in
            let priority = Priority(stored: counts.priority)
            let fields: Fields = [
              "level": .string(Self.level(priority)), "label": .string(labels.priority(priority)),
              "open": .int(Int64(counts.open)), "complete": .int(Int64(counts.complete)),
            ]
            return .computed(fields)
          })
        return .computed(value)
      })
  }

  /// One build on `changes.html`, its changes grouped by kind.
  func buildValue(_ build: BuildChanges, latest: Bool, from file: String, limit: Int)
    -> MustacheValue
  {
    var shown = 0
    var groupValues: [MustacheValue] = []
    for range in groups(of: build.changes) where shown < limit {
      let first = build.changes[range.lowerBound]
      let items = build.changes[range].prefix(limit - shown)
      shown += items.count
      let group: Fields = [
        "kind": .string(first.kind), "label": .string(labels[first.labelKey]),
        "count": .int(Int64(range.count)),
        "items": .array(items.map { changeValue($0, from: file) }),
      ]
      groupValues.append(.computed(group))
    }
    let more = build.changes.count - shown
    let value: Fields = [
      "build": .int(Int64(build.build)),
      "anchor": .string("build-\(build.build)"),
      "title": .string(labels.format("buildNumber", ["n": "\(build.build)"])),
      "date": .string(build.date),
      "dateText": .string(labels.date(iso: String(build.date.prefix(10)))),
      "latest": .bool(latest),
      "count": .int(Int64(build.changes.count)),
      "summary": .string(labels.changesCount(build.changes.count)),
      "groups": .array(groupValues),
      "more": more > 0 ? .string(labels.format("moreChanges", ["n": "\(more)"])) : false,
    ]
    return .computed(value)
  }

  /// One change: `kind`, `title`, `url` (false for an item no longer in the site), `from` and
  /// `to` (false when the change has none), `removed`.
  func changeValue(_ change: Change, from file: String) -> MustacheValue {
    let title =
      change.text.isEmpty
      ? "\(labels[change.source == .todos ? "task" : change.source.rawValue]) \(change.id)"
      : change.text
    let value: Fields = [
      "kind": .string(change.kind),
      "label": .string(labels[change.labelKey]),
      "title": .string(title),
      "url": change.route.map { .string(plan.routes.link(to: $0, fromFile: file)) } ?? false,
      "from": change.from.map(MustacheValue.string) ?? false,
      "to": change.to.map(MustacheValue.string) ?? false,
      "titleHTML": .string(
        change.source == .todos && !change.text.isEmpty
          ? strings.todoHTML(title, links: false) : RowStrings.escaped(title)),
      "fromHTML": change.from.map { .string(changedHTML(change, $0)) } ?? false,
      "toHTML": change.to.map { .string(changedHTML(change, $0)) } ?? false,
      "removed": .bool(change.change == .removed),
    ]
    return .computed(value)
  }

  /// A change's `from` or `to` as HTML: a to-do's text or a possession's description
  /// rendered when it is declared Markdown, anything else escaped.
  private func changedHTML(_ change: Change, _ text: String) -> String {
    switch (change.source, change.change) {
    case (.todos, .text): strings.todoHTML(text, links: true)
    case (.possessions, .description):
      strings.descriptionMarkdown ? InlineMarkdown.html(text) : RowStrings.escaped(text)
    default: RowStrings.escaped(text)
    }
  }

  /// The runs of changes of one kind in a build's list.
  func groups(of changes: [Change]) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    var start = 0
    while start < changes.count {
      var end = start + 1
      while end < changes.count, changes[end].kind == changes[start].kind { end += 1 }
      ranges.append(start..<end)
      start = end
    }
    return ranges
  }

  func changesPagination(_ report: ChangeReport, _ number: Int, from file: String)
    -> MustacheValue
  {
    let total = report.pageCount
    func url(_ page: Int) -> String {
      plan.routes.link(to: plan.name(of: .changes(page)), fromFile: file)
    }
    var value: Fields = [
      "current": .int(Int64(number)),
      "total": .int(Int64(total)),
      "hasMultiple": .bool(total > 1),
      "summary": .string(labels.format("pageOf", ["current": "\(number)", "total": "\(total)"])),
      "pages": .array(
        Self.pageWindow(current: number, total: total).map { page in
          guard let page else {
            return .computed(
              ["gap": true, "number": false, "url": false, "current": false] as Fields)
          }
          let fields: Fields = [
            "gap": false, "number": .int(Int64(page)), "url": .string(url(page)),
            "current": .bool(page == number),
          ]
          return .computed(fields)
        }),
    ]
    value["previous"] = number > 1 ? .string(url(number - 1)) : false
    value["next"] = number < total ? .string(url(number + 1)) : false
    return .computed(value)
  }
}
