import Mustache

extension PageContext {
  // MARK: - Filtered lists

  /// The label of the list at `index` of `plan.lists`: `In Progress`, `High`, `Other
  /// priorities`.
  func listLabel(_ index: Int) -> String {
    let list = plan.lists[index]
    switch (list.kind, list.key) {
    case (.status, "complete"): return labels["complete"]
    case (.status, _): return labels["inProgress"]
    case (.priority, "other"): return labels["otherPriorities"]
    case (.priority, _): return labels.priority(list.priority ?? .none)
    }
  }

  /// The title of a list's pages: `Status: Complete`, `Priority: High`.
  func listTitle(_ index: Int) -> String {
    let kind = plan.lists[index].kind == .status ? labels["status"] : labels["priority"]
    return "\(kind): \(listLabel(index))"
  }

  /// A list as templates see it, linked from `file`; with its `count` on a summary page only
  /// (`withCount`): a page that shows a site-wide count changes whenever a to-do moves
  /// between lists.
  func listValue(_ index: Int, from file: String, current: Int? = nil, withCount: Bool)
    -> MustacheValue
  {
    let list = plan.lists[index]
    var fields: Fields = [
      "kind": .string(list.kind.rawValue),
      "key": .string(list.key),
      "label": .string(listLabel(index)),
      "title": .string(listTitle(index)),
      "url": .string(plan.routes.link(to: list.name(page: 1), fromFile: file)),
      "current": .bool(index == current),
    ]
    if withCount { fields["count"] = .int(Int64(list.count)) }
    return .computed(fields)
  }

  /// `lists.status` and `lists.priority`: every filtered list, linked from `file`, with their
  /// counts on a summary page only (`withCounts`).
  func listLinks(from file: String, current: Int? = nil, withCounts: Bool) -> MustacheValue {
    func of(_ kind: SitePlan.TodoList.Kind) -> MustacheValue {
      .array(
        plan.lists.indices.filter { plan.lists[$0].kind == kind }.map {
          listValue($0, from: file, current: current, withCount: withCounts)
        })
    }
    return .object(["status": of(.status), "priority": of(.priority)])
  }

  // MARK: - The board

  /// A board column: the first `boardLimit` to-dos of a status's list, then how many more
  /// there are and the link to the whole list.
  func column(_ index: Int, from file: String) -> MustacheValue {
    let list = plan.lists[index]
    let links = todoLinks(from: file, folder: folderValues(of: file))
    let items = TodoListValues(links: links)
    let shown = min(list.count, plan.boardLimit)
    let url = plan.routes.link(to: list.name(page: 1), fromFile: file)
    var column: [String: MustacheValue] = [
      "key": .string(list.key), "label": .string(listLabel(index)),
      "count": .int(Int64(list.count)), "url": .string(url),
      "todos": .list(MustacheList(count: shown) { items.value(at: list.position($0)) }),
    ]
    if list.count > shown {
      let more = list.count - shown
      column["more"] = .object([
        "count": .int(Int64(more)), "url": .string(url),
        "label": .string(labels.format("andMore", ["count": "\(more)"])),
      ])
    }
    return .object(column)
  }

  // MARK: - Charts

  /// The progress line (`charts.progress.summary`): "3 of 12 complete (25%)".
  var progressSummary: String {
    let total = plan.todos.count
    let complete = plan.completeCount
    return labels.format(
      "progressSummary",
      [
        "complete": "\(complete)", "total": "\(total)",
        "percent": "\(Chart.percent(complete, of: total))",
      ])
  }

  /// What the social card shows: the site's title, the counts, the progress line and the trend
  /// of the first page.
  var socialCardSummary: SocialCard.Summary {
    SocialCard.Summary(
      title: siteTitle, open: plan.todos.count - plan.completeCount, complete: plan.completeCount,
      trend: trendPoints, openLabel: labels["inProgress"], completeLabel: labels["complete"],
      progressSummary: progressSummary, trendTitle: labels["trend"])
  }

  /// The front page's charts: progress, counts by priority and status, the trend.
  func charts(from file: String) -> MustacheValue {
    let total = plan.todos.count
    let complete = plan.completeCount
    let percent = Chart.percent(complete, of: total)
    let summary = labels.format(
      "progressSummary", ["complete": "\(complete)", "total": "\(total)", "percent": "\(percent)"])
    var progress: [String: MustacheValue] = [
      "percent": .int(Int64(percent)), "complete": .int(Int64(complete)),
      "total": .int(Int64(total)), "summary": .string(summary),
      "svg": .string(
        Chart.progress(
          complete: complete, total: total, title: labels["progress"], description: summary)),
    ]
    if let change = changeSinceLast() { progress["change"] = .string(change) }
    var charts: [String: MustacheValue] = [
      "progress": .object(progress),
      "priority": priorityChart(from: file),
      "trend": trendChart(),
    ]
    if let flow = changes?.flow { charts["flow"] = flowSummary(flow) }
    return .object(charts)
  }

