import Dispatch
import Foundation

extension Build {
  /// What a build settles before it opens the output folder: the theme and its labels, every
  /// template checked against the variables it can see, the renderer and the photo settings.
  struct Prepared {
    let theme: Theme
    let labels: Labels
    /// The theme's warnings: the templates', the labels' and AVIF's, in that order.
    let warnings: [BuildWarning]
    /// The build's day, for the pages (`site.generated`, overdue marks, the calendar's today):
    /// `--date`'s, else `SOURCE_DATE_EPOCH`'s, as `Build.givenDate` takes them.
    let generated: String?
    let jobs: Int
    let renderer: PageRenderer
    let photoSettings: PhotoSettings
    let photoCache: PhotoCache?

    init(_ options: BuildOptions, sourceDateEpoch: String?) throws {
      theme = try Theme.load(overrides: options.templates)
      var (labels, labelWarnings) = try theme.labels(options.locale)
      // The levels the to-dos' value map labels (`"4:Someday"`); a bad map is the source's
      // error, when it is read.
      for (level, label) in (try? options.mapping.todos.priorityValues())??.labels ?? [:] {
        labels.texts[Labels.priorityKey(level)] = label
      }
      self.labels = labels
      // Every template is checked against the variables it can see before anything is read.
      var checker = TemplateCheck(theme: theme)
      let templateWarnings = try checker.run() + labelWarnings
      // `SOURCE_DATE_EPOCH` is checked even when `--date` is given: it is still an input.
      let epochDay = try sourceDateEpoch.map(Build.isoDate(sourceDateEpoch:))
      generated = options.date.map { String($0.prefix(10)) } ?? epochDay
      jobs = options.jobs ?? ProcessInfo.processInfo.activeProcessorCount
      // Every template is checked before anything is read or written.
      renderer = try PageRenderer(theme: theme, paths: options.renderPaths)
      var settings = try PhotoSettings(theme: theme, options: options)
      // AVIF asked for where libvips cannot encode it: WebP alone, and a warning.
      let avifWarnings =
        options.possessions == nil ? [] : settings.withoutUnavailableAVIF { Vips.avifUnavailable }
      photoSettings = settings
      warnings = templateWarnings + avifWarnings
      photoCache = try options.photoCache.map {
        try PhotoCache(folder: $0, limit: options.photoCacheSize)
      }
    }
  }

  /// One build as its phases see it: what `Build.run` calls them with, what they hand on to
  /// each other, and the summary they fill in. The phases run in `Build.run`'s order on the
  /// build's thread; the threads they start get only its `Sendable` parts (`BuildThreads` and
  /// the values they need). It is `Sendable` only so that, once the build is done, it can be let
  /// go of on another thread with the writer's records (`Build.freeInBackground`).
  final class BuildRun: @unchecked Sendable {
    let options: BuildOptions
    let sourceDateEpoch: String?
    let interrupt: InterruptFlag
    let busyTimeout: Duration
    let reporter: Reporter
    let probe: Probe
    let started: ContinuousClock.Instant
    let prepared: Prepared
    let threads: BuildThreads
    let writer: OutputWriter
    /// The key of this build's inputs, under the folder's key, with the history limit.
    /// With the photo files the possessions name, once they are read (`photoFilesKey`).
    var inputs: String
    /// What the last build recorded of its inputs (`LastBuild.records`).
    let previousRecord: InputsRecord?
    /// Whether the inputs are not the recorded ones (a guess, made before the output folder is
    /// opened): the to-dos, the last build and its files are read from the start.
    let readsEarly: Bool
    /// The last build, to compare with.
    let lastBuild: LastBuild
    var summary = BuildSummary()
    /// The warnings recorded with the inputs, for a rebuild that reads nothing: the sources',
    /// then the photos'.
    var sourceWarnings: [BuildWarning] = []
    /// The photos' key (`Build.photosKey`), taken before the possessions are opened.
    var photosKey: String?
    /// The part of both keys that names the photo files the possessions' rows hold (empty when
    /// they hold none), found when the possessions are read.
    var photoFilesKey = ""
    /// The social card's URL, when this build publishes one.
    var cardImage: String?
    /// What the commit records for the next build, gathered while the site is staged.
    var records = Records()
    /// The date this build records, once asked for (`date()`).
    private var recordedDate: String?

    /// What the commit records for the next build beside the manifest.
    struct Records {
      var snapshots: [(name: String, bytes: [UInt8]?)] = []
      var fingerprints: [UInt8] = []
      /// The rows' record: made into bytes by the commit, once the plan is let go of (its
      /// rows are the fingerprints' arrays, not a copy).
      var rows: RowRecord?
      /// What the record of the to-dos' data copy is made of (`TodoCopyRecord`): made into
      /// the record by the commit, once the plan is let go of.
      var todoCopy: TodoCopyRows?
      var photos: PhotoRecord?
      /// `RenditionSources`, as bytes.
      var renditions: [UInt8]?
      var card: [UInt8]?
      /// The search index's record (`SearchRecord`); nil removes it (`--search none`).
      var search: [UInt8]?
      /// The hash of each to-do's row by position in the plan (`PageFingerprints.todoRows`),
      /// which the search index's shards are summed up by.
      var todoRowHashes: [KeyedHash]?
    }

