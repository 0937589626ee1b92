import Mustache

extension PageContext {
  // MARK: - calendar.html

  /// To-dos listed on one day of `calendar.html`; the rest are counted (`more`).
  static let calendarPerDay = 5
  /// Months `calendar.html` shows at most (those with a due to-do, from the first).
  static let calendarMonths = 24

  /// What `calendar.html` adds: `months` (each month with an open to-do due in it, as weeks of
  /// days from Monday), `weekdays`, `overdue`, `later` (to-dos due after the months shown),
  /// `calendars` (the whole calendar and one per priority, by link).
  func addCalendar(file: String, to context: PageValues) {
    let todos = plan.todos
    // The open to-dos with a real due date, by day, in index order within a day.
    var byDay: [String: [Int]] = [:]
    for position in todos.indices where !todos.isComplete(position) {
      guard let due = todos.due(position), let day = ICalendar.day(due)?.start else { continue }
      byDay[day, default: []].append(position)
    }
    let monthKeys = Set(byDay.keys.map { String($0.prefix(7)) }).sorted()
    let shown = Array(monthKeys.prefix(Self.calendarMonths))
    let weekdays = labels["weekdays"].split(separator: ",").map { String($0) }
    let monthNames = labels["monthNames"].split(separator: ",").map { String($0) }
    var overdue = 0
    var months: [MustacheValue] = []
    for key in shown {
      guard let year = Int(key.prefix(4)), let month = Int(key.suffix(2)) else { continue }
      let name = month <= monthNames.count ? monthNames[month - 1] : String(month)
      let title = labels.format("monthTitle", ["month": name, "year": String(year)])
      var weeks: [MustacheValue] = []
      var days: [MustacheValue] = []
      let first = Self.weekday(year: year, month: month, day: 1)
      for _ in 0..<first {
        days.append(.object(["inMonth": false]))
      }
      let length = Self.days(inMonth: month, year: year)
      for day in 1...length {
        let date = key + "-" + (day < 10 ? "0\(day)" : "\(day)")
        let positions = byDay[date] ?? []
        var items: [MustacheValue] = []
        for position in positions.prefix(Self.calendarPerDay) {
          let todo = todos[position]
          let isOverdue = strings.isOverdue(todo)
          items.append(
            .object([
              "url": .string(
                plan.routes.link(to: "todos/" + todos.pageName(position), fromFile: file)),
              "title": .string(todo.text.isEmpty ? "\(labels["task"]) \(todo.keyText)" : todo.text),
              "priority": strings.priority(todo.priority),
              "overdue": .bool(isOverdue),
            ]))
        }
        overdue += positions.filter { strings.isOverdue(todos[$0]) }.count
        var value: [String: MustacheValue] = [
          "inMonth": true, "day": .int(Int64(day)), "date": .string(date),
          "dateText": .string(labels.date(iso: date)),
          "weekday": .string(weekdays.count == 7 ? weekdays[(first + day - 1) % 7] : ""),
          "todos": .array(items), "hasTodos": .bool(!items.isEmpty),
          "count": .int(Int64(positions.count)),
          "isToday": .bool(strings.today == date),
        ]
        let more = positions.count - items.count
        if more > 0 {
          value["more"] = .object(["label": .string(labels.format("andMore", ["count": "\(more)"]))]
          )
        }
        days.append(.object(value))
        if days.count == 7 {
          weeks.append(.object(["days": .array(days)]))
          days = []
        }
      }
      if !days.isEmpty {
        while days.count < 7 { days.append(.object(["inMonth": false])) }
        weeks.append(.object(["days": .array(days)]))
      }
      months.append(
        .object([
          "title": .string(title), "id": .string("month-" + key), "weeks": .array(weeks),
        ]))
    }
    // Overdue to-dos in months not shown count too.
    for (day, positions) in byDay where !shown.contains(String(day.prefix(7))) {
      overdue += positions.filter { strings.isOverdue(todos[$0]) }.count
    }
    let laterCount = byDay.filter { !shown.contains(String($0.key.prefix(7))) }
      .reduce(0) { $0 + $1.value.count }
    context["months"] = .array(months)
    context["hasMonths"] = .bool(!months.isEmpty)
    context["weekdays"] = .array(weekdays.map { .string($0) })
    if overdue > 0 {
      context["overdue"] = .object([
        "count": .int(Int64(overdue)),
        "label": .string(labels.format("overdueCount", ["count": "\(overdue)"])),
      ])
    }
    if laterCount > 0 {
      context["later"] = .object([
        "label": .string(labels.format("andMore", ["count": "\(laterCount)"]))
      ])
    }
    var calendars: [MustacheValue] = [
      .object([
        "label": .string(labels["allPriorities"]),
        "url": .string(calendarLink("calendar.ics", file)),
      ])
    ]
    for list in plan.lists where list.kind == .priority {
      let label =
        list.key == "other" ? labels["otherPriorities"] : labels.priority(list.priority ?? .none)
      calendars.append(
        .object([
          "label": .string(label),
          "url": .string(calendarLink("calendar-\(list.key).ics", file)),
        ]))
    }
    context["calendars"] = .array(calendars)
  }

  /// The link to a calendar file: `webcal:` for an https site, else relative.
  func calendarLink(_ name: String, _ file: String) -> String {
    if let baseURL, baseURL.hasPrefix("https://") {
      let base = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
      return "webcal://" + base.dropFirst("https://".count) + name
    }
    return plan.routes.asset(name, fromFile: file)
  }

  /// The day of the week of a date, 0 for Monday (`CivilDate`).
  static func weekday(year: Int, month: Int, day: Int) -> Int {
    CivilDate.weekday(CivilDate.dayNumber(year: year, month: month, day: day))
  }

  /// The days of `month` in `year` (`CivilDate`).
  static func days(inMonth month: Int, year: Int) -> Int {
    CivilDate.days(inMonth: month, year: year)
  }
}
