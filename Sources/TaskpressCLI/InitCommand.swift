/// `taskpress init`: writes the default theme and a config file.
enum InitCommand {
  static func run(directory: String, io: CommandIO) -> Int32 {
    io.err("error: 'init' is not available in this version\n")
    return TaskpressCLI.ExitStatus.failure
  }
}
