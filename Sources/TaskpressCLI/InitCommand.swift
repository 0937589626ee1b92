import TaskpressKit

/// `taskpress init`: writes the default theme and a config file.
enum InitCommand {
  static func run(directory: String, io: CommandIO) -> Int32 {
    do {
      let written = try Scaffold.write(into: directory)
      let prefix = directory == "." ? "" : (directory.hasSuffix("/") ? directory : directory + "/")
      io.out(
        "wrote \(written.count) files into \(directory == "." ? "the current folder" : directory)\n"
      )
      io.out(
        """
        next: edit \(prefix)taskpress.json (the databases to read), change the templates in \
        \(prefix)templates/, then run 'taskpress build --config \(prefix)taskpress.json'

        """)
      return TaskpressCLI.ExitStatus.success
    } catch {
      io.err("error: \(error)\n")
      return TaskpressCLI.ExitStatus.failure
    }
  }
}
