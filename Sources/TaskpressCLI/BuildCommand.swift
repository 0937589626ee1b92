import TaskpressKit

/// `taskpress build`: merges the options, runs the build, reports.
enum BuildCommand {
  static func run(_ parsed: ParsedArguments, io: CommandIO) -> Int32 {
    let options: BuildOptions
    do {
      options = try Configuration.buildOptions(from: parsed, currentDirectory: io.currentDirectory)
    } catch {
      io.err("error: \(error.message)\n")
      return TaskpressCLI.ExitStatus.usage
    }
    guard options.todos != nil || options.possessions != nil || options.contacts != nil else {
      io.err(
        "error: nothing to build: give --todos, --possessions or --contacts"
          + " (or set them in taskpress.json)\n")
      return TaskpressCLI.ExitStatus.usage
    }
    io.err("error: building is not available yet\n")
    return TaskpressCLI.ExitStatus.failure
  }
}
