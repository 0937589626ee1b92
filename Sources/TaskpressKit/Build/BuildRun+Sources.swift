import Dispatch
import Foundation

extension Build {
  /// What reading the sources and the last build hands to the plan.
  struct SourcesRead {
    var data = SiteData()
    /// The last build (empty when nothing changed, or on a first build).
    var previous = PreviousBuild()
    /// The positions of the to-dos that differ from those of the copy the last build recorded,
    /// when only those rows of it were read (`LastBuild.take`).
    var differing: [Int]?
    /// Whether the to-dos are compared as soon as they are read (`RenderPaths.earlyTodoDiff`).
    var comparesTodos = false
    /// Whether the inputs are those of the previous build and its files are intact.
    var unchanged = false
  }

  /// What the plan hands to the staging of the site.
  struct Planned {
    var plan: SitePlan
    var previous: PreviousBuild
    var timelines: TodoHistory?
    /// A rebuild of a site without to-do histories: the to-dos' pages show them from now on.
    var startsTodoHistories: Bool
  }
}

extension Build.BuildRun {
  /// Reads every source, each in one read transaction: the to-dos on a thread of their own
  /// while this one reads the others, and then stages the photos on a thread of their own (they
  /// need only the possessions) while the to-dos are still being read; then the last build
  /// (`LastBuild`, once). Reports the warnings, in the order of the sources, as do the errors:
  /// to-dos, possessions, contacts, then the last build's.
  func readSources() throws -> Build.SourcesRead {
    summary.sourcesRead = true
    let renderer = prepared.renderer
    // Whether libvips can render the social card, asked only by a build that reads its sources
    // (loading libvips is most of a rebuild that stops early); its warning is recorded with the
    // sources'.
    let socialCardPlan = Build.socialCard(options)
    // The photos' key, like the inputs', before the possessions are opened (a build that stops
    // early reads neither the database nor its log again for it).
    photosKey = Build.photosKey(options, settings: prepared.photoSettings, key: writer.hashKey)

    var read = Build.SourcesRead()
    if !readsEarly { threads.startReadingTodos(options, busyTimeout: busyTimeout) }
    var possessionWarnings: [BuildWarning] = []
    var contactWarnings: [BuildWarning] = []
    var otherError: (any Error)?
    do {
      if let path = options.possessions {
        let source = try PossessionSource(
          path: path, mapping: options.mapping.possessions, photoFolder: options.photoFolder,
          busyTimeout: busyTimeout, queryTimeout: options.queryTimeout)
        threads.possessionSource = source
        let loaded = try source.load()
        read.data.possessions = loaded.possessions
        read.data.hasPossessions = true
        possessionWarnings = loaded.warnings
        // Photos stored as files are not in the databases' identity: the files the rows name,
        // as found now, join both keys.
        if let files = source.photoFilesDescription {
          photoFilesKey = " photo-files " + writer.hashKey.hash(files).hex
          inputs += photoFilesKey
          photosKey = photosKey.map { $0 + photoFilesKey }
        }
      }
      // Nothing to do when the inputs are those of the previous build and its files are
      // intact (the sources are still read, for their warnings).
      // A copy of the site given with `--previous` is compared with every time.
      read.unchanged =
        options.previous == nil
        && (previousRecord.map { $0.key == inputs && writer.previousFilesAreIntact() } ?? false)
      if !read.unchanged, let source = threads.possessionSource {
        startStagingPhotos(read.data.possessions, from: source)
      } else {
        threads.staging.photosDone([:])
      }
      if let path = options.contacts {
        let source = try ContactSource(
          path: path, mapping: options.mapping.contacts, busyTimeout: busyTimeout,
          queryTimeout: options.queryTimeout)
        defer { source.close() }
        let loaded = try source.load()
        read.data.contacts = loaded.contacts
        read.data.hasContacts = true
        contactWarnings = loaded.warnings
      }
    } catch {
      otherError = error
    }
    // The last build, to compare with (not needed when nothing changed), read while the to-dos
    // are, if not started early: its error, if any, comes after the sources'.
    if !read.unchanged, otherError == nil, !readsEarly { lastBuild.read() }
    threads.reading.wait()
    // Errors and warnings come in the order of the sources: to-dos, possessions, contacts.
    var warnings = prepared.warnings
    if let result = threads.todos.withLock({ $0.take() }) {
      let loaded = try result.get()
      read.data.packedTodos = loaded.todos
      read.data.hasTodos = true
      read.data.hasDueDates = loaded.hasDueDates
      warnings += loaded.warnings
    }
    if let otherError { throw otherError }
    warnings += possessionWarnings + contactWarnings + socialCardPlan.warnings
    sourceWarnings = Array(warnings.dropFirst(prepared.warnings.count))
    if read.unchanged, let recorded = previousRecord?.sourceWarnings,
      recorded.starts(with: sourceWarnings)
    {
      // The photos' warnings, recorded after the databases' ones: the photos were not read.
      warnings += recorded.dropFirst(sourceWarnings.count)
      sourceWarnings = recorded
    }
    // What the previous build lacks is warned about, but not recorded with the sources'
    // warnings.
    read.comparesTodos = renderer.paths.contains(.earlyTodoDiff) && read.data.hasTodos
    if !read.unchanged {
      (read.previous, read.differing) = try lastBuild.take(
        comparingWith: read.comparesTodos ? read.data.packedTodos : nil,
        copyReader: renderer.paths.contains(.copyReader), key: writer.hashKey)
    }
    if options.strict, !warnings.isEmpty || !read.previous.warnings.isEmpty {
      // The build fails: it says so with the photos' warnings too, as a build without
      // --strict would list them.
      threads.stagingPhotos.wait()
      warnings += threads.photoWarnings.withLock { $0.warnings }
    }
    try report(warnings + read.previous.warnings)
    cardImage =
      socialCardPlan.publishes ? options.baseURL.map { Build.socialCardURL(baseURL: $0) } : nil
    return read
  }

