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

  /// `run`, with the commit stopped after `commitStepLimit` renames as if the process had been
  /// killed there (tests only; see `OutputWriter.commitStepLimit`).
  static func run(
    _ options: BuildOptions, sourceDateEpoch: String? = nil,
    interrupt: InterruptFlag = .process, busyTimeout: Duration = .seconds(5),
    reporter: Reporter, commitStepLimit: Int?
  ) throws -> BuildSummary {
    let started = ContinuousClock.now
    let theme = try Theme.load(overrides: options.templates)
    let labels = try theme.labels(options.locale)
    let generated = try sourceDateEpoch.map(isoDate(sourceDateEpoch:))
    let jobs = options.jobs ?? ProcessInfo.processInfo.activeProcessorCount
    // Every template is checked before anything is read or written.
    let renderer = try PageRenderer(theme: theme)
    let photoSettings = try PhotoSettings(theme: theme, options: options)

    let writer = try OutputWriter(root: options.output, interrupt: interrupt)
    writer.commitStepLimit = commitStepLimit
    var summary = BuildSummary()
    // The key of the inputs is taken before the sources are opened: a database written after
    // this point gives the next build another key, so it never skips a change.
    let inputs = inputsKey(options, theme: theme, sourceDateEpoch: sourceDateEpoch)
    let previousRecord = writer.previousInputs().flatMap(InputsRecord.init)

    // 1. Read every source, each in one read transaction: the to-dos on a thread of their own
    // while this one reads the others, and then stages the photos on a thread of their own
    // (they need only the possessions) while the to-dos are still being read.
    var data = SiteData()
    let todoResult = Mutex<Result<(todos: [Todo], warnings: [BuildWarning]), any Error>?>(nil)
    let reading = DispatchGroup()
    if let path = options.todos {
      DispatchQueue.global().async(group: reading) {
        let result = Result {
          let source = try TodoSource(path: path, busyTimeout: busyTimeout)
          defer { source.close() }
          return try source.load()
        }
        todoResult.withLock { $0 = result }
      }
    }
    let staging = StagingState()
    let photoWarnings = Mutex<(warnings: [BuildWarning], decoded: Int)>(([], 0))
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
    do {
      if let path = options.possessions {
        let source = try PossessionSource(path: path, busyTimeout: busyTimeout)
        possessionSource = source
        let loaded = try source.load()
        data.possessions = loaded.possessions
        data.hasPossessions = true
        possessionWarnings = loaded.warnings
      }
      // Nothing to do when the inputs are those of the previous build and its files are
      // intact (the sources are still read, for their warnings).
      unchanged =
        previousRecord.map { $0.key == inputs && writer.previousFilesAreIntact() } ?? false
      if !unchanged, let source = possessionSource {
        let possessions = data.possessions
        nonisolated(unsafe) let source = source
        let stagePhotos: @Sendable () -> Void = {
          do {
            let (files, warnings, decoded) = try exportPhotos(
              possessions, from: source, to: writer, settings: photoSettings, jobs: jobs,
              stopping: { staging.isStopping })
            photoWarnings.withLock { $0 = (warnings, decoded) }
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
        let source = try ContactSource(path: path, busyTimeout: busyTimeout)
        defer { source.close() }
        let loaded = try source.load()
        data.contacts = loaded.contacts
        data.hasContacts = true
        contactWarnings = loaded.warnings
      }
    } catch {
      otherError = error
    }
    reading.wait()
    // Errors and warnings come in the order of the sources: to-dos, possessions, contacts.
    var warnings: [BuildWarning] = []
    if let result = todoResult.withLock({ $0.take() }) {
      let loaded = try result.get()
      data.todos = loaded.todos
      data.hasTodos = true
      warnings = loaded.warnings
    }
    if let otherError { throw otherError }
    warnings += possessionWarnings + contactWarnings
    for warning in warnings {
      reporter.warning(warning)
    }
    if options.strict, !warnings.isEmpty {
      let count = warnings.count == 1 ? "1 warning" : "\(warnings.count) warnings"
      throw BuildError("\(count) and --strict is set; the site was not changed")
    }
    summary.warnings = warnings.count
    if unchanged, let recorded = previousRecord {
      writer.abort()
      summary.unchanged = writer.previousFileCount
      summary.pages = recorded.pages
      summary.photos = recorded.photos
      summary.seconds = seconds(since: started)
      return summary
    }

    // 2. Plan.
    let routes = Routes(prettyURLs: options.prettyURLs)
    let plan = SitePlan(data: data, pageSize: options.pageSize, routes: routes)
    data = SiteData()  // the plan holds the rows now

    summary.phases.append(.init("read", seconds(since: started)))
    do {
      // 3. Pages and data copies, in parallel, while the photos (named by their content, each
      // written once) are finished on their own thread.
      let pages = plan.pages
      let photoFiles = try stagePages(
        pages, plan: plan, renderer: renderer, theme: theme, writer: writer, staging: staging,
        makeContext: { photoFiles in
          PageContext(
            plan: plan, labels: labels, lang: options.locale.rawValue, baseURL: options.baseURL,
            generated: generated, photoFiles: photoFiles)
        },
        jobs: jobs,
        interrupt: interrupt, reporter: reporter)
      summary.pages = pages.count
      summary.photos = Set(photoFiles.values.map(\.path)).count
      // The photos' warnings come once they are published (they need decoding).
      let (photoProblems, decoded) = photoWarnings.withLock { $0 }
      summary.renditionsMade = decoded
      for warning in photoProblems {
        reporter.warning(warning)
      }
      summary.warnings += photoProblems.count
      if options.strict, !photoProblems.isEmpty {
        let count = summary.warnings == 1 ? "1 warning" : "\(summary.warnings) warnings"
        throw BuildError("\(count) and --strict is set; the site was not changed")
      }

      // 4. The theme's assets, the sitemap.
      for asset in theme.assets {
        try writer.add(asset.path, bytes: asset.contents)
      }
      if let baseURL = options.baseURL {
        try writer.add("sitemap.xml", bytes: sitemap(pages, plan: plan, baseURL: baseURL))
      }
      if interrupt.isSet {
        throw OutputError(path: writer.root, reason: OutputError.interrupted)
      }
      // The rows and the plan are not needed past here.
      freeInBackground((consume plan, consume pages, consume renderer))

      summary.phases.append(.init("render", seconds(since: started)))

      // 5. Commit.
      let output = try writer.commit()
      summary.phases.append(.init("commit", seconds(since: started)))
      summary.written = output.written
      summary.unchanged = output.unchanged
      summary.removed = output.removed
      summary.repaired = output.repaired
      summary.commitSteps = output.commitSteps
    } catch {
      writer.abort()
      throw error
    }
    writer.recordInputs(
      InputsRecord(key: inputs, pages: summary.pages, photos: summary.photos).text)
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
    }
  }

  private static func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  }

  // MARK: - Photos

  /// Photos up to this size are read whole into memory; larger ones are streamed.
  static let photoBufferLimit = Int64(PhotoPublisher.bufferLimit)

  /// Publishes the photos of `possessions` (see `PhotoPublisher`); returns the photo files by
  /// possession id and the warnings of the photos that could not be published. Stops, with an
  /// empty result, when `stopping` says so.
  private static func exportPhotos(
    _ possessions: [Possession], from source: PossessionSource, to writer: OutputWriter,
    settings: PhotoSettings, jobs: Int, stopping: @escaping @Sendable () -> Bool
  ) throws -> (files: [Int64: PageContext.PhotoFile], warnings: [BuildWarning], decoded: Int) {
    let publisher = PhotoPublisher(settings: settings, source: source, writer: writer)
    let published = try publisher.publish(possessions, jobs: jobs, stopping: stopping)
    let files = published.photos.compactMapValues(PageContext.PhotoFile.init)
    return (files, published.warnings, publisher.renditionsMade.load(ordering: .relaxed))
  }

  // MARK: - Pages

  /// One piece of the work of staging a site.
  private enum Work {
    case todoData
    case possessionData
    case contactData
    /// Pages `range` of the plan's pages.
    case pages(Range<Int>)
  }

  /// Stages every page and the data copies on `jobs` threads; returns the photo files by
  /// possession id.
  ///
  /// The photos are staged by a thread of their own (see `run`), which reports to `staging`;
  /// the pages that show no photo go first, and the possession pages and `possessions.json`
  /// wait for the photos' names.
  private static func stagePages(
    _ pages: [SitePlan.Page], plan: SitePlan, renderer: PageRenderer, theme: Theme,
    writer: OutputWriter, staging shared: StagingState,
    makeContext: @escaping @Sendable ([Int64: PageContext.PhotoFile]) -> PageContext,
    jobs: Int, interrupt: InterruptFlag, reporter: Reporter
  ) throws -> [Int64: PageContext.PhotoFile] {
    let batch = 64
    var work: [Work] = []
    var photoPages: [Work] = []
    var start = 0
    while start < pages.count {
      // A batch never mixes pages with and without photos.
      let showsPhoto = Self.showsPhotos(pages[start])
      var end = start + 1
      while end < min(start + batch, pages.count), Self.showsPhotos(pages[end]) == showsPhoto {
        end += 1
      }
      if showsPhoto {
        photoPages.append(.pages(start..<end))
      } else {
        work.append(.pages(start..<end))
      }
      start = end
    }
    if plan.hasTodos { work.insert(.todoData, at: min(1, work.count)) }
    if plan.hasContacts { work.append(.contactData) }
    if plan.hasPossessions { work.append(.possessionData) }
    // Last, so that the photos are staged (or nearly) when a thread reaches them.
    work += photoPages

    let queue = work
    let next = Atomic<Int>(0)
    let done = Atomic<Int>(0)
    let total = pages.count
    // Each thread renders with templates and contexts of its own (the first reuses `renderer`,
    // which checked the templates): no object that pages count references to is shared between
    // threads, so the cores do not trade the cache lines of reference counts.
    let threads = max(1, min(jobs, queue.count))
    let renderers = try [renderer] + (1..<threads).map { _ in try PageRenderer(theme: theme) }
    let plainContexts = (0..<threads).map { _ in makeContext([:]) }
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      let renderer = renderers[thread]
      let plainContext = plainContexts[thread]
      var photoContext: PageContext?
      let scratch = PageRenderer.Scratch()
      while true {
        let index = next.add(1, ordering: .relaxed).oldValue
        guard index < queue.count, !interrupt.isSet, !shared.failed else { return }
        do {
          switch queue[index] {
          case .todoData:
            let todos = plan.todosByPK
            let strings = plainContext.strings
            try writer.add("data/todos.json", DataExport.todosJSON(todos, strings: strings))
            try writer.add("data/todos.csv", DataExport.todosCSV(todos, strings: strings))
          case .possessionData:
            guard let files = shared.waitForPhotos(interrupt) else { return }
            let urls = files.photoFiles.mapValues(\.path)
            try writer.add(
              "data/possessions.json",
              DataExport.possessionsJSON(plan.possessions, photoURLs: urls))
            try writer.add(
              "data/possessions.csv",
              DataExport.possessionsCSV(plan.possessions, photoURLs: urls))
          case .contactData:
            let contacts = plan.contacts.sorted { $0.id < $1.id }
            try writer.add("data/contacts.json", DataExport.contactsJSON(contacts))
            try writer.add("data/contacts.csv", DataExport.contactsCSV(contacts))
          case .pages(let range):
            let context: PageContext
            if Self.showsPhotos(pages[range.lowerBound]) {
              guard let files = shared.waitForPhotos(interrupt) else { return }
              let made = photoContext ?? makeContext(files.photoFiles)
              photoContext = made
              context = made
            } else {
              context = plainContext
            }
            guard !interrupt.isSet else { return }
            let files = range.map { plan.file(of: pages[$0]) }
            do {
              try writer.add(files) { index in
                let position = range.lowerBound + index
                try renderer.render(
                  pages[position], file: files[index], context: context, into: scratch)
                return UnsafeRawBufferPointer(scratch.output.bytes)
              }
            } catch let error as OutputError where error.reason == OutputError.interrupted {
              return
            }
            let finished = done.add(range.count, ordering: .relaxed).newValue
            if finished % 2048 < range.count || finished == total {
              reporter.progress(finished, total)
            }
          }
        } catch {
          shared.fail(index, error)
          return
        }
      }
    }
    if let error = shared.firstError {
      throw error
    }
    if interrupt.isSet {
      throw OutputError(path: writer.root, reason: OutputError.interrupted)
    }
    return shared.photoFiles
  }

  /// Whether a page shows photos, and so waits for them to be staged.
  private static func showsPhotos(_ page: SitePlan.Page) -> Bool {
    switch page {
    case .possessions, .possession: true
    default: false
    }
  }

  /// What the threads staging a site share: the photos once they are staged, and failures.
  private final class StagingState: Sendable {
    struct Photos {
      var photoFiles: [Int64: PageContext.PhotoFile]
    }

    private struct State {
      var photos: Photos?
      var failures: [(index: Int, error: any Error)] = []
      var cancelled = false
    }

    private let state = Mutex(State())
    private let condition = NSCondition()

    var failed: Bool { state.withLock { !$0.failures.isEmpty } }

    /// Whether the work should stop: some of it failed, or the build is over.
    var isStopping: Bool { state.withLock { !$0.failures.isEmpty || $0.cancelled } }

    /// Tells work still under way (the photos) that the build is over.
    func cancel() {
      state.withLock { $0.cancelled = true }
    }

    /// The staged photos by possession id; empty until they are staged (or when there are none).
    var photoFiles: [Int64: PageContext.PhotoFile] {
      state.withLock { $0.photos?.photoFiles ?? [:] }
    }

    /// The error of the earliest piece of work that failed.
    var firstError: (any Error)? {
      state.withLock { $0.failures.min { $0.index < $1.index }?.error }
    }

    func photosDone(_ files: [Int64: PageContext.PhotoFile]) {
      condition.lock()
      state.withLock { $0.photos = Photos(photoFiles: files) }
      condition.broadcast()
      condition.unlock()
    }

    func fail(_ index: Int, _ error: any Error) {
      condition.lock()
      state.withLock { $0.failures.append((index, error)) }
      condition.broadcast()
      condition.unlock()
    }

    /// The staged photos, once they are; nil when some work failed first or the build was
    /// interrupted.
    func waitForPhotos(_ interrupt: InterruptFlag) -> Photos? {
      condition.lock()
      defer { condition.unlock() }
      while true {
        let (photos, failed) = state.withLock { ($0.photos, !$0.failures.isEmpty) }
        if let photos { return photos }
        if failed || interrupt.isSet { return nil }
        // An interrupt sets a flag and wakes no one: look at it now and then.
        _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
      }
    }
  }

  // MARK: - Data, sitemap

  private static func sitemap(
    _ pages: [SitePlan.Page], plan: SitePlan, baseURL: String
  ) -> [UInt8] {
    var xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">

      """
    for page in pages where page != .notFound {
      let url = plan.routes.absolute(plan.name(of: page), baseURL: baseURL)
      xml += "  <url><loc>\(Escaping.html.escape(url))</loc></url>\n"
    }
    xml += "</urlset>\n"
    return Array(xml.utf8)
  }

  /// `SOURCE_DATE_EPOCH` as a UTC date, `2026-11-29`.
  static func isoDate(sourceDateEpoch: String) throws -> String {
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

/// A build that cannot go on, with what to do about it.
public struct BuildError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What went wrong, naming the file, row or flag.
  public var message: String

  init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}
