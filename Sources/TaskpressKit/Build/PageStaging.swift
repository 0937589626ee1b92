import Dispatch
import Foundation
import Mustache
import Synchronization

extension Build {
  /// One piece of the work of staging a site.
  private enum Work {
    case todoJSON
    case todoCSV
    case possessionData
    case contactData
    /// Pages `range` of the plan's pages.
    case pages(Range<Int>)
  }

  /// Pages handed to the writer at once (`RenderPaths.batches`; one at a time without it).
  static let pageBatch = 64

  /// What `stagePages` staged: the photo files by possession id, each page's fingerprint by
  /// the key of its file (`FingerprintRecord`), and how many pages it rendered.
  struct StagedPages {
    var photoFiles: [Int64: PageContext.PhotoFile]
    var fingerprints: [(key: UInt64, value: KeyedHash)]
    var rendered: Int
    /// The recorded fingerprints, when only the pages that show a changed row were
    /// fingerprinted among those that show to-dos (`RenderPaths.dependents`): the record of
    /// this build is that one with `fingerprints` in place.
    var basis: FingerprintRecord?

    /// The record of this build's fingerprints.
    consuming func record() -> FingerprintRecord {
      basis.map { $0.updating(fingerprints) } ?? FingerprintRecord(fingerprints)
    }
  }