    /// Opens the output folder: takes the inputs key, locks the folder (the writer), and starts
    /// what a build whose inputs are not the recorded ones reads from the start: the to-dos
    /// now, the last build once the folder is locked, its files once the manifest is loaded.
    init(
      opening prepared: Prepared, options: BuildOptions, sourceDateEpoch: String?,
      interrupt: InterruptFlag, busyTimeout: Duration, reporter: Reporter, probe: Probe,
      commitStepLimit: Int?, threads: BuildThreads, started: ContinuousClock.Instant
    ) throws {
      self.options = options
      self.sourceDateEpoch = sourceDateEpoch
      self.interrupt = interrupt
      self.busyTimeout = busyTimeout
      self.reporter = reporter
      self.probe = probe
      self.started = started
      self.prepared = prepared
      self.threads = threads
      // The key of the inputs is taken before the sources are opened: a database written after
      // this point gives the next build another key, so it never skips a change.
      let inputsDescription = Build.inputsDescription(
        options, theme: prepared.theme, sourceDateEpoch: sourceDateEpoch)
      let historyLimit =
        " history-limit \(options.historyLimit)"
        + " sitemap \(options.sitemapLimits.urls) \(options.sitemapLimits.bytes)"

      // The to-dos are read on a thread of their own, and so, in a build that reads them early,
      // is the last build. A build whose inputs are not the recorded ones (a guess, made before
      // the output folder is opened) reads its sources and the last build whatever it finds
      // there: it starts reading the to-dos now, and the last build once the folder is locked,
      // while the previous manifest is loaded. A build that may find nothing to do starts
      // neither.
      let guessedInputs = OutputWriter.unverifiedKey(ofOutput: options.output).map {
        $0.hash(inputsDescription).hex + historyLimit
      }
      // Read before the lock on purpose, for this guess only: whether the build stops is
      // decided by the record read again under the lock (`LastBuild.load(from:)`).
      let readsEarly =
        options.previous != nil || guessedInputs == nil
        || LastRecords.unverifiedInputsKey(ofOutput: options.output) != guessedInputs
      self.readsEarly = readsEarly
      let lastBuild = LastBuild(options)
      self.lastBuild = lastBuild
      if readsEarly { threads.startReadingTodos(options, busyTimeout: busyTimeout) }
      let reading = threads.reading
      // Locked, then the last build read beside the manifest's loading.
      let locked = try OutputWriter.lock(root: options.output, interrupt: interrupt)
      if readsEarly { lastBuild.start(in: reading) }
      let writer = try OutputWriter(loading: locked)
      writer.commitStepLimit = commitStepLimit
      writer.recordStepLimit = probe.recordStepLimit
      writer.recordWritten = probe.beforeRecord
      writer.folderSwap = options.folderSwap
      self.writer = writer
      // The key of the inputs, under the folder's key (known now), of what was taken above.
      inputs = writer.hashKey.hash(inputsDescription).hex + historyLimit
      // The last build's records, read once, now that the folder is locked and its manifest
      // loaded: under the records in force for it. The rest of the build takes them from
      // `lastBuild.records`.
      let records = lastBuild.load(from: writer)
      previousRecord = records.inputs
      // What the last build left to keep its pages by, and which of its files changed: in a
      // build that reads its sources, looked at while they are read, else when the pages are
      // staged. The writer is not let go of (nor aborted) before this is done.
      let paths = prepared.renderer.paths
      if readsEarly, paths.contains(.earlyFileCheck) {
        DispatchQueue.global().async(group: threads.checking) {
          let found = LastPages(records, writer: writer, paths: paths)
          threads.lastPages.withLock { $0 = found }
        }
      }
    }

    /// Stops before anything is read when the inputs are provably those of the previous build
    /// and its files are intact: its warnings about the databases are reported again. A copy of
    /// the site given with `--previous` is compared with every time. Nil when the build goes on.
    func stopIfRecorded() throws -> BuildSummary? {
      guard options.previous == nil, prepared.renderer.paths.contains(.recordedWarnings),
        let recorded = previousRecord,
        recorded.key == inputs, let sourceWarnings = recorded.sourceWarnings,
        writer.previousFilesAreIntact()
      else { return nil }
      try report(prepared.warnings + sourceWarnings)
      return unchangedSummary(recorded)
    }

    /// Stops once the sources are read (`read.unchanged`: for their warnings, which a record of
    /// an earlier version lacks) when the inputs are those of the previous build and its files
    /// are intact. Nil when the build goes on.
    func stopIfUnchanged(_ read: SourcesRead) -> BuildSummary? {
      guard read.unchanged, var recorded = previousRecord else { return nil }
      if recorded.sourceWarnings != sourceWarnings {
        // A record of an earlier version, without the warnings: recorded now, for next time.
        recorded.sourceWarnings = sourceWarnings
        writer.recordInputs(recorded.text)
      }
      return unchangedSummary(recorded)
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
    private func unchangedSummary(_ recorded: InputsRecord) -> BuildSummary {
      threads.checking.wait()
      writer.recordIntactFiles()
      writer.abort()
      summary.unchanged = writer.previousFileCount
      summary.filesRehashed = writer.filesRehashed
      summary.pages = recorded.pages
      summary.photos = recorded.photos
      summary.seconds = Build.seconds(since: started)
      return summary
    }

    /// The date this build records, asked for once: the to-dos' timelines and the changes show
    /// it.
    func date() -> String {
      if let recordedDate { return recordedDate }
      let date = Build.buildDate(options, sourceDateEpoch: sourceDateEpoch)
      recordedDate = date
      return date
    }

    /// Lets go of the staging after a failure: the photo thread may still be adding a file, so
    /// it is stopped first, and the check of the last build's files is waited for.
    func abort() {
      threads.stopPhotos()
      threads.checking.wait()
      writer.abort()
      probe.aborted()
    }
  }
}
