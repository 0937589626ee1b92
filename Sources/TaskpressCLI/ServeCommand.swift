import Foundation
import Server
import Synchronization
import TaskpressKit

/// `taskpress serve`: builds the site, serves it over HTTP, rebuilds when an input changes and
/// makes the open pages reload.
///
/// The site is built where `taskpress build` with the same options would write it (`--output`,
/// else `output` of `taskpress.json`, else `site`), with the same incremental engine, so the
/// folder is always what a plain build makes; the reload script exists only in responses.
enum ServeCommand {
  /// The options `serve` adds to those of `build`.
  static let serverOptions: Set<String> = ["port", "host", "poll"]

  /// How long to wait after the last change before rebuilding, so that an editor's several
  /// writes (temporary file, rename, metadata) make one rebuild.
  static let debounceMilliseconds: Int32 = 80

  static func run(
    _ parsed: ParsedArguments, io: CommandIO, interrupt: InterruptFlag = .process
  ) -> Int32 {
    var buildArguments = parsed
    for name in serverOptions {
      buildArguments.values[name] = nil
      buildArguments.switches.remove(name)
    }
    let port = parsed.values["port"] ?? "8000"
    guard let portNumber = Int(port), (0...65535).contains(portNumber) else {
      io.err("error: '--port': invalid value '\(port)': expected a whole number from 0 to 65535\n")
      return TaskpressCLI.ExitStatus.usage
    }
    // The options are checked as `build` checks them.
    guard let options = BuildCommand.checkedOptions(buildArguments, io: io) else {
      return TaskpressCLI.ExitStatus.usage
    }
    // The folder and the path it is served under stay those of the start.
    buildArguments.values["output"] = options.output
    let basePath = options.baseURL.flatMap { URL(string: $0)?.path } ?? "/"

    // The port is taken before anything is built: a busy one is an error, with nothing built.
    var configuration = HTTPServer.Configuration(
      root: Configuration.resolve(options.output, against: io.currentDirectory))
    configuration.host = parsed.values["host"] ?? "127.0.0.1"
    configuration.port = portNumber
    configuration.basePath = basePath
    let server: HTTPServer
    do {
      server = try HTTPServer(configuration)
    } catch {
      io.err("error: \(error)\n")
      return TaskpressCLI.ExitStatus.failure
    }

    var session = ServeSession(arguments: buildArguments, io: io, interrupt: interrupt)
    let firstError = session.build(options)
    if interrupt.isSet { return interrupted(io, options, interrupt) }
    server.publish(generation: session.generation, error: firstError)
    server.start()
    let watched = session.watchedPaths(options)
    let mode: FileWatcher.Mode =
      parsed.switches.contains("poll") ? .poll(intervalMilliseconds: 300) : .inotify
    var watcher = FileWatcher(files: watched.files, folders: watched.folders, mode: mode)
    let how = watcher.mode == .inotify ? "" : " (polling)"
    io.out("serving '\(options.output)' at \(server.url)\(how) (press Ctrl-C to stop)\n")

    var watchedNow = watched
    while !interrupt.isSet {
      var changed = watcher.wait(milliseconds: 200)
      guard !changed.isEmpty else { continue }
      while !interrupt.isSet {
        let more = watcher.wait(milliseconds: debounceMilliseconds)
        if more.isEmpty { break }
        changed += more
      }
      if interrupt.isSet { break }
      if !options.quiet {
        let names = Set(changed.map { relative($0, to: io.currentDirectory) }).sorted()
        io.out("changed: \(names.joined(separator: ", "))\n")
      }
      let error = session.rebuild()
      if interrupt.isSet { break }
      server.publish(generation: session.generation, error: error)
      // taskpress.json may name other databases or templates now.
      if let current = session.lastOptions {
        let paths = session.watchedPaths(current)
        if paths != watchedNow {
          watchedNow = paths
          watcher = FileWatcher(files: paths.files, folders: paths.folders, mode: mode)
        }
      }
    }
    server.stop()
    return interrupted(io, options, interrupt)
  }