  /// Stages every page and the data copies on `jobs` threads.
  ///
  /// Which pages are rendered, kept (`OutputWriter.keep`) or carried over
  /// (`OutputWriter.carryOver(_:)`) is the `KeepPlan` of `last` (what the build that wrote the
  /// site left) and this build's switches; each thread asks it of its pages with their fresh
  /// fingerprints and acts on the answer. Without `RenderPaths.incremental`, or with nothing
  /// recorded, the plan is `KeepPlan.renderEverything`.
  ///
  /// The photos are staged by a thread of their own (see `run`), which reports to `staging`;
  /// the pages that show no photo go first, and the possession pages and `possessions.json`
  /// wait for the photos' names; with `RenderPaths.sharedPhotoWork` one thread runs the photos'
  /// pieces of work waiting before each piece of its own, and every thread while it waits for
  /// them. Each thread renders pages into a buffer of its own and hands
  /// the bytes to the writer: the writer never calls back into rendering.
  static func stagePages(
    _ allPages: SitePlan.PageList, plan: SitePlan, renderer: PageRenderer, theme: Theme,
    writer: OutputWriter, staging shared: StagingState,
    makeContext: @escaping @Sendable ([Int64: PageContext.PhotoFile]) -> PageContext,
    fingerprints: PageFingerprints, last: LastPages, jobs: Int, interrupt: InterruptFlag,
    reporter: Reporter
  ) throws -> StagedPages {
    // Which pages are rendered, kept or carried over: decided by the plan, done here.
    let keeping = KeepPlan(
      last: last, pages: allPages, fingerprints: fingerprints, paths: renderer.paths)
    // The pages staged; with `keeping.narrows`, the others are carried over unlooked at.
    let pages = keeping.narrows ? allPages.filter(keeping.stages) : allPages
    let batch = renderer.paths.contains(.batches) ? pageBatch : 1
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
    // Each data copy of the to-dos on a thread of its own, early: they are the largest pieces.
    if plan.hasTodos { work.insert(contentsOf: [.todoJSON, .todoCSV], at: min(1, work.count)) }
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
    let renderers =
      try [renderer]
      + (1..<threads).map { _ in try PageRenderer(theme: theme, paths: renderer.paths) }
    let plainContexts = (0..<threads).map { _ in makeContext([:]) }
    let collected = Mutex<
      (
        fingerprints: [(key: UInt64, value: KeyedHash)], carried: [UInt64], renderedKeys: [UInt64],
        rendered: Int
      )
    >(([], [], [], 0))
    // Room for every page's fingerprint: the whole does not grow by copying itself.
    collected.withLock { $0.fingerprints.reserveCapacity(pages.count) }
    // Each thread's fingerprints go there batch by batch, not all at its end: the whole and
    // each thread's part (16 MB for a million pages) are not both held at once.
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      var fingerprinted: [(key: UInt64, value: KeyedHash)] = []
      var carried: [UInt64] = []
      // With `keeping.narrows`: the keys of the pages fingerprinted and rendered (not carried
      // over).
      var renderedKeys: [UInt64] = []
      var rendered = 0
      defer {
        collected.withLock {
          $0.fingerprints += fingerprinted
          $0.carried += carried
          $0.renderedKeys += renderedKeys
          $0.rendered += rendered
        }
      }
      let renderer = renderers[thread]
      let plainContext = plainContexts[thread]
      var photoContext: PageContext?
      let buffers = RenderBuffers()
      var output = RenderBuffer(capacity: 256 << 10)
      var ends: [Int] = []
      while true {
        // The photos' work first (`RenderPaths.sharedPhotoWork`; none is handed out without).
        shared.helpWithPhotos(helpers: threads - 1)
        let index = next.add(1, ordering: .relaxed).oldValue
        guard index < queue.count, !interrupt.isSet, !shared.failed else { return }
        do {
          switch queue[index] {
          case .todoJSON, .todoCSV:
            guard plainContext.dataCopies.contains(.todos) else { continue }
            let strings = plainContext.strings
            let due = plan.hasDueDates
            if case .todoJSON = queue[index] {
              if renderer.paths.contains(.streamedData) {
                let (rows, positions) = (plan.todos, Array(plan.todoPositionsByPK))
                let file = try writer.openFile("data/todos.json")
                try DataExport.todosJSON(rows, at: positions, strings: strings, dueDates: due) {
                  try file.write(UnsafeRawBufferPointer($0))
                }
                try writer.add(file)
              } else {
                try writer.add(
                  "data/todos.json",
                  DataExport.todosJSON(Array(plan.todosByPK), strings: strings, dueDates: due))
              }
            } else {
              let bom = plainContext.csvByteOrderMark
              if renderer.paths.contains(.streamedData) {
                let (rows, positions) = (plan.todos, Array(plan.todoPositionsByPK))
                let file = try writer.openFile("data/todos.csv")
                if bom { try DataExport.byteOrderMark.withUnsafeBytes { try file.write($0) } }
                try DataExport.todosCSV(rows, at: positions, strings: strings, dueDates: due) {
                  try file.write(UnsafeRawBufferPointer($0))
                }
                try writer.add(file)
              } else {
                try writer.add(
                  "data/todos.csv",
                  DataExport.todosCSV(Array(plan.todosByPK), strings: strings, dueDates: due),
                  byteOrderMark: bom)
              }
            }
          case .possessionData:
            guard plainContext.dataCopies.contains(.possessions) else { continue }
            guard let files = shared.waitForPhotos(interrupt) else { return }
            try writer.add(
              "data/possessions.json",
              DataExport.possessionsJSON(plan.possessions, photoFiles: files.photoFiles))
            try writer.add(
              "data/possessions.csv",
              DataExport.possessionsCSV(plan.possessions, photoFiles: files.photoFiles),
              byteOrderMark: plainContext.csvByteOrderMark)
          case .contactData:
            guard plainContext.dataCopies.contains(.contacts) else { continue }
            let contacts = plan.contacts.sorted { $0.id < $1.id }
            try writer.add("data/contacts.json", DataExport.contactsJSON(contacts))
            try writer.add(
              "data/contacts.csv", DataExport.contactsCSV(contacts),
              byteOrderMark: plainContext.csvByteOrderMark)
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
            var batch = range.map { pages[$0] }
            var files = batch.map { plan.file(of: $0) }
            // The pages whose inputs are those of the file on disk are kept, not rendered.
            var unchanged: [Int] = []
            var kept = [Bool](repeating: false, count: batch.count)
            for (offset, (page, file)) in zip(batch, files).enumerated() {
              guard
                let fingerprint = fingerprints.fingerprint(
                  of: page, file: file, photoFiles: context.photoFiles)
              else { continue }
              let key = FingerprintRecord.key(file)
              fingerprinted.append((key, fingerprint))
              switch keeping.decision(key: key, fingerprint: fingerprint) {
              case .keep:
                unchanged.append(offset)
              case .carry:
                kept[offset] = true
                if !keeping.narrows { carried.append(key) }
              case .render:
                if keeping.narrows { renderedKeys.append(key) }
              }
            }
            if !fingerprinted.isEmpty {
              collected.withLock { $0.fingerprints += fingerprinted }
              fingerprinted.removeAll(keepingCapacity: true)
            }
            if !unchanged.isEmpty {
              for (offset, isKept) in zip(unchanged, try writer.keep(unchanged.map { files[$0] }))
              where isKept {
                kept[offset] = true
              }
            }
            if kept.contains(true) {
              batch = zip(batch, kept).filter { !$0.1 }.map(\.0)
              files = zip(files, kept).filter { !$0.1 }.map(\.0)
            }
            // Render the rest of the batch, then hand its bytes to the writer.
            output.removeAll()
            ends.removeAll(keepingCapacity: true)
            for (page, file) in zip(batch, files) {
              try renderer.render(
                page, file: file, context: context, appendingTo: output, buffers: buffers)
              ends.append(output.count)
            }
            rendered += batch.count
            do {
              try writer.add(files, contents: UnsafeRawBufferPointer(output.bytes), ends: ends)
            } catch let error as OutputError where error.reason == OutputError.interrupted {
              return
            }
            // A buffer grown for a large page (the board's) is let go once it is written.
            if output.count > 4 << 20 { output = RenderBuffer(capacity: 256 << 10) }
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
    let (fingerprinted, carried, renderedKeys, rendered) = collected.withLock {
      ($0.fingerprints, $0.carried, $0.renderedKeys, $0.rendered)
    }
    if let keys = keeping.carriedKeys(carried: carried, rendered: renderedKeys) {
      writer.carryOver(PathKeys(keys, keyedBy: .fingerprintRecord))
    }
    return StagedPages(
      photoFiles: shared.photoFiles, fingerprints: fingerprinted, rendered: rendered,
      basis: keeping.basis)
  }

  /// Whether a page shows photos, and so waits for them to be staged.
  private static func showsPhotos(_ page: SitePlan.Page) -> Bool {
    switch page {
    case .possessions, .possession, .possessionsFront: true
    default: false
    }
  }
}
