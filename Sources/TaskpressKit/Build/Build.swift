import Dispatch
import Foundation
import Mustache
import Synchronization

/// The build pipeline: read every source in a snapshot, plan the pages, render them in
/// parallel, then write the site in one commit (DESIGN §5).
public enum Build {
  /// Hooks through which a build reports while it runs; the CLI prints them.
  public struct Reporter: Sendable {
    /// A warning about the data, as soon as it is found.
    public var warning: @Sendable (BuildWarning) -> Void
    /// Pages rendered so far and in all, now and then while rendering.
    public var progress: @Sendable (_ done: Int, _ total: Int) -> Void

    /// Creates a reporter.
    public init(
      warning: @escaping @Sendable (BuildWarning) -> Void,
      progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) {
      self.warning = warning
      self.progress = progress
    }
  }

  /// Builds the site that `options` describe.
  ///
  /// Nothing in the output folder changes unless every page rendered: a failing build throws
  /// and leaves the previous site as it was.
  /// - Parameters:
  ///   - options: the merged options.
  ///   - sourceDateEpoch: `SOURCE_DATE_EPOCH`, the only way a date reaches the output.
  ///   - interrupt: set by SIGINT or SIGTERM; polled until the commit starts.
  ///   - busyTimeout: how long to wait for a database another program is writing.
  ///   - reporter: receives warnings and progress.
  /// - Returns: what was written, kept and removed.
  /// - Throws: ``BuildError``, ``SourceError``, ``ThemeError``, `TemplateError`, ``OutputError``.
  public static func run(
    _ options: BuildOptions, sourceDateEpoch: String? = nil,
    interrupt: InterruptFlag = .process, busyTimeout: Duration = .seconds(5),
    reporter: Reporter
  ) throws -> BuildSummary {
    try run(
      options, sourceDateEpoch: sourceDateEpoch, interrupt: interrupt, busyTimeout: busyTimeout,
      reporter: reporter, commitStepLimit: nil)
  }

  /// What tests watch a build through: the photo thread calls `beforePhoto` before each photo
  /// (with a check of whether the build has told it to stop), and the build calls `aborted`
  /// right after the writer has thrown the staged files away.
  struct Probe: Sendable {
    var beforePhoto: @Sendable (_ isCancelled: () -> Bool) -> Void = { _ in }
    var aborted: @Sendable () -> Void = {}
    /// Called by the commit before it writes each record of the state folder, with its name;
    /// the folder is still locked (`OutputWriter.recordWritten`).
    var beforeRecord: @Sendable (String) -> Void = { _ in }
    /// Stops the commit after this many records, as if the process had been killed there
    /// (`OutputWriter.recordStepLimit`).
    var recordStepLimit: Int?
  }

