import Foundation
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
    if let note = notFoundPageNote(site: site) { io.err("note: \(note)\n") }
    return TaskpressCLI.ExitStatus.success
  }
}

extension CheckCommand {
  /// A web server serves `404.html` for a missing address at any depth: relative links in it
  /// work only for addresses at the site's root.
  static func notFoundPageNote(site: String) -> String? {
    let path = site + "/404.html"
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    let page = String(decoding: data, as: UTF8.self)
    guard page.contains("<link rel=\"stylesheet\" href=\""),
      !page.contains("<link rel=\"stylesheet\" href=\"http")
    else { return nil }
    return "\(path) has relative links: served for a missing address below the site's root "
      + "(such as todos/999.html) it loses its style and links; build with --base-url to make "
      + "them absolute"
  }
}
