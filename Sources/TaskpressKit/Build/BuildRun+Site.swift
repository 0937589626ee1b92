import Foundation
import Mustache

extension Build.BuildRun {
  /// Stages the site: everything that needs the plan or the previous build's rows, which are
  /// let go of when this returns, before the commit, with the contexts and fingerprints that
  /// hold them (a million to-dos' rows and lists are about 90 MB). In order: the pages and data
  /// copies; the photos' warnings and record; the changes' pages; calendar, flow and report;
  /// the social card; the theme's assets, the sitemap, the calendar file, the search index and
  /// `robots.txt`; the records of the rows and the plan. Returns what the pages staged, whose
  /// fingerprints are made into their record once the plan is let go of.
  func stageSite(_ planned: consuming Build.Planned) throws -> Build.StagedPages {
    let (plan, previous) = (planned.plan, planned.previous)
    let renderer = prepared.renderer
    // The pages; then the timelines and the fingerprints are let go of (the to-dos' pages
    // alone show the timelines), before the change report makes its own history.
    let staged = try stagePages(
      plan, timelines: planned.timelines.take(),
      startsTodoHistories: planned.startsTodoHistories)
    let labels = prepared.labels
    let photoFiles = staged.photoFiles
    summary.rendered = staged.rendered
    summary.photos = Set(photoFiles.values.map(\.path)).count
    try recordPhotos(photoFiles)

    // The changes since the previous build, and the pages that show them.
    let report = ChangeReport.make(
      previous: previous, plan: plan, photoFiles: photoFiles, labels: labels,
      date: date,
      givenDate: Build.givenDate(options, sourceDateEpoch: sourceDateEpoch),
      limit: options.historyLimit, baseURL: options.baseURL,
      inKeyOrder: renderer.paths.contains(.keyOrderDiff))
    var changesContext = pageContext(plan, photoFiles: photoFiles)
    changesContext.changes = report
    let changePages = try Build.stageChangePages(
      report, context: changesContext, renderer: renderer, writer: writer, options: options,
      labels: labels)
    // calendar.html: the open to-dos' due dates, when they have any.
    var calendarPages: [SitePlan.Page] = []
    if plan.hasTodos, plan.hasDueDates {
      let file = plan.file(of: .calendar)
      let output = RenderBuffer(capacity: 64 << 10)
      try renderer.render(
        .calendar, file: file, context: changesContext, appendingTo: output,
        buffers: RenderBuffers())
      try writer.add([file], contents: UnsafeRawBufferPointer(output.bytes), ends: [output.count])
      calendarPages = [.calendar]
    }
    // flow.html and report.html: the flow numbers, and the page to print.
    if plan.hasTodos, report.flow != nil {
      for page in [SitePlan.Page.flow, .report] {
        let file = plan.file(of: page)
        let output = RenderBuffer(capacity: 64 << 10)
        try renderer.render(
          page, file: file, context: changesContext, appendingTo: output,
          buffers: RenderBuffers())
        try writer.add(
          [file], contents: UnsafeRawBufferPointer(output.bytes), ends: [output.count])
        calendarPages.append(page)
      }
    }
    summary.pages += changePages.count + calendarPages.count
    if cardImage != nil {
      let card = try Build.stageSocialCard(
        changesContext.socialCardSummary, writer: writer,
        recorded: renderer.paths.contains(.recordedCard) ? lastBuild.records : nil)
      (records.card, summary.socialCardRendered) = (card.record, card.rendered)
      if let warning = card.warning {
        reporter.warning(warning)
        summary.warnings += 1
      }
    }
    summary.rendered += changePages.count + calendarPages.count

    try stageFiles(plan, adding: changePages.filter { $0 != .index(1) } + calendarPages)
    // The rows and the plan are not needed past here.
    records.snapshots = Build.snapshots(
      options, plan: plan, photoFiles: photoFiles, strings: changesContext.strings)
    return staged
  }

  /// The context every page of this build renders with, but the changes and timelines: the
  /// options, labels and date, the photos' files and the social card.
  private func pageContext(
    _ plan: SitePlan, photoFiles: [Int64: PageContext.PhotoFile]
  ) -> PageContext {
    var context = PageContext(
      plan: plan, labels: prepared.labels, lang: options.locale.rawValue,
      baseURL: options.baseURL, generated: prepared.generated, photoFiles: photoFiles,
      title: options.title, noindex: options.noindex, dataCopies: options.dataCopies,
      csvByteOrderMark: options.csvByteOrderMark, search: options.search,
      markdown: options.markdown)
    context.socialCardImage = cardImage
    return context
  }

