import Foundation
@_spi(Testing) import SQLite
import Testing

/// What `taskpress build` prints on stderr when it is a terminal (a pseudo-terminal here) and
/// when it is not: coloured labels and a progress line on a terminal, plain text elsewhere.
@Suite struct TerminalTests {
  /// A database of 2,500 to-dos (enough pages for a progress line) with one warning.
  private func largeSite() throws -> (folder: String, todos: String, warning: String) {
    let folder = try makeTemporaryFolder()
    let todos = folder + "/todo.sqlite"
    try SafetyFixtures.todos(at: todos, count: 2500)
    let writer = try Database.openWritableForTesting(at: todos)
    try writer.execute("UPDATE todo SET priority = 7 WHERE pk = 42;")
    return (folder, todos, "\(todos): todo pk=42: priority 7 is not 1, 2 or 3\n")
  }

  /// Runs the build with stderr on a terminal or a pipe, `CI`, `NO_COLOR` and `TERM` as given.
  private func build(
    terminal: Bool, environment: [String: String?] = [:]
  ) throws -> (result: ChildTaskpress.Result, site: String, warning: String) {
    let (folder, todos, warning) = try largeSite()
    let site = folder + "/site"
    var variables: [String: String?] = ["CI": nil, "NO_COLOR": nil, "TERM": "xterm"]
    variables.merge(environment) { _, new in new }
    let result = try runBinary(
      ["build", "--todos", todos, "--output", site], in: folder, environment: variables,
      terminal: terminal)
    return (result, site, warning)
  }

  /// The redraws and the clearing of the progress line.
  private var progress: Regex<(Substring, Substring?)> {
    /\r\u{1B}\[2K(rendering pages: \d+\/\d+ \(\d+%\))?/
  }

  @Test("on a terminal: the warning label in yellow, then a progress line, cleared at the end")
  func terminal() throws {
    let (result, site, warning) = try build(terminal: true)
    #expect(result.status == 0)
    // (flow.html, report.html and assets/flow.js among them.)
    #expect(result.stdout.hasPrefix("built \(site): 2601 written, "))
    // The warnings come when the build ends, after the progress line is cleared.
    #expect(result.stderr.hasSuffix("\r\u{1B}[2K\u{1B}[1;33mwarning:\u{1B}[0m " + warning))
    let lines = result.stderr.matches(of: progress).compactMap { $0.output.1 }
    #expect(!lines.isEmpty, "no progress line in \(result.stderr.debugDescription)")
    // 2,580 pages (the 2,590 files less the theme's assets, the data copies, the feed, and the
    // first index page and changes.html, which are rendered after the others).
    #expect(lines.allSatisfy { $0.contains("/2580 (") }, "\(lines)")
    #expect(lines.last == "rendering pages: 2580/2580 (100%)")
    #expect(
      result.stderr.replacing(progress, with: "")
        == "\u{1B}[1;33mwarning:\u{1B}[0m " + warning)
  }

  @Test(
    "on a terminal with NO_COLOR: plain labels, the progress line still shown",
    arguments: ["1", "yes"])
  func noColor(value: String) throws {
    let (result, _, warning) = try build(terminal: true, environment: ["NO_COLOR": value])
    #expect(result.status == 0)
    #expect(result.stderr.hasSuffix("\r\u{1B}[2Kwarning: " + warning))
    #expect(result.stderr.contains("rendering pages: "))
    #expect(result.stderr.replacing(progress, with: "") == "warning: " + warning)
  }

  @Test("on a terminal in CI: plain labels, no progress line (a CI log is not a terminal's screen)")
  func continuousIntegration() throws {
    let (result, _, warning) = try build(terminal: true, environment: ["CI": "true"])
    #expect(result.status == 0)
    #expect(result.stderr == "warning: " + warning)
  }

  @Test("on a dumb terminal: plain labels, no progress line")
  func dumbTerminal() throws {
    let (result, _, warning) = try build(terminal: true, environment: ["TERM": "dumb"])
    #expect(result.status == 0)
    #expect(result.stderr == "warning: " + warning)
  }

  @Test("into a pipe: plain labels, no progress line")
  func pipe() throws {
    let (result, _, warning) = try build(terminal: false)
    #expect(result.status == 0)
    #expect(result.stderr == "warning: " + warning)
  }

  @Test("an error on a terminal has its label in red")
  func errorLabel() throws {
    let folder = try makeTemporaryFolder()
    let missing = folder + "/missing.sqlite"
    let result = try runBinary(
      ["build", "--todos", missing, "--output", folder + "/site"], in: folder,
      environment: ["CI": nil, "NO_COLOR": nil, "TERM": "xterm"], terminal: true)
    #expect(result.status == 1)
    let plain = try runBinary(
      ["build", "--todos", missing, "--output", folder + "/site"], in: folder)
    #expect(
      plain.stderr
        == "error: \(missing): no such file\n")
    #expect(result.stderr == "\u{1B}[1;31merror:\u{1B}[0m" + plain.stderr.dropFirst("error:".count))
  }
}
