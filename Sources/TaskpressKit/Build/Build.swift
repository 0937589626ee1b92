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

    // 1. Read every source, each in one read transaction.
    var data = SiteData()
    var warnings: [BuildWarning] = []
    if let path = options.todos {
      let source = try TodoSource(path: path, busyTimeout: busyTimeout)
      defer { source.close() }
      let loaded = try source.load()
      data.todos = loaded.todos
      data.hasTodos = true
      warnings += loaded.warnings
    }
    var possessionSource: PossessionSource?
    defer { possessionSource?.close() }
    if let path = options.possessions {
      let source = try PossessionSource(path: path, busyTimeout: busyTimeout)
      possessionSource = source
      let loaded = try source.load()
      data.possessions = loaded.possessions
      data.hasPossessions = true
      warnings += loaded.warnings
    }
    if let path = options.contacts {
      let source = try ContactSource(path: path, busyTimeout: busyTimeout)
      defer { source.close() }
      let loaded = try source.load()
      data.contacts = loaded.contacts
      data.hasContacts = true
      warnings += loaded.warnings
    }
    for warning in warnings {
      reporter.warning(warning)
    }
    if options.strict, !warnings.isEmpty {
      let count = warnings.count == 1 ? "1 warning" : "\(warnings.count) warnings"
      throw BuildError("\(count) and --strict is set; the site was not changed")
    }

    // 2. Plan, and check every template before anything is written.
    let routes = Routes(prettyURLs: options.prettyURLs)
    let plan = SitePlan(data: data, pageSize: options.pageSize, routes: routes)
    let renderer = try PageRenderer(theme: theme)

    let writer = try OutputWriter(root: options.output, interrupt: interrupt)
    writer.commitStepLimit = commitStepLimit
    var summary = BuildSummary()
    summary.warnings = warnings.count

    // Nothing to do when the inputs are those of the previous build and its files are intact.
    let inputs = inputsKey(options, theme: theme, sourceDateEpoch: sourceDateEpoch)
    if let previous = writer.previousInputs(), let recorded = InputsRecord(previous),
      recorded.key == inputs, writer.previousFilesAreIntact()
    {
      writer.abort()
      summary.unchanged = writer.previousFileCount
      summary.pages = recorded.pages
      summary.photos = recorded.photos
      summary.seconds = seconds(since: started)
      return summary
    }
    do {
      // 3. Photos, named by their content, each written once.
      var photoFiles: [Int64: PageContext.PhotoFile] = [:]
      if let source = possessionSource {
        photoFiles = try exportPhotos(plan.possessions, from: source, to: writer)
        summary.photos = Set(photoFiles.values.map(\.path)).count
      }

      // 4. Pages, rendered in parallel.
      let context = PageContext(
        plan: plan, labels: labels, lang: options.locale.rawValue, baseURL: options.baseURL,
        generated: generated, photoFiles: photoFiles)
      let pages = plan.pages
      try render(
        pages, plan: plan, context: context, renderer: renderer, writer: writer,
        jobs: options.jobs ?? ProcessInfo.processInfo.activeProcessorCount,
        interrupt: interrupt, reporter: reporter)
      summary.pages = pages.count

      // 5. Data copies, the theme's assets, the sitemap.
      try addDataFiles(plan: plan, labels: labels, photoFiles: photoFiles, to: writer)
      for asset in theme.assets {
        try writer.add(asset.path, bytes: asset.contents)
      }
      if let baseURL = options.baseURL {
        try writer.add("sitemap.xml", bytes: sitemap(pages, plan: plan, baseURL: baseURL))
      }
      if interrupt.isSet {
        throw OutputError(path: writer.root, reason: OutputError.interrupted)
      }

      // 6. Commit.
      let output = try writer.commit()
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
    summary.seconds = seconds(since: started)
    return summary
  }

  private static func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  }

  // MARK: - Photos

  private static func exportPhotos(
    _ possessions: [Possession], from source: PossessionSource, to writer: OutputWriter
  ) throws -> [Int64: PageContext.PhotoFile] {
    var files: [Int64: PageContext.PhotoFile] = [:]
    var distinct: [String: PhotoInfo] = [:]
    for possession in possessions {
      guard let photo = possession.photo else { continue }
      var hasher = ContentHasher()
      try source.streamPhoto(photo) { hasher.update($0) }
      let path = "photos/\(hasher.finalize().hex).\(photo.format.fileExtension)"
      files[possession.id] = PageContext.PhotoFile(
        path: path, width: photo.width, height: photo.height)
      if distinct[path] == nil {
        distinct[path] = photo
      }
    }
    for (path, photo) in distinct.sorted(by: { $0.key < $1.key }) {
      try writer.add(path) { sink in
        try source.streamPhoto(photo) { try sink.write($0) }
      }
    }
    return files
  }

  // MARK: - Pages

  private static func render(
    _ pages: [SitePlan.Page], plan: SitePlan, context: PageContext, renderer: PageRenderer,
    writer: OutputWriter, jobs: Int, interrupt: InterruptFlag, reporter: Reporter
  ) throws {
    let next = Atomic<Int>(0)
    let done = Atomic<Int>(0)
    let failures = Mutex<[(index: Int, error: any Error)]>([])
    let batch = 64
    let total = pages.count
    DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, total))) { _ in
      while true {
        let start = next.add(batch, ordering: .relaxed).oldValue
        guard start < total, !interrupt.isSet, failures.withLock({ $0.isEmpty }) else { return }
        for index in start..<min(start + batch, total) {
          let page = pages[index]
          do {
            let bytes = try renderer.render(page, context: context)
            try writer.add(plan.file(of: page), bytes: bytes)
          } catch {
            failures.withLock { $0.append((index, error)) }
            return
          }
        }
        let finished = done.add(min(batch, total - start), ordering: .relaxed).newValue
        if finished % 2048 < batch || finished == total {
          reporter.progress(finished, total)
        }
      }
    }
    if let first = failures.withLock({ $0.min { $0.index < $1.index } }) {
      throw first.error
    }
    if interrupt.isSet {
      throw OutputError(path: writer.root, reason: OutputError.interrupted)
    }
  }

  // MARK: - Data, sitemap

  private static func addDataFiles(
    plan: SitePlan, labels: Labels, photoFiles: [Int64: PageContext.PhotoFile],
    to writer: OutputWriter
  ) throws {
    if plan.hasTodos {
      let todos = plan.todosByPK
      try writer.add("data/todos.json", bytes: DataExport.todosJSON(todos, labels: labels))
      try writer.add("data/todos.csv", bytes: DataExport.todosCSV(todos, labels: labels))
    }
    if plan.hasPossessions {
      let urls = photoFiles.mapValues(\.path)
      try writer.add(
        "data/possessions.json",
        bytes: DataExport.possessionsJSON(plan.possessions, photoURLs: urls))
      try writer.add(
        "data/possessions.csv", bytes: DataExport.possessionsCSV(plan.possessions, photoURLs: urls))
    }
    if plan.hasContacts {
      let contacts = plan.contacts.sorted { $0.id < $1.id }
      try writer.add("data/contacts.json", bytes: DataExport.contactsJSON(contacts))
      try writer.add("data/contacts.csv", bytes: DataExport.contactsCSV(contacts))
    }
  }

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