  /// The flow numbers in a line (`charts.flow`): the median cycle time, the to-dos completed
  /// the ISO week before the numbers' date, the days the oldest open to-do has been open.
  func flowSummary(_ flow: FlowReport) -> MustacheValue {
    let cycle = flow.cycleTime
    var fields: [String: MustacheValue] = [
      "cycleCount": .int(Int64(cycle.count)),
      "cycle": .string(
        cycle.median.map { median in
          labels.format(
            "flowCycle",
            [
              "median": "\(median)", "p85": "\(cycle.percentile85 ?? median)",
              "count": "\(cycle.count)",
            ])
        } ?? labels["flowCycleNone"]),
    ]
    let lastWeek = flow.throughput.count >= 2 ? flow.throughput[flow.throughput.count - 2] : nil
    let completed = lastWeek?.completed ?? 0
    fields["lastWeekCompleted"] = .int(Int64(completed))
    fields["lastWeek"] = .string(labels.format("flowLastWeek", ["count": "\(completed)"]))
    if let median = cycle.median { fields["median"] = .int(Int64(median)) }
    if let p85 = cycle.percentile85 { fields["percentile85"] = .int(Int64(p85)) }
    if let days = flow.aging.first?.days {
      fields["oldestDays"] = .int(Int64(days))
      fields["oldest"] = .string(
        labels.format(
          "flowOldest",
          [
            "days": "\(days)",
            "date": flow.date.map { labels.date(iso: String($0.prefix(10))) } ?? "",
          ]))
    }
    return .object(fields)
  }

  /// One row per priority list: its counts in progress and complete, as a bar scaled to the
  /// largest row, and the links to its list and the status lists.
  func priorityChart(from file: String) -> MustacheValue {
    let priorities = plan.lists.indices.filter { plan.lists[$0].kind == .priority }
    let counts = priorities.map { index in
      let list = plan.lists[index]
      var complete = 0
      for member in 0..<list.count where plan.todos.isComplete(list.position(member)) {
        complete += 1
      }
      return (inProgress: list.count - complete, complete: complete)
    }
    let scale = counts.map { $0.inProgress + $0.complete }.max() ?? 0
    let rows: [MustacheValue] = zip(priorities, counts).map { index, count in
      let label = listLabel(index)
      let description = labels.format(
        "chartRow",
        [
          "priority": label, "inProgress": "\(count.inProgress)", "complete": "\(count.complete)",
        ])
      let row: Fields = [
        "label": .string(label),
        "level": .string(plan.lists[index].key),
        "url": .string(plan.routes.link(to: plan.lists[index].name(page: 1), fromFile: file)),
        "inProgress": .int(Int64(count.inProgress)),
        "complete": .int(Int64(count.complete)),
        "total": .int(Int64(count.inProgress + count.complete)),
        "description": .string(description),
        "svg": .string(
          Chart.bar(
            [("in-progress", count.inProgress), ("complete", count.complete)], scale: scale,
            title: label, description: description)),
      ]
      return .computed(row)
    }
    return .object(["rows": .array(rows)])
  }

  /// The change between the last two recorded builds, in the `changeSinceLast` label
  /// (`+14 completed, +2 added since the last build: 43% → 50% complete`); nil with fewer.
  func changeSinceLast() -> String? {
    let points = trendPoints
    guard points.count >= 2 else { return nil }
    let before = points[points.count - 2]
    let after = points[points.count - 1]
    func signed(_ value: Int) -> String { value > 0 ? "+\(value)" : value < 0 ? "−\(-value)" : "0" }
    return labels.format(
      "changeSinceLast",
      [
        "completed": signed(after.complete - before.complete),
        "added": signed(after.open + after.complete - before.open - before.complete),
        "before": "\(Chart.percent(before.complete, of: before.open + before.complete))",
        "after": "\(Chart.percent(after.complete, of: after.open + after.complete))",
      ])
  }

  /// The labels under the trend's axis: every point's when there are at most
  /// `axisLabels`, else the first, the last and evenly spaced ones between.
  func trendAxis(_ points: [TrendPoint]) -> [String] {
    let limit = Self.axisLabels
    guard points.count > limit else { return points.map(trendLabel) }
    return (0..<limit).map { points[$0 * (points.count - 1) / (limit - 1)] }.map(trendLabel)
  }

  /// The most labels under the trend's axis (each is a date, some 6rem wide).
  static let axisLabels = 5

  /// A trend point's label: its date, else its build's number, else "This build".
  func trendLabel(_ point: TrendPoint) -> String {
    if let date = point.date { return labels.date(iso: date) }
    if let build = point.build { return labels.format("buildNumber", ["n": "\(build)"]) }
    return labels["thisBuild"]
  }

  /// The trend of the recorded builds (`history`), oldest first.
  func trendChart() -> MustacheValue {
    var descriptions: [String] = []
    let history = trendPoints
    let points: [MustacheValue] = history.map { point in
      let date = trendLabel(point)
      let description = labels.format(
        "trendPoint",
        ["date": date, "inProgress": "\(point.open)", "complete": "\(point.complete)"])
      descriptions.append(description)
      var fields: Fields = [
        "label": .string(date), "inProgress": .int(Int64(point.open)),
        "complete": .int(Int64(point.complete)),
      ]
      if let iso = point.date { fields["date"] = .string(iso) }
      return .computed(fields)
    }
    return .object([
      "points": .array(points),
      "count": .int(Int64(points.count)),
      "hasMany": .bool(points.count > 1),
      "axis": .array(trendAxis(history).map { .object(["label": .string($0)]) }),
      "first": .string(history.first.map(trendLabel) ?? labels["thisBuild"]),
      "last": .string(history.last.map(trendLabel) ?? labels["thisBuild"]),
      "svg": .string(
        Chart.trend(
          history, title: labels["trend"], description: descriptions.joined(separator: "; "))),
    ])
  }
}
