import Foundation
import TaskpressKit

/// The command-line interface of taskpress: parses arguments, runs a command, returns the exit status.
public enum TaskpressCLI {
  /// Exit statuses of `taskpress`.
  public enum ExitStatus {
    /// Success.
    public static let success: Int32 = 0
    /// The build failed: bad data, a bad template, an output problem, broken links.
    public static let failure: Int32 = 1
    /// A usage error: unknown flag, bad value.
    public static let usage: Int32 = 64
    /// `publish`: rclone is not installed (EX_UNAVAILABLE).
    public static let rcloneMissing: Int32 = 69
    /// `publish`: the server could not be reached or a transfer failed; run it again
    /// (EX_TEMPFAIL).
    public static let transferFailed: Int32 = 75
    /// `publish`: the server refused the credentials (EX_NOPERM).
    public static let authentication: Int32 = 77
    /// `publish`: the rclone remote is not configured (EX_CONFIG).
    public static let notConfigured: Int32 = 78
    /// Interrupted by SIGINT (Ctrl-C); see `interrupted(by:)`.
    public static let interrupted: Int32 = 130

    /// The status of a build stopped by `signal`: `128 + signal`, as a shell reports a process
    /// killed by it (130 for SIGINT, 143 for SIGTERM), so scripts can tell the two apart.
    public static func interrupted(by signal: Int32?) -> Int32 {
      guard let signal, signal > 0 else { return interrupted }
      return 128 + signal
    }
  }

  /// Runs taskpress in this process with its real stdout, stderr and environment; SIGINT and
  /// SIGTERM set `InterruptFlag.process` while it runs.
  public static func main(arguments: [String]) -> Int32 {
    let io = CommandIO(
      environment: ProcessInfo.processInfo.environment,
      currentDirectory: FileManager.default.currentDirectoryPath)
    // Only the real process takes over the signals: in-process runs (the tests) leave the
    // process-wide handlers alone and get a flag of their own.
    let signals = SignalGuard()
    defer { signals.restore() }
    return run(arguments: arguments, io: io, interrupt: .process)
  }

  /// Runs taskpress with `arguments` (without the program name), writing through `io`; a
  /// build stops when `interrupt` is set.
  public static func run(
    arguments: [String], io: CommandIO, interrupt: InterruptFlag = InterruptFlag()
  ) -> Int32 {
    let command: Command
    do {
      command = try Command.parse(arguments)
    } catch {
      io.err("error: \(error.message)\n")
      if let name = error.command, let spec = Specs.subcommand(named: name) {
        let usage = Help.wrap(Help.usage(spec), width: 73).joined(separator: "\n       ")
        io.err("usage: \(usage)\n  See 'taskpress help \(name)' for more.\n")
      } else {
        io.err("usage: taskpress <subcommand>\n  See 'taskpress --help' for the subcommands.\n")
      }
      return ExitStatus.usage
    }
    switch command {
    case .help(let name):
      if let name, let spec = Specs.subcommand(named: name) {
        io.out(Help.subcommand(spec))
      } else {
        io.out(Help.root())
      }
      return ExitStatus.success
    case .version:
      io.out("taskpress \(taskpressVersion)\n")
      return ExitStatus.success
    case .build(let parsed):
      return BuildCommand.run(parsed, io: io, interrupt: interrupt)
    case .initTheme(let directory):
      return InitCommand.run(directory: directory, io: io)
    case .render(let template, let data, let partials):
      let command = RenderCommand(template: template, data: data, partials: partials)
      do {
        io.out(try command.run())
        return ExitStatus.success
      } catch {
        io.err("error: \(error)\n")
        return ExitStatus.failure
      }
    case .check(let site):
      return CheckCommand.run(site: site, io: io)
    case .completions(let shell):
      io.out(Completions.script(for: shell) ?? "")
      return ExitStatus.success
    case .manPage:
      io.out(ManPage.text())
      return ExitStatus.success
    case .publish(let parsed):
      return PublishCommand.run(parsed, io: io, interrupt: interrupt)
    case .serve(let parsed):
      let signals = SignalGuard()
      defer { signals.restore() }
      return ServeCommand.run(parsed, io: io)
    }
  }
}
