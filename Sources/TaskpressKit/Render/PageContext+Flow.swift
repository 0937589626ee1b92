import Mustache

extension PageContext {
  // MARK: - flow.html

  /// The oldest open to-dos `report.html` lists, and the to-dos due first.
  static let reportTodos = 5

  /// What `flow.html` adds: `asOf` (the numbers' date in the `flowAsOf` label), `burnup`, `cumulative`, `byPriority`,
  /// `cycle`, `throughput` and `aging`, each chart an SVG with its numbers as rows for a table
  /// (see `Templates/README.md`). Made from the flow numbers alone, which a build that changes
  /// no count leaves as they were: so does the page.
  func addFlow(_ flow: FlowReport, file: String, to context: PageValues) {
    context["asOf"] =
      flow.date.map { .string(labels.format("flowAsOf", ["date": labels.date(iso: $0)])) }
      ?? false
    context["burnup"] = burnup(flow)
    let labelsOfPoints = flow.points.map(pointLabel)
    // Cumulative flow: complete below, in progress above.
    let open = flow.points.map(\.open)
    let done = flow.points.map(\.done)
    let flowRows: [MustacheValue] = flow.points.indices.map { index in
      let point = flow.points[index]
      var fields = pointFields(point, label: labelsOfPoints[index])
      fields["open"] = .int(Int64(point.open))
      fields["complete"] = .int(Int64(point.done))
      return .computed(fields)
    }
    context["cumulative"] = .object([
      "rows": .array(flowRows),
      "axis": axis(labelsOfPoints),
      "svg": .string(
        Chart.stacked(
          [("complete", done, 10), ("in-progress", open, 6)], count: flow.points.count,
          title: labels["flowCumulative"],
          description: labels.format(
            "flowCumulativeDescription",
            [
              "points": "\(flow.points.count)", "open": "\(open.last ?? 0)",
              "complete": "\(done.last ?? 0)",
            ]))),
    ])
    context["byPriority"] = cumulativeByPriority(flow, labels: labelsOfPoints)
    context["cycle"] = cycleTime(flow)
    context["throughput"] = throughput(flow)
    context["aging"] = aging(flow, from: file)
    context["reportURL"] = .string(plan.routes.link(to: "report", fromFile: file))
  }

  /// A flow point's label: its day, else its build's number.
  func pointLabel(_ point: FlowReport.Point) -> String {
    point.date.map { labels.date(iso: $0) } ?? labels.format("buildNumber", ["n": "\(point.build)"])
  }

  /// `label`, `date` (or false) and `build` of a point's table row.
  func pointFields(_ point: FlowReport.Point, label: String) -> Fields {
    [
      "label": .string(label), "date": point.date.map(MustacheValue.string) ?? false,
      "build": .int(Int64(point.build)),
    ]
  }

  /// The labels under a chart's axis: its first and last point's (one when they are the same).
  func axis(_ labels: [String]) -> MustacheValue {
    guard let first = labels.first, let last = labels.last else { return .array([]) }
    let shown = labels.count > 1 ? [first, last] : [first]
    return .array(shown.map { .object(["label": .string($0)]) })
  }

  /// `burnup`: the scope (every to-do there) as steps and the done line, and each point's
  /// scope, done, added and removed.
  func burnup(_ flow: FlowReport) -> MustacheValue {
    let labelsOfPoints = flow.points.map(pointLabel)
    let rows: [MustacheValue] = flow.points.indices.map { index in
      let point = flow.points[index]
      var fields = pointFields(point, label: labelsOfPoints[index])
      fields["scope"] = .int(Int64(point.scope))
      fields["done"] = .int(Int64(point.done))
      fields["added"] = .int(Int64(point.added))
      fields["removed"] = .int(Int64(point.removed))
      return .computed(fields)
    }
    let last = flow.points.last
    let added: Int = flow.points.reduce(0) { $0 + $1.added }
    let removed: Int = flow.points.reduce(0) { $0 + $1.removed }
    let numbers: KeyValuePairs<String, String> = [
      "points": String(flow.points.count), "scope": String(last?.scope ?? 0),
      "done": String(last?.done ?? 0), "added": String(added), "removed": String(removed),
    ]
    let description = labels.format("flowBurnupDescription", numbers)
    return .object([
      "rows": .array(rows),
      "axis": axis(labelsOfPoints),
      "description": .string(description),
      "svg": .string(
        Chart.lines(
          [
            ("scope", flow.points.map(\.scope), 6, true),
            ("complete", flow.points.map(\.done), 10, false),
          ], count: flow.points.count, title: labels["flowBurnup"], description: description)),
    ])
  }

