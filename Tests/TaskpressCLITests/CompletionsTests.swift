import Foundation
import Testing

@testable import TaskpressCLI

/// Runs `program` with `arguments`; nil when it is not installed (an error under `CI=true`,
/// where `.ci/run` installs it).
private func run(_ program: String, _ arguments: [String]) throws -> (
  status: Int32, output: String
)? {
  let found = ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + program }.first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
  guard let path = found else {
    if ProcessInfo.processInfo.environment["CI"] == "true" {
      Issue.record("\(program) is not installed; .ci/run installs it")
    }
    return nil
  }
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = arguments
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = pipe
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

@Suite struct CompletionsTests {
  static let repository = URL(filePath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// Writes `taskpress completions SHELL` to a file; returns its path.
  static func script(_ shell: String) throws -> String {
    let result = runTaskpress(["completions", shell])
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    let path = try makeTemporaryFolder() + "/taskpress." + shell
    try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test("the bash script loads, and offers the subcommands, the build options and their values")
  func bash() throws {
    let script = try Self.script("bash")
    // `reply WORDS...` completes the last word, as bash does when Tab is pressed there.
    let program = """
      source '\(script)'
      complete -p taskpress
      reply() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _taskpress; echo "${COMPREPLY[*]}"; }
      reply taskpress ''
      reply taskpress b
      reply taskpress build --
      reply taskpress build --p
      reply taskpress build --locale ''
      reply taskpress build -o s
      reply taskpress completions ''
      reply taskpress help ''
      """
    let folder = try makeTemporaryFolder()
    try FileManager.default.createDirectory(
      atPath: folder + "/site", withIntermediateDirectories: true)
    guard let result = try run("bash", ["--norc", "-c", "cd '\(folder)' && " + program]) else {
      return
    }
    #expect(result.status == 0)
    let buildOptions: Substring =
      "--config --todos --possessions --contacts --templates --output --base-url --locale"
      + " --page-size --gallery-page-size --board-limit --pretty-urls --jobs --strict --quiet --report --title --data"
      + " --noindex --csv-bom --previous --date --history-limit --max-photo-pixels"
      + " --keep-photo-metadata --photo-cache --photo-cache-size --help"
    #expect(
      result.output.split(separator: "\n", omittingEmptySubsequences: false) == [
        "complete -F _taskpress taskpress",
        "build init render check serve completions help --help -h --version",
        "build",
        buildOptions,
        "--possessions --page-size --pretty-urls --previous --photo-cache --photo-cache-size",
        "en ja",
        "site",
        "--help -h bash zsh fish",
        "build init render check serve completions",
        "",
      ])
  }

  @Test("the zsh and fish scripts are valid for their shells; fish offers the same words")
  func zshAndFish() throws {
    if let zsh = try run("zsh", ["-n", try Self.script("zsh")]) {
      #expect(zsh.status == 0, "\(zsh.output)")
    }
    let fishScript = try Self.script("fish")
    if let fish = try run("fish", ["-n", fishScript]) {
      #expect(fish.status == 0, "\(fish.output)")
      let offered = try run(
        "fish",
        [
          "--no-config", "-c",
          "source '\(fishScript)'; complete -C 'taskpress '; complete -C 'taskpress build --lo';"
            + " complete -C 'taskpress build --locale '",
        ])
      let words = offered?.output.split(separator: "\n").map { $0.split(separator: "\t")[0] }
      #expect(
        words == [
          "build", "check", "completions", "help", "init", "render", "serve", "--locale", "en",
          "ja",
        ])
    }
  }

  @Test("every option of every subcommand is in each script and in the man page")
  func everyOption() throws {
    let texts =
      try Completions.shells.map { shell in
        try #require(Completions.script(for: shell))
      } + [ManPage.text().replacingOccurrences(of: "\\-", with: "-")]
    for text in texts {
      for spec in Specs.all {
        #expect(text.contains(spec.name))
        for option in spec.options {
          #expect(text.contains(option.name), "\(spec.name) --\(option.name)")
        }
      }
    }
  }

  @Test("an unknown shell is a usage error with a suggestion")
  func unknownShell() {
    let result = runTaskpress(["completions", "bsh"])
    #expect(result.status == 64)
    #expect(
      result.stderr == """
        error: unknown shell 'bsh'; did you mean 'bash'?
        usage: taskpress completions <shell>
          See 'taskpress help completions' for more.

        """)
  }

  @Test("Docs/taskpress.1 is the man page made from the help text (taskpress help --man)")
  func manPage() throws {
    let result = runTaskpress(["help", "--man"])
    #expect(result.status == 0)
    #expect(result.stdout == ManPage.text())
    let committed = try String(
      contentsOf: Self.repository.appending(path: "Docs/taskpress.1"), encoding: .utf8)
    #expect(
      committed == result.stdout,
      "Docs/taskpress.1 is out of date: run 'swift run taskpress help --man > Docs/taskpress.1'")
    // Each option's help line is the one `taskpress help build` prints.
    for option in Specs.build.options {
      #expect(result.stdout.contains(ManPage.escape(option.help)), "\(option.name)")
    }
    // groff reads it without a warning.
    let path = try makeTemporaryFolder() + "/taskpress.1"
    try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
    if let groff = try run("groff", ["-man", "-Tutf8", "-ww", "-z", path]) {
      #expect(groff.status == 0)
      #expect(groff.output == "")
    }
  }
}