  /// `run`, with the commit stopped after `commitStepLimit` renames as if the process had been
  /// killed there (tests only; see `OutputWriter.commitStepLimit`), and watched by `probe`.
  static func run(
    _ options: BuildOptions, sourceDateEpoch: String? = nil,
    interrupt: InterruptFlag = .process, busyTimeout: Duration = .seconds(5),
    reporter: Reporter, commitStepLimit: Int?, probe: Probe = Probe()
  ) throws -> BuildSummary {
    let started = ContinuousClock.now
    let theme = try Theme.load(overrides: options.templates)
    let (labels, labelWarnings) = try theme.labels(options.locale)
    // Every template is checked against the variables it can see before anything is read.
    var checker = TemplateCheck(theme: theme)
    let templateWarnings = try checker.run() + labelWarnings
    let generated = try sourceDateEpoch.map(isoDate(sourceDateEpoch:))
    let jobs = options.jobs ?? ProcessInfo.processInfo.activeProcessorCount
    // Every template is checked before anything is read or written.
    let renderer = try PageRenderer(theme: theme, paths: options.renderPaths)
    var settings = try PhotoSettings(theme: theme, options: options)
    // AVIF asked for where libvips cannot encode it: WebP alone, and a warning.
    let avifWarnings =
      options.possessions == nil ? [] : settings.withoutUnavailableAVIF { Vips.avifUnavailable }
    let photoSettings = settings
    let themeWarnings = templateWarnings + avifWarnings
    let photoCache = try options.photoCache.map {
      try PhotoCache(folder: $0, limit: options.photoCacheSize)
    }

    var summary = BuildSummary()
    // The key of the inputs is taken before the sources are opened: a database written after
    // this point gives the next build another key, so it never skips a change.
    let inputsDescription = inputsDescription(
      options, theme: theme, sourceDateEpoch: sourceDateEpoch)
    let historyLimit =
      " history-limit \(options.historyLimit)"
      + " sitemap \(options.sitemapLimits.urls) \(options.sitemapLimits.bytes)"

    // The to-dos are read on a thread of their own, and so, in a build that reads them early,
    // is the previous build (`LastBuild`). A build that fails waits for them before it returns.
    let todoResult = Mutex<Result<(todos: TodoRows, warnings: [BuildWarning]), any Error>?>(nil)
    let lastBuild = LastBuild(options)
    let reading = DispatchGroup()
    defer { reading.wait() }
    func startReadingTodos() {
      guard let path = options.todos else { return }
      DispatchQueue.global().async(group: reading) {
        let result = Result {
          let source = try TodoSource(
            path: path, mapping: options.mapping.todos, busyTimeout: busyTimeout)
          defer { source.close() }
          return try source.loadRows()
        }
        todoResult.withLock { $0 = result }
      }
    }
    // A build whose inputs are not the recorded ones (a guess, made before the output folder is
    // opened) reads its sources and the previous build whatever it finds there: it starts
    // reading the to-dos now, and the previous build once the folder is locked, while the
    // previous manifest is loaded. A build that may find nothing to do starts neither.
    let guessedInputs = OutputWriter.unverifiedKey(ofOutput: options.output).map {
      $0.hash(inputsDescription).hex + historyLimit
    }
    let readsEarly =
      options.previous != nil || guessedInputs == nil
      || OutputWriter.unverifiedInputs(ofOutput: options.output).map(InputsRecord.key(of:))
        != guessedInputs
    if readsEarly { startReadingTodos() }
    let writer = try OutputWriter(
      root: options.output, interrupt: interrupt,
      whenLocked: {
        guard readsEarly else { return }
        lastBuild.start(in: reading)
      })
    writer.commitStepLimit = commitStepLimit
    writer.recordStepLimit = probe.recordStepLimit
    writer.recordWritten = probe.beforeRecord
    writer.folderSwap = options.folderSwap
    // The key of the inputs, under the folder's key (known now), of what was taken above.
    let inputs = writer.hashKey.hash(inputsDescription).hex + historyLimit
    let previousRecord = writer.previousInputs().flatMap(InputsRecord.init)
    // What the last build left to keep its pages by, and which of its files changed: in a
    // build that reads its sources, looked at while they are read, else when the pages are
    // staged. The writer is not let go of (nor aborted) before this is done.
    let lastPages = Mutex<LastPages?>(nil)
    let checking = DispatchGroup()
    defer { checking.wait() }
    if readsEarly, renderer.paths.contains(.earlyFileCheck) {
      DispatchQueue.global().async(group: checking) {
        let found = LastPages(writer: writer, paths: renderer.paths)
        lastPages.withLock { $0 = found }
      }
    }

    /// Reports `warnings` (the theme's, then the sources') as a build that read them does.
    func report(_ warnings: [BuildWarning]) throws {
      for warning in warnings {
        reporter.warning(warning)
      }
      if options.strict, !warnings.isEmpty {
        let count = warnings.count == 1 ? "1 warning" : "\(warnings.count) warnings"
        throw BuildError("\(count) and --strict is set; the site was not changed")
      }
      summary.warnings = warnings.count
    }
    /// The summary of a build that found the site as the last one left it.
    func unchangedSummary(_ recorded: InputsRecord) -> BuildSummary {
      checking.wait()
      writer.recordIntactFiles()
      writer.abort()
      summary.unchanged = writer.previousFileCount
      summary.filesRehashed = writer.filesRehashed
      summary.pages = recorded.pages
      summary.photos = recorded.photos
      summary.seconds = seconds(since: started)
      return summary
    }

    // Nothing to do, and nothing to read, when the inputs are provably those of the previous
    // build and its files are intact: its warnings about the databases are reported again.
    // A copy of the site given with `--previous` is compared with every time.
    if options.previous == nil, renderer.paths.contains(.recordedWarnings),
      let recorded = previousRecord,
      recorded.key == inputs, let sourceWarnings = recorded.sourceWarnings,
      writer.previousFilesAreIntact()
    {
      try report(themeWarnings + sourceWarnings)
      return unchangedSummary(recorded)
    }
    summary.sourcesRead = true
    // Whether libvips can render the social card, asked only by a build that reads its sources
    // (loading libvips is most of a rebuild that stops above); its warning is recorded with the
    // sources'.
    let socialCardPlan = socialCard(options)
    // The photos' key, like the inputs', before the possessions are opened (a build that stops
    // above reads neither the database nor its log again for it).
    let photosKey = photosKey(options, settings: photoSettings, key: writer.hashKey)

    // 1. Read every source, each in one read transaction: the to-dos on a thread of their own
    // while this one reads the others, and then stages the photos on a thread of their own
    // (they need only the possessions) while the to-dos are still being read.
    var data = SiteData()
    if !readsEarly { startReadingTodos() }
    let staging = StagingState()
    let photoWarnings = Mutex<(warnings: [BuildWarning], decoded: Int)>(([], 0))
    let photoSeconds = Mutex(0.0)
    let stagingPhotos = DispatchGroup()
    var possessionSource: PossessionSource?
    defer { possessionSource?.close() }
    // Declared after the source, so run before it is closed: a build that stops early stops
    // the photos and waits for them.
    defer {
      staging.cancel()
      stagingPhotos.wait()
    }
    var possessionWarnings: [BuildWarning] = []
    var contactWarnings: [BuildWarning] = []
    var otherError: (any Error)?
    var unchanged = false
    /// The photos the previous build recorded, when this build publishes them as they are.
    let reusedPhotos = Mutex<PhotoRecord?>(nil)
    do {
      if let path = options.possessions {
        let source = try PossessionSource(
          path: path, mapping: options.mapping.possessions, busyTimeout: busyTimeout)
        possessionSource = source
        let loaded = try source.load()
        data.possessions = loaded.possessions
        data.hasPossessions = true
        possessionWarnings = loaded.warnings
      }
      // Nothing to do when the inputs are those of the previous build and its files are
      // intact (the sources are still read, for their warnings).
      // A copy of the site given with `--previous` is compared with every time.
      unchanged =
        options.previous == nil
        && (previousRecord.map { $0.key == inputs && writer.previousFilesAreIntact() } ?? false)
      if !unchanged, let source = possessionSource {
        let possessions = data.possessions
        nonisolated(unsafe) let source = source
        // The photos the previous build recorded, when they can be kept as they are (no photo
        // is read); else each photo is published.
        let stagePhotos: @Sendable () -> Void = {
          do {
            if let recorded = try recordedPhotos(
              key: photosKey, options: options, settings: photoSettings, writer: writer)
            {
              reusedPhotos.withLock { $0 = recorded }
              photoWarnings.withLock { $0 = (recorded.warnings, 0) }
              staging.photosDone(recorded.photos.compactMapValues(PageContext.PhotoFile.init))
              return
            }
            let photosStarted = ContinuousClock.now
            let (files, warnings, decoded) = try exportPhotos(
              possessions, from: source, to: writer, settings: photoSettings, cache: photoCache,
              jobs: jobs,
              stopping: {
                probe.beforePhoto { staging.isCancelled }
                return staging.isStopping
              })
            photoWarnings.withLock { $0 = (warnings, decoded) }
            // Before the pages are told: they read it once the photos are done.
            photoSeconds.withLock { $0 = seconds(since: photosStarted) }
            staging.photosDone(files)
          } catch {
            staging.fail(-1, error)
          }
        }
        // With `--jobs 1` the photos are staged here, while the to-dos are read, and the pages
        // after them: no more than one thread works once the sources are read.
        if jobs > 1 {
          DispatchQueue.global().async(group: stagingPhotos, execute: stagePhotos)
        } else {
          stagePhotos()
        }
      } else {
        staging.photosDone([:])
      }
      if let path = options.contacts {
        let source = try ContactSource(
          path: path, mapping: options.mapping.contacts, busyTimeout: busyTimeout)
        defer { source.close() }
        let loaded = try source.load()
        data.contacts = loaded.contacts
        data.hasContacts = true
        contactWarnings = loaded.warnings
      }
    } catch {
      otherError = error
    }
    // The previous build, to compare with (not needed when nothing changed), read while the
    // to-dos are, if not started early: its error, if any, comes after the sources'.
    if !unchanged, otherError == nil, !readsEarly { lastBuild.read() }
    reading.wait()
    // Errors and warnings come in the order of the sources: to-dos, possessions, contacts.
    var warnings = themeWarnings
    if let result = todoResult.withLock({ $0.take() }) {
      let loaded = try result.get()
      data.packedTodos = loaded.todos
      data.hasTodos = true
      data.hasDueDates = options.mapping.todos.columns["due"] != nil
      warnings += loaded.warnings
    }
    if let otherError { throw otherError }
    warnings += possessionWarnings + contactWarnings + socialCardPlan.warnings
    var sourceWarnings = Array(warnings.dropFirst(themeWarnings.count))
    if unchanged, let recorded = previousRecord?.sourceWarnings,
      recorded.starts(with: sourceWarnings)
    {
      // The photos' warnings, recorded after the databases' ones: the photos were not read.
      warnings += recorded.dropFirst(sourceWarnings.count)
      sourceWarnings = recorded
    }
    // What the previous build lacks is warned about, but not recorded with the sources'
    // warnings.
    let comparesTodos = renderer.paths.contains(.earlyTodoDiff) && data.hasTodos
    let inKeyOrder = renderer.paths.contains(.keyOrderDiff)
    // The last build, taken once (nothing when nothing changed), and the positions of the rows
    // that differ from those of the copy it recorded, when only those rows of it were read.
    var previous = PreviousBuild()
    var differing: [Int]?
    if !unchanged {
      (previous, differing) = try lastBuild.take(
        recordsHeader: writer.recordsHeader,
        comparingWith: comparesTodos ? data.packedTodos : nil,
        copyReader: renderer.paths.contains(.copyReader), key: writer.hashKey)
    }
    if options.strict, !warnings.isEmpty || !previous.warnings.isEmpty {
      // The build fails: it says so with the photos' warnings too, as a build without
      // --strict would list them.
      stagingPhotos.wait()
      warnings += photoWarnings.withLock { $0.warnings }
    }
    try report(warnings + previous.warnings)
    if unchanged, var recorded = previousRecord {
      if recorded.sourceWarnings != sourceWarnings {
        // A record of an earlier version, without the warnings: recorded now, for next time.
        recorded.sourceWarnings = sourceWarnings
        writer.recordInputs(recorded.text)
      }
      return unchangedSummary(recorded)
    }

    // 2. Plan.
    // The to-dos compared now, as read (`TodoSource` reads them in pk order; else with the
    // plan's rows, in pk order): the previous rows are let go of before the plan copies this
    // build's.
    // Only the rows that differ from the recorded copy's, when only those of it were read.
    if comparesTodos, let rows = data.packedTodos, let differing {
      previous = ChangeDiff.comparingTodos(
        consume previous, rows, at: differing, labels: labels, inKeyOrder: inKeyOrder)
    } else if comparesTodos, let rows = data.packedTodos, rows.isInPKOrder {
      previous = ChangeDiff.comparingTodos(
        consume previous, rows, at: rows.indices, labels: labels, inKeyOrder: inKeyOrder)
    }
    let routes = Routes(prettyURLs: options.prettyURLs)
    let plan = SitePlan(
      data: data, pageSize: options.pageSize, routes: routes, boardLimit: options.boardLimit,
      galleryPageSize: options.galleryPageSize)
    data = SiteData()  // the plan holds the rows now
    if comparesTodos, previous.todos != nil {
      previous = ChangeDiff.comparingTodos(
        consume previous, plan.todos, at: plan.todoPositionsByPK, labels: labels,
        inKeyOrder: inKeyOrder)
    }
    #if canImport(Glibc)
      // Reading and planning freed as much as the plan keeps: back to the system before the
      // pages are rendered, so that it does not stay resident through the build.
      _ = systemMallocTrim(0)
    #endif

    // The date this build records, asked for once: the to-dos' timelines show it.
    var recordedDate: String?
    func dateOnce() -> String {
      if let recordedDate { return recordedDate }
      let date = buildDate(options, sourceDateEpoch: sourceDateEpoch)
      recordedDate = date
      return date
    }
    let timelines =
      plan.hasTodos
      ? Self.timelines(
        previous: previous, plan: plan, labels: labels, inKeyOrder: inKeyOrder, date: dateOnce,
        givenDate: givenDate(options, sourceDateEpoch: sourceDateEpoch))
      : nil
    // A rebuild of a site without to-do histories: the to-dos' pages show them from now on.
    let startsTodoHistories = previous.todoHistory == nil && !previous.isEmpty

    summary.phases.append(.init("read", seconds(since: started)))
    var snapshots: [(name: String, bytes: [UInt8]?)] = []
    var fingerprintBytes: [UInt8] = []
    var rowBytes: [UInt8]?
    /// The record of the to-dos' data copy, but its identity (`TodoCopyRecord`).
    var copyRecord: [UInt8]?
    var photoRecord: PhotoRecord?
    var cardRecord: [UInt8]?
    let cardImage =
      socialCardPlan.publishes ? options.baseURL.map { socialCardURL(baseURL: $0) } : nil
    /// Steps 3 and 4, everything that needs the plan or the previous build's rows: they are
    /// let go of when this returns, before the commit, with the contexts and fingerprints that
    /// hold them (a million to-dos' rows and lists are about 90 MB). Returns what the pages
    /// staged, whose fingerprints are made into their record once the plan is let go of.
    func stageSite(_ plan: SitePlan, previous: PreviousBuild) throws -> StagedPages {
      // 3. Pages and data copies, in parallel, while the photos (named by their content, each
      // written once) are finished on their own thread.
      // The first index page shows the latest changes: it is rendered with `changes.html`, once
      // the photos (which the changes compare) are named.
      let pages = plan.pages.filter { $0 != .index(1) }
      // A file for each page and photo, and a few more; paths of about 20 bytes.
      let files = pages.count + plan.possessions.count + theme.assets.count + 16
      writer.reserveCapacity(files: files, pathBytes: files * 20)
      // The pages whose inputs did not change since the build that wrote the site are kept.
      let fingerprints = PageFingerprints(
        plan: plan, theme: theme, labels: labels, options: options, generated: generated,
        sourceDateEpoch: sourceDateEpoch, key: writer.hashKey, timelines: timelines,
        startsTodoHistories: startsTodoHistories, socialCard: cardImage != nil)
      checking.wait()
      let last =
        lastPages.withLock { $0.take() } ?? LastPages(writer: writer, paths: renderer.paths)
      let staged = try stagePages(
        pages, plan: plan, renderer: renderer, theme: theme, writer: writer, staging: staging,
        makeContext: { photoFiles in
          var context = PageContext(
            plan: plan, labels: labels, lang: options.locale.rawValue, baseURL: options.baseURL,
            generated: generated, photoFiles: photoFiles, title: options.title,
            noindex: options.noindex, dataCopies: options.dataCopies,
            csvByteOrderMark: options.csvByteOrderMark, search: options.search,
            markdown: options.markdown)
          context.timelines = timelines
          context.socialCardImage = cardImage
          return context
        },
        fingerprints: fingerprints, last: consume last, jobs: jobs, interrupt: interrupt,
        reporter: reporter)
      let photoFiles = staged.photoFiles
      summary.rendered = staged.rendered
      summary.photos = Set(photoFiles.values.map(\.path)).count
      // The photos are read: the possessions' snapshot must have been one state of the file.
      try possessionSource?.checkSnapshot()
      // The photos' warnings come once they are published (they need decoding).
      let (photoProblems, decoded) = photoWarnings.withLock { $0 }
      summary.photosDecoded = decoded
      summary.photoSeconds = photoSeconds.withLock { $0 }
      for warning in photoProblems {
        reporter.warning(warning)
      }
      summary.warnings += photoProblems.count
      // Recorded with the databases' warnings, for a rebuild that reads nothing.
      sourceWarnings += photoProblems
      // And with the photos, for a rebuild that reads the databases but not the photos.
      photoRecord =
        reusedPhotos.withLock { $0 }
        ?? photosKey.map {
          PhotoRecord(
            key: $0,
            photos: photoFiles.mapValues {
              PublishedPhoto(renditions: $0.renditions, avif: $0.avif)
            },
            warnings: photoProblems)
        }
      if options.strict, !photoProblems.isEmpty {
        let count = summary.warnings == 1 ? "1 warning" : "\(summary.warnings) warnings"
        throw BuildError("\(count) and --strict is set; the site was not changed")
      }

      // The changes since the previous build, and the pages that show them.
      let report = ChangeReport.make(
        previous: previous, plan: plan, photoFiles: photoFiles, labels: labels,
        date: dateOnce,
        givenDate: givenDate(options, sourceDateEpoch: sourceDateEpoch),
        limit: options.historyLimit, baseURL: options.baseURL,
        inKeyOrder: renderer.paths.contains(.keyOrderDiff))
      var changesContext = PageContext(
        plan: plan, labels: labels, lang: options.locale.rawValue, baseURL: options.baseURL,
        generated: generated, photoFiles: photoFiles, title: options.title,
        noindex: options.noindex, dataCopies: options.dataCopies,
        csvByteOrderMark: options.csvByteOrderMark, search: options.search,
        markdown: options.markdown)
      changesContext.changes = report
      changesContext.timelines = timelines
      changesContext.socialCardImage = cardImage
      let changePages = try stageChangePages(
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
      summary.pages = pages.count + changePages.count + calendarPages.count
      if cardImage != nil {
        let card = try stageSocialCard(
          changesContext.socialCardSummary, writer: writer,
          recorded: renderer.paths.contains(.recordedCard))
        (cardRecord, summary.socialCardRendered) = (card.record, card.rendered)
        if let warning = card.warning {
          reporter.warning(warning)
          summary.warnings += 1
        }
      }
      summary.rendered += changePages.count + calendarPages.count

      // 4. The theme's assets, the sitemap.
      for asset in theme.assets {
        try writer.add(asset.path, bytes: asset.contents)
      }
      if let baseURL = options.baseURL {
        let sitemaps = plan.sitemapFiles(
          baseURL: baseURL, adding: changePages.filter { $0 != .index(1) } + calendarPages,
          limits: options.sitemapLimits)
        for (path, bytes) in sitemaps {
          try writer.add(path, bytes: bytes)
        }
      }
      if plan.hasTodos, plan.hasDueDates {
        let siteTitle = options.title ?? labels["siteTitle"]
        let calendar = ICalendar(
          plan: plan, labels: labels, siteTitle: siteTitle, baseURL: options.baseURL)
        let previous = FileManager.default.contents(
          atPath: OutputWriter.trimmed(options.previous ?? options.output) + "/calendar.ics")
        let stamp = buildDate(options, sourceDateEpoch: sourceDateEpoch)
        for (path, bytes) in calendar.files(previous: previous.map(Array.init), stamp: stamp) {
          try writer.add(path, bytes: bytes)
        }
      }
      // The site-wide search's index: a changed row rewrites its shard and the directory.
      if options.search {
        // Each shard is written as it is finished (a million to-dos' rows are ~100 MB).
        let index = try SearchIndex(
          plan: plan, labels: labels, contacts: plan.hasContacts,
          shard: { try writer.add($0, bytes: $1) })
        try writer.add("search/index.js", bytes: index.indexFile())
      }
      if options.noindex {
        try writer.add("robots.txt", bytes: Array("User-agent: *\nDisallow: /\n".utf8))
      } else if let baseURL = options.baseURL {
        try writer.add("robots.txt", bytes: Sitemap.robots(baseURL: baseURL))
      }
      if interrupt.isSet {
        throw OutputError(path: writer.root, reason: OutputError.interrupted)
      }
      // The rows and the plan are not needed past here.
      snapshots = Build.snapshots(
        options, plan: plan, photoFiles: photoFiles, strings: changesContext.strings)
      if renderer.paths.contains(.incremental), plan.hasTodos {
        rowBytes = RowRecord(layout: fingerprints.todoLayout, rows: fingerprints.shownRows).bytes
      }
      if plan.hasTodos, options.dataCopies.contains(.todos) {
        let (todos, hashes) = (plan.todos, fingerprints.todoRows)
        copyRecord = TodoCopyRecord.bytes(
          count: todos.count,
          rows: plan.todoPositionsByPK.lazy.map { (todos.pk($0), hashes[$0]) })
      }
      freeInBackground((consume pages, consume renderer))
      return staged
    }

    do {
      let staged = try stageSite(consume plan, previous: consume previous)
      // Sorted in the room the plan left, and kept as the bytes to record.
      fingerprintBytes = staged.record().bytes
      #if canImport(Glibc)
        // The plan's pages are free now: back to the system before the commit sorts the paths.
        _ = systemMallocTrim(0)
      #endif

      summary.phases.append(.init("render", seconds(since: started)))

      // 5. Commit, with the records for the next build: written by the commit, tied to its
      // manifest, before the folder is unlocked.
      var records = StateRecords()
      for (name, bytes) in snapshots { records.set(name, bytes) }
      records.set(FingerprintRecord.fileName, fingerprintBytes)
      records.set(RowRecord.fileName, rowBytes)
      if let photoRecord { records.set(PhotoRecord.fileName, photoRecord.bytes) }
      records.set(cardRecordName, cardRecord)
      if let bytes = copyRecord.take() {
        // Its identity is the committed copy's, taken by the commit.
        records.todoCopy = (bytes, "data/todos.json")
      }
      records.set(
        OutputWriter.inputsName,
        Array(
          InputsRecord(
            key: inputs, pages: summary.pages, photos: summary.photos,
            sourceWarnings: sourceWarnings
          ).text.utf8))
      writer.setRecords(records)
      let output = try writer.commit()
      summary.phases.append(.init("commit", seconds(since: started)))
      summary.written = output.written
      summary.unchanged = output.unchanged
      summary.removed = output.removed
      summary.repaired = output.repaired
      summary.foundAtFirstBuild = writer.foundAtFirstBuild
      summary.writtenPaths = output.writtenPaths
      summary.removedPaths = output.removedPaths
      summary.outputProblems = output.warnings
      summary.commitSteps = output.commitSteps
      summary.filesRehashed = writer.filesRehashed
    } catch {
      // The photo thread may still be adding a file: stop it before the staging goes.
      staging.cancel()
      stagingPhotos.wait()
      checking.wait()
      writer.abort()
      probe.aborted()
      throw error
    }
    freeInBackground(consume writer)
    summary.seconds = seconds(since: started)
    return summary
  }

  /// Lets go of `value` on another thread: the rows, the plan and the writer's records of a
  /// large site are hundreds of thousands of objects, which take tens of milliseconds to free,
  /// and the build need not wait for that.
  private static func freeInBackground<T: Sendable>(_ value: consuming T) {
    DispatchQueue.global(qos: .utility).async { [value] in
      withExtendedLifetime(value) {}
      #if canImport(Glibc)
        // The rows were a million small allocations: give their pages back to the system,
        // so that what the commit allocates next does not come on top of them.
        _ = systemMallocTrim(0)
      #endif
    }
  }

  private static func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  }

  /// `SOURCE_DATE_EPOCH` as a UTC date, `2026-11-29`.
  public static func isoDate(sourceDateEpoch: String) throws -> String {
    guard let seconds = Int64(sourceDateEpoch.trimmingCharacters(in: .whitespaces)), seconds >= 0
    else {
      throw BuildError(
        "SOURCE_DATE_EPOCH: invalid value '\(sourceDateEpoch)': expected seconds since 1970")
    }
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    let year = Int(parts.tm_year) + 1900
    let month = Int(parts.tm_mon) + 1
    let day = Int(parts.tm_mday)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(year)-\(two(month))-\(two(day))"
  }
}

#if canImport(Glibc)
  /// glibc's `malloc_trim` (in `<malloc.h>`, which the Glibc module leaves out): hands the free
  /// pages of the heap back to the system.
  @_silgen_name("malloc_trim")
  private func systemMallocTrim(_ pad: Int) -> Int32
#endif

/// A build that cannot go on, with what to do about it.
public struct BuildError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What went wrong, naming the file, row or flag.
  public var message: String

  init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}
