import TaskpressKit

/// `taskpress check`: verifies that every internal link and image of a built site resolves.
enum CheckCommand {
  static func run(site: String, io: CommandIO) -> Int32 {
    let report: LinkChecker.Report
    do {
      report = try LinkChecker.check(site: site)
    } catch {
      io.err("error: \(error)\n")
      return TaskpressCLI.ExitStatus.failure
    }
    let checked = "\(report.pages) \(report.pages == 1 ? "page" : "pages"), \(report.links) links"
    guard report.broken.isEmpty else {
      for broken in report.broken {
        io.err("error: \(site)/\(broken)\n")
      }
      let count = report.broken.count
      io.err("\(count) broken \(count == 1 ? "link" : "links") in \(checked)\n")
      return TaskpressCLI.ExitStatus.failure
    }
    io.out("\(checked): every link resolves\n")
    return TaskpressCLI.ExitStatus.success
  }
}