  /// `byPriority`: the cumulative flow with the to-dos in progress by priority above the
  /// complete ones; `priorities` are the columns, each row's `counts` their open to-dos.
  func cumulativeByPriority(_ flow: FlowReport, labels pointLabels: [String]) -> MustacheValue {
    // Every priority any point had, in the order of the last point that has it.
    var priorities: [Int64?] = []
    for point in flow.points {
      for counts in point.byPriority where !priorities.contains(counts.priority) {
        priorities.append(counts.priority)
      }
    }
    priorities.sort { Priority(stored: $0) < Priority(stored: $1) }
    func open(_ point: FlowReport.Point, _ priority: Int64?) -> Int {
      point.byPriority.first { $0.priority == priority }?.open ?? 0
    }
    let names = priorities.map { labels.priority(Priority(stored: $0)) }
    let rows: [MustacheValue] = flow.points.indices.map { index in
      let point = flow.points[index]
      var fields = pointFields(point, label: pointLabels[index])
      fields["complete"] = .int(Int64(point.done))
      fields["counts"] = .array(
        priorities.map { .object(["open": .int(Int64(open(point, $0)))]) })
      return .computed(fields)
    }
    var layers: [(kind: String, values: [Int], opacity: Int)] = [
      ("complete", flow.points.map(\.done), 10)
    ]
    for priority in priorities {
      layers.append(
        (
          "priority-\(Self.level(Priority(stored: priority)))",
          flow.points.map { open($0, priority) }, 6
        ))
    }
    let description = labels.format(
      "flowByPriorityDescription",
      [
        "points": "\(flow.points.count)",
        "counts": zip(names, priorities).map { name, priority in
          "\(name) \(flow.points.last.map { open($0, priority) } ?? 0)"
        }.joined(separator: ", "),
      ])
    return .object([
      "priorities": .array(
        zip(names, priorities).map { name, priority in
          .object([
            "label": .string(name), "level": .string(Self.level(Priority(stored: priority))),
          ])
        }),
      "rows": .array(rows),
      "axis": axis(pointLabels),
      "svg": .string(
        Chart.stacked(
          layers, count: flow.points.count, title: labels["flowByPriority"],
          description: description)),
    ])
  }

  /// `cycle`: the cycle-time histogram, with the bins of the median and the 85th percentile
  /// marked.
  func cycleTime(_ flow: FlowReport) -> MustacheValue {
    let cycle = flow.cycleTime
    func bin(of days: Int?) -> Int? {
      days.flatMap { days in FlowReport.binStarts.lastIndex { $0 <= days } }
    }
    let medianBin = bin(of: cycle.median)
    let p85Bin = bin(of: cycle.percentile85)
    let starts = FlowReport.binStarts
    let rows: [MustacheValue] = cycle.bins.indices.map { index in
      let from = starts[index]
      let label: String =
        if index + 1 == starts.count {
          labels.format("flowDaysFrom", ["from": "\(from)"])
        } else if starts[index + 1] - 1 == from {
          labels.format("flowDays", ["days": "\(from)"])
        } else {
          labels.format("flowDaysRange", ["from": "\(from)", "to": "\(starts[index + 1] - 1)"])
        }
      return .object([
        "label": .string(label), "count": .int(Int64(cycle.bins[index])),
        "isMedian": .bool(index == medianBin), "isPercentile85": .bool(index == p85Bin),
      ])
    }
    let summary =
      cycle.median.map { median in
        labels.format(
          "flowCycle",
          [
            "median": "\(median)", "p85": "\(cycle.percentile85 ?? median)",
            "count": "\(cycle.count)",
          ])
      } ?? labels["flowCycleNone"]
    var fields: Fields = [
      "count": .int(Int64(cycle.count)),
      "summary": .string(summary),
      "rows": .array(rows),
      "median": cycle.median.map { .int(Int64($0)) } ?? false,
      "percentile85": cycle.percentile85.map { .int(Int64($0)) } ?? false,
    ]
    fields["svg"] = .string(
      Chart.columns(
        cycle.bins, kind: "complete", marked: Set([medianBin, p85Bin].compactMap { $0 }),
        title: labels["flowCycleTime"], description: summary))
    return .computed(fields)
  }

  /// `throughput`: the to-dos completed each ISO week.
  func throughput(_ flow: FlowReport) -> MustacheValue {
    let weeks = flow.throughput
    let description = labels.format(
      "flowThroughputDescription",
      [
        "weeks": "\(weeks.count)", "completed": "\(weeks.map(\.completed).reduce(0, +))",
      ])
    return .object([
      "rows": .array(
        weeks.map { .object(["week": .string($0.week), "completed": .int(Int64($0.completed))]) }),
      "hasWeeks": .bool(!weeks.isEmpty),
      "axis": axis(weeks.map(\.week)),
      "svg": .string(
        Chart.columns(
          weeks.map(\.completed), kind: "complete", title: labels["flowThroughput"],
          description: description)),
    ])
  }

