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
    boundHeap()
    // 1. Prepare: the theme and its labels, every template checked, the renderer and the photo
    // settings, before anything is read or written.
    let prepared = try Prepared(options, sourceDateEpoch: sourceDateEpoch)
    // The threads the phases start, waited for in one order on every way out.
    let threads = BuildThreads()
    defer { threads.finish() }
    // 2. Open the output folder: the inputs key, the lock, and (when the inputs are not the
    // recorded ones) the to-dos, the last build and its files read from the start.
    let run = try BuildRun(
      opening: prepared, options: options, sourceDateEpoch: sourceDateEpoch,
      interrupt: interrupt, busyTimeout: busyTimeout, reporter: reporter, probe: probe,
      commitStepLimit: commitStepLimit, threads: threads, started: started)
    // 3. Nothing to read when the inputs are the recorded ones and the site is intact.
    if let summary = try run.stopIfRecorded() { return summary }
    // 4. Read the sources (the photos staged as soon as the possessions are) and the last
    // build, and report their warnings; stop there when nothing changed.
    let sources = try run.readSources()
    if let summary = run.stopIfUnchanged(sources) { return summary }
    // 5. Plan.
    let planned = run.plan(consume sources)
    do {
      // 6. Stage the site: pages, changes, assets, sitemap and the rest, while the photos are
      // finished; the plan is let go of when it is staged.
      let staged = try run.stageSite(consume planned)
      // 7. Commit, with the records for the next build: the pages' fingerprints (sorted in
      // the room the plan left), written by the commit before the folder is unlocked.
      try run.commit(fingerprints: staged.record().bytes)
    } catch {
      run.abort()
      throw error
    }
    var summary = run.summary
    freeInBackground(consume run)
    summary.seconds = seconds(since: started)
    return summary
  }

  /// Lets go of `value` on another thread: the rows, the plan and the writer's records (with the
  /// build, `BuildRun`) of a large site are hundreds of thousands of objects, which take tens of milliseconds to free,
  /// and the build need not wait for that.
  static func freeInBackground<T: Sendable>(_ value: consuming T) {
    DispatchQueue.global(qos: .utility).async { [value] in
      withExtendedLifetime(value) {}
      #if canImport(Glibc)
        // The rows were a million small allocations: give their pages back to the system,
        // so that what the commit allocates next does not come on top of them.
        _ = systemMallocTrim(0)
      #endif
    }
  }

  /// Keeps glibc's heap from keeping what a build lets go of. By default glibc raises its mmap
  /// threshold to the size of each large block freed (up to 32 MB), so that the arrays a build
  /// makes after its first large one is freed come from the heap, where the holes they leave
  /// when freed are kept: a million to-dos' build peaked 15 MB higher (252 MB against 237). A
  /// fixed threshold (which also turns the raising off) gives every block of 128 KB or more
  /// back when it is freed; the photo library sets the same (`tpv_bound_heap`).
  static func boundHeap() {
    #if canImport(Glibc)
      // M_MMAP_THRESHOLD in <malloc.h>, which the Glibc module leaves out.
      _ = systemMallopt(-3, 128 << 10)
    #endif
  }

  static func seconds(since start: ContinuousClock.Instant) -> Double {
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
  func systemMallocTrim(_ pad: Int) -> Int32

  /// glibc's `mallopt` (in `<malloc.h>`): sets one of malloc's parameters.
  @_silgen_name("mallopt")
  func systemMallopt(_ parameter: Int32, _ value: Int32) -> Int32
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
