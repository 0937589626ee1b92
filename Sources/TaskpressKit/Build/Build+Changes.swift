import Foundation
import Mustache

extension Build {
  /// The sources whose changes a build of `options` records.
  static func comparedSources(_ options: BuildOptions) -> Set<Change.Source> {
    var sources: Set<Change.Source> = []
    if options.todos != nil { sources.insert(.todos) }
    if options.possessions != nil { sources.insert(.possessions) }
    if options.contacts != nil { sources.insert(.contacts) }
    return sources
  }

  /// The previous build: `--previous`, or the site in the output folder.
  /// With `recordsHeader`, the state folder's records are read only under that header (the
  /// records in force for the manifest, `OutputWriter.recordsHeader`); without, under the one
  /// its index names.
  static func readPrevious(
    _ options: BuildOptions, recordsHeader: [UInt8]?? = nil
  ) throws -> PreviousBuild {
    let site = OutputWriter.trimmed(options.previous ?? options.output)
    return try PreviousBuild.read(
      site: site, state: OutputWriter.stateFolder(ofOutput: site),
      sources: comparedSources(options), explicit: options.previous != nil,
      copyReader: options.renderPaths.contains(.copyReader),
      recordedCopy: options.renderPaths.contains(.recordedCopy), recordsHeader: recordsHeader)
  }

  /// The date a build records: `--date`, else `SOURCE_DATE_EPOCH`, else now.
  static func buildDate(_ options: BuildOptions, sourceDateEpoch: String?) -> String {
    givenDate(options, sourceDateEpoch: sourceDateEpoch) ?? BuildDate.now()
  }

  /// The date a build was given: `--date`, else `SOURCE_DATE_EPOCH`; nil for an undated build.
  static func givenDate(_ options: BuildOptions, sourceDateEpoch: String?) -> String? {
    if let date = options.date { return date }
    if let epoch = sourceDateEpoch.flatMap({ Int64($0.trimmingCharacters(in: .whitespaces)) }) {
      return BuildDate.format(epoch)
    }
    return nil
  }

  /// Each to-do's history as this build carries it on, made before the pages from the to-dos'
  /// changes alone (the other sources are compared after the pages): the to-dos' pages show
  /// it. Its to-dos, first builds and events are those `ChangeReport.make` records (the file
  /// also lists builds that changed only possessions or contacts, and drops what the history
  /// limit drops). `date` is the one this build records, `givenDate` the one a first build
  /// records (as `ChangeReport.make` has them).
  static func timelines(
    previous: PreviousBuild, plan: SitePlan, labels: Labels, inKeyOrder: Bool,
    date: () -> String, givenDate: String?
  ) -> TodoHistory {
    var changes: [Change] = []
    if let compared = previous.comparedTodos {
      changes = compared.changes
    } else if let old = previous.todos {
      changes = ChangeDiff.todos(
        old, plan.todos, at: plan.todoPositionsByPK, labels: labels, inKeyOrder: inKeyOrder)
    }
    var history = previous.history?.builds ?? []
    if history.isEmpty {
      history = [
        HistoryEntry(
          build: 1, date: previous.isEmpty ? givenDate : nil, changes: 0, todos: nil,
          possessions: nil, contacts: nil)
      ]
    }
    var number: Int?
    if !changes.isEmpty {
      let next = (history.last?.build ?? 1) + 1
      history.append(
        HistoryEntry(
          build: next, date: date(), changes: changes.count, todos: nil, possessions: nil,
          contacts: nil))
      number = next
    }
    return TodoHistory.carried(
      previous.todoHistory, history: history, number: number, changes: changes,
      current: plan.todoPositionsByPK.lazy.map { [todos = plan.todos] in todos.pk($0) },
      unknownFirst: previous.history?.builds.first?.build ?? 1)
  }

  /// Renders the pages that show the record of changes (the first index page and
  /// `changes.html`), once the photos are named, and adds `data/changes.json`,
  /// `data/history.json`, `data/todo-history.json`, `data/flow.json`, `feed.xml` and
  /// `feed.json`; returns the pages rendered.
  static func stageChangePages(
    _ report: ChangeReport, context: PageContext, renderer: PageRenderer, writer: OutputWriter,
    options: BuildOptions, labels: Labels
  ) throws -> [SitePlan.Page] {
    let plan = context.plan
    // A site without to-dos opens on its possession or contact list, rendered with the others.
    let front: [SitePlan.Page] = plan.frontPage == nil ? [.index(1)] : []
    let pages = front + (1...report.pageCount).map(SitePlan.Page.changes)
    let buffers = RenderBuffers()
    let output = RenderBuffer(capacity: 64 << 10)
    var ends: [Int] = []
    let files = pages.map(plan.file(of:))
    for (page, file) in zip(pages, files) {
      try renderer.render(page, file: file, context: context, appendingTo: output, buffers: buffers)
      ends.append(output.count)
    }
    try writer.add(files, contents: UnsafeRawBufferPointer(output.bytes), ends: ends)
    try writer.add("data/changes.json", bytes: report.changesJSON)
    try writer.add("data/history.json", bytes: report.historyJSON)
    if let history = report.todoHistory {
      // Streamed (the plain twin: made whole, then added), as the data copies are.
      if renderer.paths.contains(.streamedData) {
        let file = try writer.openFile("data/" + TodoHistory.fileName)
        try history.write(to: file.write)
        try writer.add(file)
      } else {
        try writer.add("data/" + TodoHistory.fileName, bytes: history.bytes)
      }
    }
    if let bytes = report.flowJSON {
      try writer.add("data/" + FlowReport.fileName, bytes: bytes)
    }
    try writer.add(
      "feed.xml",
      bytes: AtomFeed.xml(
        report, labels: labels, lang: options.locale.rawValue,
        siteTitle: options.title ?? labels["siteTitle"], routes: plan.routes,
        baseURL: options.baseURL))
    try writer.add(
      "feed.json",
      bytes: JSONFeed.json(
        report, labels: labels, lang: options.locale.rawValue,
        siteTitle: options.title ?? labels["siteTitle"], routes: plan.routes,
        baseURL: options.baseURL))
    return pages
  }

  /// The snapshot, for the state folder, of each source whose data copies are not published
  /// (the next build compares with it), and nil for the others (whose snapshot is dropped):
  /// records the commit writes (`StateRecords`).
  static func snapshots(
    _ options: BuildOptions, plan: SitePlan, photoFiles: [Int64: PageContext.PhotoFile],
    strings: RowStrings
  ) -> [(name: String, bytes: [UInt8]?)] {
    Change.Source.allCases.map { source in
      let name = PreviousBuild.snapshotName(source)
      let given = comparedSources(options).contains(source)
      guard given, !options.dataCopies.contains(BuildOptions.DataSource(source)) else {
        return (name, nil)
      }
      let export: ByteBuffer
      switch source {
      case .todos: export = DataExport.todosJSON(Array(plan.todosByPK), strings: strings)
      case .possessions:
        export = DataExport.possessionsJSON(plan.possessions, photoFiles: photoFiles)
      case .contacts: export = DataExport.contactsJSON(plan.contacts.sorted { $0.id < $1.id })
      }
      return (name, Array(export.bytes))
    }
  }
}

extension BuildOptions.DataSource {
  init(_ source: Change.Source) {
    switch source {
    case .todos: self = .todos
    case .possessions: self = .possessions
    case .contacts: self = .contacts
    }
  }
}
