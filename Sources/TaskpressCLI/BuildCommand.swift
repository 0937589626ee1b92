import Foundation
import Synchronization
import TaskpressKit

/// `taskpress build`: merges the options, runs the build, reports.
enum BuildCommand {
  /// The options of `parsed`: `taskpress.json` merged in, and `TASKPRESS_RENDER` (for tests and
  /// debugging: which fast paths pages are rendered with) applied.
  static func options(
    _ parsed: ParsedArguments, io: CommandIO
  ) throws(UsageError) -> BuildOptions {
    var options = try Configuration.buildOptions(
      from: parsed, currentDirectory: io.currentDirectory)
    if let swap = io.environment["TASKPRESS_SWAP"] {
      guard let mode = FolderSwap.Mode(rawValue: swap) else {
        throw UsageError(
          "TASKPRESS_SWAP: unknown value '\(swap)'; expected "
            + FolderSwap.Mode.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", "))
      }
      options.folderSwap = mode
    }
    if let paths = io.environment["TASKPRESS_RENDER"] {
      do {
        options.renderPaths = try RenderPaths(parsing: paths)
      } catch {
        throw UsageError(error.message)
      }
    }
    return options
  }

  /// `options(_:io:)`, with every value a build needs checked before anything is read or built
  /// (a source given, `SOURCE_DATE_EPOCH`, the report's path); nil once the usage error is
  /// printed. `build` and `serve` both start here.
  static func checkedOptions(_ parsed: ParsedArguments, io: CommandIO) -> BuildOptions? {
    let options: BuildOptions
    do {
      options = try Self.options(parsed, io: io)
    } catch {
      io.err("error: \(error.message)\n")
      return nil
    }
    guard options.todos != nil || options.possessions != nil || options.contacts != nil else {
      io.err(
        "error: nothing to build: give --todos, --possessions or --contacts"
          + " (or set them in taskpress.json)\n")
      return nil
    }

    // Every value is checked before anything is read or built: a bad one is a usage error.
    if let sourceDateEpoch = io.environment["SOURCE_DATE_EPOCH"] {
      do {
        _ = try Build.isoDate(sourceDateEpoch: sourceDateEpoch)
      } catch {
        io.err("error: \(error)\n")
        return nil
      }
    }
    if let previous = options.previous {
      var isFolder: ObjCBool = false
      if !FileManager.default.fileExists(atPath: previous, isDirectory: &isFolder)
        || !isFolder.boolValue
      {
        let source =
          parsed.values["previous"] != nil
          ? "'--previous'"
          : "\(parsed.values["config"] ?? Configuration.defaultFile): key 'previous'"
        io.err(
          "error: \(source): no folder '\(previous)'; give a copy of the last published site, or "
            + "leave the option out to compare with the site in the output folder\n")
        return nil
      }
    }
    if let report = options.report {
      let source =
        parsed.values["report"] != nil
        ? "'--report'" : "\(parsed.values["config"] ?? Configuration.defaultFile): key 'report'"
      if let problem = BuildReport.problem(writing: report, source: source) {
        io.err("error: \(problem)\n")
        return nil
      }
    }
    return options
  }

  static func run(
    _ parsed: ParsedArguments, io: CommandIO, interrupt: InterruptFlag = .process,
    busyTimeout: Duration = .seconds(5)
  ) -> Int32 {
    guard let options = checkedOptions(parsed, io: io) else {
      return TaskpressCLI.ExitStatus.usage
    }
    let sourceDateEpoch = io.environment["SOURCE_DATE_EPOCH"]

    let output = OutputSwitches(environment: io.environment, isTerminal: io.errorIsTerminal)
    let progress = ProgressLine(io: io, enabled: !options.quiet && output.showsProgress)
    // Gathered while the build runs, printed once it ends (sorted, grouped by kind).
    let warnings = Mutex<[BuildWarning]>([])
    let reporter = Build.Reporter(
      warning: { warning in warnings.withLock { $0.append(warning) } },
      progress: { done, total in progress.update(done: done, total: total) })
    var report = BuildReport(
      status: .built, exitStatus: TaskpressCLI.ExitStatus.success, output: options.output,
      state: OutputWriter.stateFolder(ofOutput: options.output), summary: BuildSummary(),
      warnings: [], error: nil)
    let status = build(
      options, sourceDateEpoch, interrupt, busyTimeout, reporter, progress, io, &report
    ) {
      progress.clear()
      printWarnings(warnings.withLock { $0 }, options, io)
    }
    report.exitStatus = status
    report.warnings = warnings.withLock { $0 }
    if let path = options.report, let problem = report.write(to: path) {
      io.err("error: \(path): cannot write the report (\(problem))\n")
      return status == TaskpressCLI.ExitStatus.success ? TaskpressCLI.ExitStatus.failure : status
    }
    return status
  }

  /// The note of a first build into a folder that held files taskpress did not write; nil
  /// when it held none (or with `--quiet`).
  static func foundNote(_ summary: BuildSummary, _ options: BuildOptions) -> String? {
    let found = summary.foundAtFirstBuild
    guard !options.quiet, !found.isEmpty else { return nil }
    var names = found.prefix(3).map { "'\($0)'" }.joined(separator: ", ")
    if found.count > 3 { names += " and \(found.count - 3) more" }
    return "'\(options.output)' already held what taskpress did not write (\(names)); the site "
      + "was written beside it, and taskpress will never change or remove it"
  }

  /// Prints a build's warnings on stderr as `options` ask (none with `--quiet`).
  static func printWarnings(_ warnings: [BuildWarning], _ options: BuildOptions, _ io: CommandIO) {
    guard !options.quiet, !warnings.isEmpty else { return }
    var text = ""
    for line in WarningPrinter.lines(warnings, all: options.allWarnings) {
      text += "warning: \(line)\n"
    }
    if let note = WarningPrinter.note(warnings, all: options.allWarnings) {
      text += "note: \(note)\n"
    }
    io.err(text)
  }

  /// Runs the build and prints its outcome; returns the exit status and fills in `report`.
  /// `ended` prints the warnings, once the build has ended and before its outcome.
  private static func build(
    _ options: BuildOptions, _ sourceDateEpoch: String?, _ interrupt: InterruptFlag,
    _ busyTimeout: Duration, _ reporter: Build.Reporter, _ progress: ProgressLine,
    _ io: CommandIO, _ report: inout BuildReport, ended: () -> Void
  ) -> Int32 {
    let summary: BuildSummary
    // A failed build says the site was not changed only when there was one.
    let hadSite = FileManager.default.fileExists(
      atPath: Configuration.resolve(options.output, against: io.currentDirectory))
    do {
      summary = try Build.run(
        options, sourceDateEpoch: sourceDateEpoch, interrupt: interrupt,
        busyTimeout: busyTimeout, reporter: reporter)
    } catch {
      progress.clear()
      ended()
      report.error = "\(error)"
      if interrupt.isSet {
        report.status = .interrupted
        io.err("interrupted: the site in '\(options.output)' was left as it was\n")
        return TaskpressCLI.ExitStatus.interrupted(by: interrupt.signal)
      }
      report.status = .failed
      io.err("error: \(error)\n")
      if let error = error as? ThemeError, error.isUnknownLocale {
        return TaskpressCLI.ExitStatus.usage
      }
      if !(error is BuildError && options.strict), hadSite {
        io.err("the site in '\(options.output)' was not changed\n")
      }
      return TaskpressCLI.ExitStatus.failure
    }
    progress.clear()
    report.summary = summary
    for problem in summary.outputProblems {
      reporter.warning(BuildWarning(file: problem.path, message: problem.reason))
    }
    if let name = options.host, let limits = HostLimits.named(name) {
      var problems: [String]
      do {
        // Read unlocked: this build wrote it (its writer may still be let go of in the
        // background).
        let site = try BuiltSite(output: options.output, locking: .none)
        problems = limits.problems(files: site.files, folders: site.folders)
        site.close()
      } catch {
        problems = ["cannot check the site against \(name)'s limits: \(error)"]
      }
      if options.strict, let first = problems.first {
        ended()
        report.status = .failed
        report.error = "\(options.output): \(first)"
        io.err(
          "error: \(options.output): \(first) (an error with --strict; the site was written)\n")
        return TaskpressCLI.ExitStatus.failure
      }
      for problem in problems {
        reporter.warning(BuildWarning(file: options.output, message: problem))
      }
      report.summary.warnings += problems.count
    }
    ended()
    if summary.repaired, !options.quiet {
      io.err("note: the previous build was interrupted while writing; the site has been repaired\n")
    }
    if let note = foundNote(summary, options) { io.err("note: \(note)\n") }
    if !options.quiet {
      io.out("built \(options.output): \(report.summary.line)\n")
    }
    if interrupt.isSet {
      // The signal came while the site was being written: the writing finished first.
      report.status = .interrupted
      io.err("interrupted: the site in '\(options.output)' was written completely first\n")
      return TaskpressCLI.ExitStatus.interrupted(by: interrupt.signal)
    }
    return TaskpressCLI.ExitStatus.success
  }
}

/// The one line on stderr that says how far rendering is, redrawn in place.
final class ProgressLine: Sendable {
  private let io: CommandIO
  private let enabled: Bool
  private let shown = Mutex(false)

  init(io: CommandIO, enabled: Bool) {
    self.io = io
    self.enabled = enabled
  }

  func update(done: Int, total: Int) {
    guard enabled, total >= 2000 else { return }
    let percent = total == 0 ? 100 : done * 100 / total
    shown.withLock { shown in
      io.err("\r\u{1B}[2Krendering pages: \(done)/\(total) (\(percent)%)")
      shown = true
    }
  }

  func clear() {
    guard enabled else { return }
    shown.withLock { shown in
      if shown { io.err("\r\u{1B}[2K") }
      shown = false
    }
  }
}