  /// Stages every page but those `stageSite` renders with the changes (the first index page),
  /// and the data copies, in parallel, while the photos (named by their content, each written
  /// once) are finished on their own thread; then keeps what the records of the rows are made
  /// of (`records.rows`, `records.todoCopy`). The timelines and the pages' fingerprints are
  /// let go of when this returns.
  private func stagePages(
    _ plan: SitePlan, timelines: consuming TodoHistory?, startsTodoHistories: Bool
  ) throws -> Build.StagedPages {
    let timelines = timelines
    let (theme, labels, renderer, generated) = (
      prepared.theme, prepared.labels, prepared.renderer, prepared.generated
    )
    let (options, writer, cardImage) = (options, writer, cardImage)
    // The first index page shows the latest changes: it is rendered with `changes.html`, once
    // the photos (which the changes compare) are named.
    let pages = plan.pages.filter { $0 != .index(1) }
    summary.pages = pages.count
    // A file for each page and photo, and a few more; paths of about 20 bytes.
    let files = pages.count + plan.possessions.count + theme.assets.count + 16
    writer.reserveCapacity(files: files, pathBytes: files * 20)
    // The pages whose inputs did not change since the build that wrote the site are kept.
    let fingerprints = PageFingerprints(
      plan: plan, theme: theme, labels: labels, options: options, generated: generated,
      sourceDateEpoch: sourceDateEpoch, key: writer.hashKey, timelines: timelines,
      startsTodoHistories: startsTodoHistories, socialCard: cardImage != nil)
    threads.checking.wait()
    let last =
      threads.lastPages.withLock { $0.take() }
      ?? LastPages(lastBuild.records, writer: writer, paths: renderer.paths)
    let staged = try Build.stagePages(
      pages, plan: plan, renderer: renderer, theme: theme, writer: writer,
      staging: threads.staging,
      makeContext: { [self] photoFiles in
        var context = pageContext(plan, photoFiles: photoFiles)
        context.timelines = timelines
        return context
      },
      fingerprints: fingerprints, last: consume last, jobs: prepared.jobs, interrupt: interrupt,
      reporter: reporter)
    // The records of the rows are made by the commit, from arrays that outlive the plan:
    // their bytes and the plan's texts are never held at once.
    if renderer.paths.contains(.incremental), plan.hasTodos {
      records.rows = RowRecord(layout: fingerprints.todoLayout, rows: fingerprints.shownRows)
    }
    records.todoRowHashes = fingerprints.todoRows
    if plan.hasTodos, options.dataCopies.contains(.todos) {
      records.todoCopy = TodoCopyRows(
        pks: plan.todos.pkColumn, order: plan.todoOrderByPK, hashes: fingerprints.todoRows)
    }
    Build.freeInBackground(consume pages)
    return staged
  }

  /// Once the photos are published: checks the possessions' snapshot, reports the photos'
  /// warnings (they need decoding) and records them with the sources' warnings, for a rebuild
  /// that reads nothing, and with the photos, for a rebuild that reads the databases but not
  /// the photos.
  private func recordPhotos(_ photoFiles: [Int64: PageContext.PhotoFile]) throws {
    // The photos are read: the possessions' snapshot must have been one state of the file.
    try threads.possessionSource?.checkSnapshot()
    let (photoProblems, decoded) = threads.photoWarnings.withLock { $0 }
    summary.photosDecoded = decoded
    summary.photoSeconds = threads.photoSeconds.withLock { $0 }
    for warning in photoProblems {
      reporter.warning(warning)
    }
    summary.warnings += photoProblems.count
    sourceWarnings += photoProblems
    records.photos =
      threads.reusedPhotos.withLock { $0 }
      ?? photosKey.map {
        PhotoRecord(
          key: $0,
          photos: photoFiles.mapValues {
            PublishedPhoto(renditions: $0.renditions, avif: $0.avif)
          },
          warnings: photoProblems)
      }
    records.renditions = threads.renditionSources.withLock { $0 }
    if options.strict, !photoProblems.isEmpty {
      let count = summary.warnings == 1 ? "1 warning" : "\(summary.warnings) warnings"
      throw BuildError("\(count) and --strict is set; the site was not changed")
    }
  }