  private static func interrupted(
    _ io: CommandIO, _ options: BuildOptions, _ interrupt: InterruptFlag
  ) -> Int32 {
    if !options.quiet { io.err("stopped: the site in '\(options.output)' is whole\n") }
    return TaskpressCLI.ExitStatus.interrupted(by: interrupt.signal)
  }

  static func relative(_ path: String, to directory: String) -> String {
    path.hasPrefix(directory + "/") ? String(path.dropFirst(directory.count + 1)) : path
  }
}

/// The builds of one `serve`: the options read again before each, the generation of the last
/// good site.
struct ServeSession {
  let arguments: ParsedArguments
  let io: CommandIO
  let interrupt: InterruptFlag
  /// Goes up each time a build changes the site, or succeeds after a failure.
  private(set) var generation = 0
  private(set) var lastOptions: BuildOptions?
  private var failed = false

  init(arguments: ParsedArguments, io: CommandIO, interrupt: InterruptFlag) {
    self.arguments = arguments
    self.io = io
    self.interrupt = interrupt
  }

  /// Reads the options again (taskpress.json may have changed) and builds; the error, if any.
  mutating func rebuild() -> String? {
    let options: BuildOptions
    do {
      options = try BuildCommand.options(arguments, io: io)
    } catch {
      io.err("error: \(error.message)\n")
      io.err("note: still serving the last good site\n")
      failed = true
      return error.message
    }
    return build(options)
  }

  /// Builds with `options`; the error, if any. Its warnings are printed as `build` prints
  /// them, and only when they are not those printed last.
  mutating func build(_ options: BuildOptions) -> String? {
    lastOptions = options
    let gathered = Mutex<[BuildWarning]>([])
    let reporter = Build.Reporter(warning: { warning in gathered.withLock { $0.append(warning) } })
    do {
      let summary = try Build.run(
        options, sourceDateEpoch: io.environment["SOURCE_DATE_EPOCH"], interrupt: interrupt,
        reporter: reporter)
      if summary.written + summary.removed > 0 || failed || generation == 0 { generation += 1 }
      failed = false
      var warnings = gathered.withLock { $0 }
      for problem in summary.outputProblems {
        warnings.append(BuildWarning(file: problem.path, message: problem.reason))
      }
      printWarnings(warnings, options)
      if let path = options.report {
        let report = BuildReport(
          status: .built, exitStatus: TaskpressCLI.ExitStatus.success, output: options.output,
          state: OutputWriter.stateFolder(ofOutput: options.output), summary: summary,
          warnings: warnings, error: nil)
        if let problem = report.write(to: path) {
          io.err("error: \(path): cannot write the report (\(problem))\n")
        }
      }
      if summary.repaired, !options.quiet {
        io.err(
          "note: the previous build was interrupted while writing; the site has been repaired\n")
      }
      if let note = BuildCommand.foundNote(summary, options) { io.err("note: \(note)\n") }
      if !options.quiet { io.out("built \(options.output): \(summary.line)\n") }
      return nil
    } catch {
      if interrupt.isSet { return nil }
      printWarnings(gathered.withLock { $0 }, options)
      io.err("error: \(error)\n")
      io.err("note: still serving the last good site\n")
      failed = true
      return "\(error)"
    }
  }

  /// The warnings printed last, sorted: a rebuild with the same ones prints none.
  private var printedWarnings: [BuildWarning]?

  private mutating func printWarnings(_ warnings: [BuildWarning], _ options: BuildOptions) {
    let sorted = WarningPrinter.sortedWarnings(warnings)
    guard sorted != printedWarnings else { return }
    printedWarnings = sorted
    BuildCommand.printWarnings(sorted, options, io)
  }

  /// The files and folders whose changes make a rebuild.
  func watchedPaths(_ options: BuildOptions) -> WatchedPaths {
    let directory = io.currentDirectory
    var files = [options.todos, options.possessions, options.contacts].compactMap { $0 }
    files.append(arguments.values["config"] ?? Configuration.defaultFile)
    return WatchedPaths(
      files: Set(files.map { Configuration.resolve($0, against: directory) }).sorted(),
      folders: options.templates.map { [Configuration.resolve($0, against: directory)] } ?? [])
  }
}

/// What `serve` watches.
struct WatchedPaths: Equatable {
  var files: [String]
  var folders: [String]
}
