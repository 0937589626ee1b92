import Mustache

extension PageContext {
  // MARK: - A to-do's timeline

  /// `timeline` of a to-do's page: the build that first saw it and each later change of it
  /// (`TodoHistory`), oldest first, each with its build's date and a link to the build on
  /// `changes.html` (`changes.html#build-3`; the first page of changes holds an anchor for
  /// every build a timeline names). The first build of the site, which compared with nothing,
  /// has no link.
  func timeline(ofTodoAt position: Int, from file: String) -> MustacheValue {
    guard let history = timelines, let index = history.index(ofPK: plan.todos.pk(position))
    else { return .array([]) }
    let changesURL = plan.routes.link(to: "changes", fromFile: file)
    func entry(_ key: String, kind: String, build: Int) -> MustacheValue {
      let date = history.date(ofBuild: build)
      let fields: Fields = [
        "kind": .string(kind),
        "label": .string(labels[key]),
        "build": .int(Int64(build)),
        "title": .string(labels.format("buildNumber", ["n": "\(build)"])),
        "date": date.map(MustacheValue.string) ?? false,
        "dateText": date.map { .string(labels.date(iso: String($0.prefix(10)))) } ?? false,
        "url": build > 1 ? .string(changesURL + "#build-\(build)") : false,
      ]
      return .computed(fields)
    }
    var entries = [entry("timelineAdded", kind: "added", build: history.first(index))]
    for event in history.events(index) where event.kind != .removed {
      entries.append(
        entry(
          Self.timelineLabelKeys[Int(event.kind.rawValue)], kind: event.kind.name,
          build: event.build))
    }
    return .array(entries)
  }

  /// The label of each kind of event, by its raw value.
  static let timelineLabelKeys = [
    "timelineAdded", "timelineCompleted", "timelineReopened", "timelinePriority",
    "timelineText", "timelineRemoved", "timelineDue",
  ]

  /// `earlierBuilds` of the first page of `changes.html`: every build a to-do's timeline links
  /// to that the page does not list, each with the anchor the timelines link to and, while it
  /// is on a later page, a link there.
  func earlierBuilds(_ report: ChangeReport, from file: String) -> [MustacheValue] {
    guard let history = report.todoHistory else { return [] }
    let onFirst = Set(report.builds(onPage: 1).map(\.build))
    var pageOf: [Int: Int] = [:]
    for (index, build) in report.builds.enumerated() {
      pageOf[build.build] = report.page(ofBuildAt: index)
    }
    return
      history.builds.reversed().filter { $0.build > 1 && !onFirst.contains($0.build) }.map {
        entry in
        let page = pageOf[entry.build]
        let fields: Fields = [
          "build": .int(Int64(entry.build)),
          "anchor": .string("build-\(entry.build)"),
          "title": .string(labels.format("buildNumber", ["n": "\(entry.build)"])),
          "date": entry.date.map(MustacheValue.string) ?? false,
          "dateText": entry.date.map { .string(labels.date(iso: String($0.prefix(10)))) }
            ?? false,
          "url": page.map {
            .string(
              plan.routes.link(to: plan.name(of: .changes($0)), fromFile: file)
                + "#build-\(entry.build)")
          } ?? false,
        ]
        return .computed(fields)
      }
  }
}
