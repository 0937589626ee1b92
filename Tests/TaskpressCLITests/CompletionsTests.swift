import Foundation
import TestFixtures
import Testing

@testable import TaskpressCLI

/// The Debian package of each program these tests run.
private let packages = ["bash": "bash", "zsh": "zsh", "fish": "fish", "groff": "groff-base"]

/// The trait of a test that runs `program`: skipped with the reason outside CI without it.
private func needs(_ program: String) -> ConditionTrait {
  TestEnvironment.needs(
    program, candidates: candidates(program),
    install: "apt-get install \(packages[program] ?? program)")
}

private func candidates(_ program: String) -> [String] {
  ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + program }
}

/// Runs `program` with `arguments`. Without it: a failure in CI (where `.ci/run` installs it),
/// else the test is skipped with the reason.
private func run(_ program: String, _ arguments: [String]) throws -> (
  status: Int32, output: String
) {
  let path = try TestEnvironment.requireTool(
    program, candidates: candidates(program),
    install: "apt-get install \(packages[program] ?? program)")
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

  @Test(
    "the bash script loads, and offers the subcommands, the build options and their values",
    needs("bash"))
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
    let result = try run("bash", ["--norc", "-c", "cd '\(folder)' && " + program])
    #expect(result.status == 0)
    let buildOptions: Substring =
      "--config --todos --possessions --photo-folder --contacts --templates --output --base-url --locale"
      + " --page-size --gallery-page-size --board-limit --pretty-urls --jobs --strict --quiet --warnings --report --title --data"
      + " --markdown --noindex --csv-bom --search --previous --date --history-limit --max-photo-pixels"
      + " --keep-photo-metadata --photo-formats --photo-cache --photo-cache-size --query-timeout --host --help"
    #expect(
      result.output.split(separator: "\n", omittingEmptySubsequences: false) == [
        "complete -F _taskpress taskpress",
        "build publish init render check serve completions help --help -h --version",
        "build",
        buildOptions,
        "--possessions --photo-folder --page-size --pretty-urls --previous --photo-formats --photo-cache --photo-cache-size",
        "en ja",
        "site",
        "--help -h bash zsh fish",
        "build publish init render check serve completions",
        "",
      ])
  }

  @Test("the zsh script is valid for zsh", needs("zsh"))
  func zsh() throws {
    let zsh = try run("zsh", ["-n", try Self.script("zsh")])
    #expect(zsh.status == 0, "\(zsh.output)")
  }

  @Test("the fish script is valid for fish, and offers the same words", needs("fish"))
  func fish() throws {
    let fishScript = try Self.script("fish")
    let fish = try run("fish", ["-n", fishScript])
    #expect(fish.status == 0, "\(fish.output)")
    let offered = try run(
      "fish",
      [
        "--no-config", "-c",
        "source '\(fishScript)'; complete -C 'taskpress '; complete -C 'taskpress build --lo';"
          + " complete -C 'taskpress build --locale '",
      ])
    let words = offered.output.split(separator: "\n").map { $0.split(separator: "\t")[0] }
    #expect(
      words == [
        "build", "check", "completions", "help", "init", "publish", "render", "serve", "--locale",
        "en", "ja",
      ])
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
  }

  @Test("groff reads the man page without a warning", needs("groff"))
  func manPageInGroff() throws {
    let result = runTaskpress(["help", "--man"])
    #expect(result.status == 0)
    let path = try makeTemporaryFolder() + "/taskpress.1"
    try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
    let groff = try run("groff", ["-man", "-Tutf8", "-ww", "-z", path])
    #expect(groff.status == 0)
    #expect(groff.output == "")
  }
}