  /// `aging`: the oldest open to-dos, oldest first, each with its link, its first build's day
  /// (`since`, which a script turns into the days open as of the reader's day) and the days
  /// open as of the numbers' date.
  func aging(_ flow: FlowReport, from file: String, limit: Int = .max) -> MustacheValue {
    let links = todoLinks(from: file, folder: nil)
    let todos: [MustacheValue] = flow.aging.prefix(limit).compactMap { entry in
      guard let position = position(ofPK: entry.pk) else { return nil }
      let priority = plan.todos.priority(position)
      let fields: Fields = [
        "url": .string(links.link(at: position)),
        "title": .string(title(of: .todo(position))),
        "level": .string(Self.level(priority)),
        "priority": .string(labels.priority(priority)),
        "since": entry.firstDate.map(MustacheValue.string) ?? false,
        "sinceText": entry.firstDate.map { .string(labels.date(iso: $0)) } ?? false,
        "days": entry.days.map { .int(Int64($0)) } ?? false,
        "hasDays": .bool(entry.days != nil),
      ]
      return .computed(fields)
    }
    var aging: [String: MustacheValue] = [
      "todos": .array(todos), "hasTodos": .bool(!todos.isEmpty),
    ]
    if !todos.isEmpty, let date = flow.date.map({ String($0.prefix(10)) }) {
      aging["countedTo"] = .string(countedToHTML(date))
    }
    return .object(aging)
  }

  /// The `flowDaysTo` label as HTML, its `{date}` a `<time>` of `date` that `assets/flow.js`
  /// makes the reader's day (in the `date` label's format) when it counts the days open to it.
  func countedToHTML(_ date: String) -> String {
    let marker = "\u{0}"
    let parts = labels.format("flowDaysTo", ["date": marker]).components(separatedBy: marker)
    let time =
      "<time datetime=\"\(date)\" data-today data-format=\"\(RowStrings.escaped(labels["date"]))\">"
      + RowStrings.escaped(labels.date(iso: date)) + "</time>"
    return parts.map(RowStrings.escaped).joined(separator: time)
  }

  /// The position in index order of the to-do with `pk`: a binary search of the pk order.
  func position(ofPK pk: Int64) -> Int? {
    let order = plan.todoPositionsByPK
    var low = order.startIndex
    var high = order.endIndex
    while low < high {
      let middle = order.index(low, offsetBy: order.distance(from: low, to: high) / 2)
      if plan.todos.pk(order[middle]) < pk {
        low = order.index(after: middle)
      } else {
        high = middle
      }
    }
    return low < order.endIndex && plan.todos.pk(order[low]) == pk ? order[low] : nil
  }

  // MARK: - report.html

  /// What `report.html` adds: `charts` (as on the first page), `burnup` (as on `flow.html`),
  /// `due` (the open to-dos due first, overdue ones marked), `aging` (the oldest open ones),
  /// and `latestChanges`.
  func addReport(file: String, to context: PageValues) {
    context["charts"] = charts(from: file)
    if let flow = changes?.flow {
      context["burnup"] = burnup(flow)
      context["aging"] = aging(flow, from: file, limit: Self.reportTodos)
    }
    if let changes { context["latestChanges"] = latestChanges(changes, from: file) }
    context["due"] = dueFirst(from: file)
  }

  /// `due`: the open to-dos with the earliest due dates (a date, or a date-time's day), by due
  /// day then index order; each `overdue` as of the build's date, which a script makes the
  /// reader's day (`data-due`).
  func dueFirst(from file: String) -> MustacheValue {
    guard plan.hasDueDates else { return .object(["todos": .array([]), "hasTodos": false]) }
    let todos = plan.todos
    var first: [(day: String, position: Int)] = []
    for position in 0..<todos.count where !todos.isComplete(position) {
      guard let due = todos.due(position), let day = ICalendar.day(due)?.start else { continue }
      if first.count == Self.reportTodos, let last = first.last, last.day <= day { continue }
      let place = first.firstIndex { $0.day > day } ?? first.count
      first.insert((day, position), at: place)
      if first.count > Self.reportTodos { first.removeLast() }
    }
    let links = todoLinks(from: file, folder: nil)
    let values: [MustacheValue] = first.map { entry in
      let day = entry.day
      let priority = todos.priority(entry.position)
      let fields: Fields = [
        "url": .string(links.link(at: entry.position)),
        "title": .string(title(of: .todo(entry.position))),
        "level": .string(Self.level(priority)),
        "priority": .string(labels.priority(priority)),
        "due": .string(day),
        "dueText": .string(labels.date(iso: day)),
        "overdue": .bool(strings.isOverdue(todos[entry.position])),
      ]
      return .computed(fields)
    }
    return .object(["todos": .array(values), "hasTodos": .bool(!values.isEmpty)])
  }
}