  /// Stages the files beside the pages: the theme's assets, the sitemap (listing `pages` too),
  /// the calendar file, the site-wide search's index and `robots.txt`; then stops if the build
  /// was interrupted.
  private func stageFiles(_ plan: SitePlan, adding pages: [SitePlan.Page]) throws {
    for asset in prepared.theme.assets {
      try writer.add(asset.path, bytes: asset.contents)
    }
    if let baseURL = options.baseURL {
      let sitemaps = plan.sitemapFiles(
        baseURL: baseURL, adding: pages, limits: options.sitemapLimits)
      for (path, bytes) in sitemaps {
        try writer.add(path, bytes: bytes)
      }
    }
    if plan.hasTodos, plan.hasDueDates {
      let siteTitle = options.title ?? prepared.labels["siteTitle"]
      let calendar = ICalendar(
        plan: plan, labels: prepared.labels, siteTitle: siteTitle, baseURL: options.baseURL)
      let previous = FileManager.default.contents(
        atPath: OutputWriter.trimmed(options.previous ?? options.output) + "/calendar.ics")
      let stamp = Build.buildDate(options, sourceDateEpoch: sourceDateEpoch)
      for (path, bytes) in calendar.files(previous: previous.map(Array.init), stamp: stamp) {
        try writer.add(path, bytes: bytes)
      }
    }
    // The site-wide search's index: a changed row rewrites its shard and the directory. The
    // shards whose rows are those the last build recorded are kept as it left them.
    if options.search {
      // Each shard is written as it is finished (a million to-dos' rows are ~100 MB).
      let writer = writer
      let recorded =
        prepared.renderer.paths.contains(.recordedSearch) ? lastBuild.records.search() : nil
      let index = try SearchIndex(
        plan: plan, labels: prepared.labels, contacts: plan.hasContacts, key: writer.hashKey,
        todoRows: records.todoRowHashes.take(), recorded: recorded,
        keep: { try writer.keep($0) }, shard: { try writer.add($0, bytes: $1) })
      try writer.add("search/index.js", bytes: index.indexFile())
      records.search = index.record.bytes
      summary.searchShardsMade = index.shardsMade
    }
    if options.noindex {
      try writer.add("robots.txt", bytes: Array("User-agent: *\nDisallow: /\n".utf8))
    } else if let baseURL = options.baseURL {
      try writer.add("robots.txt", bytes: Sitemap.robots(baseURL: baseURL))
    }
    if interrupt.isSet {
      throw OutputError(path: writer.root, reason: OutputError.interrupted)
    }
  }

  /// Commits the staged site with the records for the next build (`fingerprints`, the pages'
  /// record, made once the plan was let go of): written by the commit, tied to its manifest,
  /// before the folder is unlocked.
  func commit(fingerprints: [UInt8]) throws {
    records.fingerprints = fingerprints
    #if canImport(Glibc)
      // The plan's pages are free now: back to the system before the commit sorts the paths.
      _ = systemMallocTrim(0)
    #endif
    summary.phases.append(.init("render", Build.seconds(since: started)))

    var state = StateRecords()
    for (name, bytes) in records.snapshots { state.set(name, bytes) }
    state.set(FingerprintRecord.fileName, records.fingerprints)
    state.set(RowRecord.fileName, records.rows.take()?.bytes)
    if let photoRecord = records.photos { state.set(PhotoRecord.fileName, photoRecord.bytes) }
    state.set(RenditionSources.fileName, records.renditions)
    state.set(Build.cardRecordName, records.card)
    state.set(SearchRecord.fileName, records.search)
    if let rows = records.todoCopy.take() {
      // Its identity is the committed copy's, taken by the commit.
      state.todoCopy = (rows.bytes, "data/todos.json")
    }
    state.set(
      OutputWriter.inputsName,
      Array(
        InputsRecord(
          key: inputs, pages: summary.pages, photos: summary.photos,
          sourceWarnings: sourceWarnings
        ).text.utf8))
    writer.setRecords(state)
    let output = try writer.commit()
    summary.phases.append(.init("commit", Build.seconds(since: started)))
    summary.written = output.written
    summary.unchanged = output.unchanged
    summary.removed = output.removed
    summary.repaired = output.repaired
    summary.foundAtFirstBuild = output.foundBeside
    summary.writtenPaths = output.writtenPaths
    summary.removedPaths = output.removedPaths
    summary.outputProblems = output.warnings
    summary.commitSteps = output.commitSteps
    summary.filesRehashed = writer.filesRehashed
  }
}