  /// Stages the photos of `possessions`, read from `source`, on a thread of their own (with
  /// `--jobs 1`, here, while the to-dos are read, and the pages after them: no more than one
  /// thread works once the sources are read). The photos the previous build recorded are kept
  /// as they are when they can be (no photo is read); else each photo is published.
  private func startStagingPhotos(_ possessions: [Possession], from source: PossessionSource) {
    nonisolated(unsafe) let source = source
    let (threads, options, writer, probe) = (threads, options, writer, probe)
    let (photosKey, settings, cache, jobs) = (
      photosKey, prepared.photoSettings, prepared.photoCache, prepared.jobs
    )
    let photoFilesKey = photoFilesKey
    let staging = threads.staging
    let last = lastBuild.records
    let stagePhotos: @Sendable () -> Void = {
      do {
        if let recorded = try Build.recordedPhotos(
          key: photosKey, last: last, options: options, settings: settings,
          photoFiles: photoFilesKey, writer: writer)
        {
          threads.reusedPhotos.withLock { $0 = recorded }
          // The same renditions are kept: what they were made from is what was recorded.
          let sources = writer.previousRecord(RenditionSources.fileName)
          threads.renditionSources.withLock { $0 = sources }
          threads.photoWarnings.withLock { $0 = (recorded.warnings, 0) }
          staging.photosDone(recorded.photos.compactMapValues(PageContext.PhotoFile.init))
          return
        }
        let photosStarted = ContinuousClock.now
        let (files, warnings, decoded, sources) = try Build.exportPhotos(
          possessions, from: source, to: writer, settings: settings, cache: cache,
          jobs: jobs, sharing: options.renderPaths.contains(.sharedPhotoWork) ? staging : nil,
          stopping: {
            probe.beforePhoto { staging.isCancelled }
            return staging.isStopping
          })
        threads.photoWarnings.withLock { $0 = (warnings, decoded) }
        threads.renditionSources.withLock { $0 = sources.bytes }
        // Before the pages are told: they read it once the photos are done.
        threads.photoSeconds.withLock { $0 = Build.seconds(since: photosStarted) }
        staging.photosDone(files)
      } catch {
        staging.fail(-1, error)
      }
    }
    if jobs > 1 {
      DispatchQueue.global().async(group: threads.stagingPhotos, execute: stagePhotos)
    } else {
      stagePhotos()
    }
  }

  /// Plans the site: sorts the rows and lists the pages, compares the to-dos with the last
  /// build's (as read, in pk order, else with the plan's rows) and carries their histories on.
  /// The rows move from `read` into the plan, and the previous rows are let go of before the
  /// plan copies this build's.
  func plan(_ read: consuming Build.SourcesRead) -> Build.Planned {
    let labels = prepared.labels
    let inKeyOrder = prepared.renderer.paths.contains(.keyOrderDiff)
    let (comparesTodos, differing) = (read.comparesTodos, read.differing)
    // Moved out of `read`, so that no copy of the rows outlives these.
    var data = moveOut(&read.data, leaving: SiteData())
    var previous = moveOut(&read.previous, leaving: PreviousBuild())
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

    // The to-dos' timelines show the date this build records.
    let timelines =
      plan.hasTodos
      ? Build.timelines(
        previous: previous, plan: plan, labels: labels, inKeyOrder: inKeyOrder, date: date,
        givenDate: Build.givenDate(options, sourceDateEpoch: sourceDateEpoch))
      : nil
    // A rebuild of a site without to-do histories: the to-dos' pages show them from now on.
    let startsTodoHistories = previous.todoHistory == nil && !previous.isEmpty

    summary.phases.append(.init("read", Build.seconds(since: started)))
    return Build.Planned(
      plan: plan, previous: previous, timelines: timelines,
      startsTodoHistories: startsTodoHistories)
  }
}

/// `value`, moved out of its place (no copy of it left there), with `empty` put in its place.
private func moveOut<T>(_ value: inout T, leaving empty: T) -> T {
  var moved = empty
  swap(&moved, &value)
  return moved
}
