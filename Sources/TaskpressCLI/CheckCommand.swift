/// `taskpress check`: verifies that every internal link of a built site resolves.
enum CheckCommand {
  static func run(site: String, io: CommandIO) -> Int32 {
    io.err("error: 'check' is not available in this version\n")
    return TaskpressCLI.ExitStatus.failure
  }
}
