import Foundation
import Synchronization
import TaskpressKit

/// `taskpress build`: merges the options, runs the build, reports.
enum BuildCommand {
  static func run(
    _ parsed: ParsedArguments, io: CommandIO, interrupt: InterruptFlag = .process,
    busyTimeout: Duration = .seconds(5)
  ) -> Int32 {
    var options: BuildOptions
    do {
      options = try Configuration.buildOptions(from: parsed, currentDirectory: io.currentDirectory)
    } catch {
      io.err("error: \(error.message)\n")
      return TaskpressCLI.ExitStatus.usage
    }
    // For tests and debugging: which fast paths pages are rendered with.
    if let paths = io.environment["TASKPRESS_RENDER"] {
      do {
        options.renderPaths = try RenderPaths(parsing: paths)
      } catch {
        io.err("error: \(error.message)\n")
        return TaskpressCLI.ExitStatus.usage
      }
    }
    guard options.todos != nil || options.possessions != nil || options.contacts != nil else {
      io.err(
        "error: nothing to build: give --todos, --possessions or --contacts"
          + " (or set them in taskpress.json)\n")
      return TaskpressCLI.ExitStatus.usage
    }

    let progress = ProgressLine(io: io, enabled: !options.quiet && showsProgress(io))
    let reporter = Build.Reporter(
      warning: { warning in
        progress.clear()
        io.err("warning: \(warning)\n")
      },
      progress: { done, total in progress.update(done: done, total: total) })
    let summary: BuildSummary
    do {
      summary = try Build.run(
        options, sourceDateEpoch: io.environment["SOURCE_DATE_EPOCH"], interrupt: interrupt,
        busyTimeout: busyTimeout, reporter: reporter)
    } catch {
      progress.clear()
      if interrupt.isSet {
        io.err("interrupted: the site in '\(options.output)' was left as it was\n")
        return TaskpressCLI.ExitStatus.interrupted(by: interrupt.signal)
      }
      io.err("error: \(error)\n")
      if !(error is BuildError && options.strict) {
        io.err("the site in '\(options.output)' was not changed\n")
      }
      return TaskpressCLI.ExitStatus.failure
    }
    progress.clear()
    if summary.repaired, !options.quiet {
      io.err("note: the previous build was interrupted while writing; the site has been repaired\n")
    }
    if let report = options.report {
      do {
        try Data(summary.json.utf8).write(to: URL(fileURLWithPath: report), options: .atomic)
      } catch {
        io.err("error: \(report): cannot write the report (\(error.localizedDescription))\n")
        return TaskpressCLI.ExitStatus.failure
      }
    }
    if !options.quiet {
      io.out("built \(options.output): \(summary.line)\n")
    }
    if interrupt.isSet {
      // The signal came while the site was being written: the writing finished first.
      io.err("interrupted: the site in '\(options.output)' was written completely first\n")
      return TaskpressCLI.ExitStatus.interrupted(by: interrupt.signal)
    }
    return TaskpressCLI.ExitStatus.success
  }

  /// A progress line only on a terminal, never in CI.
  private static func showsProgress(_ io: CommandIO) -> Bool {
    io.errorIsTerminal && io.environment["CI"] == nil && io.environment["TERM"] != "dumb"
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
