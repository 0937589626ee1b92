import Foundation
import Testing

@testable import TaskpressCLI
@testable import TaskpressKit

/// Runs taskpress in-process and returns what it printed.
func runTaskpress(
  _ arguments: [String], in directory: String = FileManager.default.currentDirectoryPath,
  environment: [String: String] = [:]
) -> (status: Int32, stdout: String, stderr: String) {
  let io = CapturedIO(environment: environment, currentDirectory: directory)
  let status = TaskpressCLI.run(arguments: arguments, io: io)
  return (status, io.stdout, io.stderr)
}

/// The usage lines a usage error of subcommand `name` ends with. (Its options come from the
/// spec, so that a new option does not change every test.)
func usage(of name: String) -> String {
  guard let spec = Specs.subcommand(named: name) else { return "no subcommand '\(name)'" }
  let lines = Help.wrap(Help.usage(spec), width: 73).joined(separator: "\n       ")
  return "usage: \(lines)\n  See 'taskpress help \(name)' for more.\n"
}

/// A fresh, empty folder for one test.
func makeTemporaryFolder() throws -> String {
  let path = NSTemporaryDirectory() + "taskpress-cli-" + UUID().uuidString
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}

@Suite struct CommandParsingTests {
  @Test("no arguments, -h and --help print the overview and exit 0")
  func rootHelp() {
    for arguments in [[], ["-h"], ["--help"], ["help"]] {
      let result = runTaskpress(arguments)
      #expect(result.status == 0)
      #expect(result.stdout.hasPrefix("OVERVIEW: Build a static website"))
      #expect(result.stdout.contains("SUBCOMMANDS:\n  build "))
      #expect(result.stderr.isEmpty)
    }
  }

  @Test("help per subcommand in swift-argument-parser's layout")
  func subcommandHelp() {
    let result = runTaskpress(["render", "--help"])
    #expect(result.status == 0)
    #expect(
      result.stdout == """
        OVERVIEW: Render one Mustache template to stdout.

        USAGE: taskpress render <template> [--data <file.json>] [--partials <dir>]

        ARGUMENTS:
          <template>              The template; its extension (.html, .md) chooses the
                                  escaping.

        OPTIONS:
          --data <file.json>      The data to render with.
          --partials <dir>        Folder of partials. (default: the template's folder)
          -h, --help              Show help information.

        """)
    #expect(runTaskpress(["help", "build"]).stdout == runTaskpress(["build", "-h"]).stdout)
  }

  @Test("--version prints the version on stdout")
  func version() {
    let result = runTaskpress(["--version"])
    #expect(result.status == 0)
    #expect(result.stdout == "taskpress \(taskpressVersion)\n")
  }

  @Test("an unknown flag exits 64, names it and suggests the closest")
  func unknownFlagWithSuggestion() {
    let result = runTaskpress(["build", "--ouput", "x"])
    #expect(result.status == 64)
    #expect(result.stdout.isEmpty)
    #expect(
      result.stderr
        == "error: unknown option '--ouput'; did you mean '--output'?\n" + usage(of: "build"))
  }

  @Test("an unknown flag far from every option gets no suggestion")
  func unknownFlagWithoutSuggestion() {
    let result = runTaskpress(["build", "--frobnicate"])
    #expect(result.status == 64)
    #expect(result.stderr == "error: unknown option '--frobnicate'\n" + usage(of: "build"))
  }

  @Test("an unknown subcommand suggests the closest")
  func unknownSubcommand() {
    let result = runTaskpress(["biuld"])
    #expect(result.status == 64)
    #expect(
      result.stderr == """
        error: unknown subcommand 'biuld'; did you mean 'build'?
        usage: taskpress <subcommand>
          See 'taskpress --help' for the subcommands.

        """)
  }

  @Test("--opt value, --opt=value, -o value and -- all parse")
  func optionForms() throws {
    let parsed = try Command.parseArguments(
      ["--todos", "a.sqlite", "--output=out", "-j", "2", "--strict", "--", "--odd"],
      for: Specs.build)
    #expect(parsed.values == ["todos": "a.sqlite", "output": "out", "jobs": "2"])
    #expect(parsed.switches == ["strict"])
    #expect(parsed.positionals == ["--odd"])
  }

  @Test("render takes its template and options")
  func renderCommand() throws {
    let command = try Command.parse(["render", "t.md", "--data=d.json", "--partials", "p"])
    #expect(command == .render(template: "t.md", data: "d.json", partials: "p"))
    let result = runTaskpress(["render", "a.html", "b.html"])
    #expect(result.status == 64)
    #expect(
      result.stderr == """
        error: unexpected argument 'b.html'
        usage: taskpress render <template> [--data <file.json>] [--partials <dir>]
          See 'taskpress help render' for more.

        """)
  }

  @Test("a missing value names the flag")
  func missingValue() {
    let result = runTaskpress(["build", "--todos"])
    #expect(result.status == 64)
    #expect(
      result.stderr == "error: missing value for '--todos' (expected <db>)\n" + usage(of: "build"))
    let followedByFlag = runTaskpress(["build", "--output", "--strict"])
    #expect(
      followedByFlag.stderr
        == "error: missing value for '--output' (expected <dir>)\n" + usage(of: "build"))
  }

  @Test("a switch given a value is a usage error")
  func switchWithValue() {
    let result = runTaskpress(["build", "--strict=yes"])
    #expect(result.status == 64)
    #expect(
      result.stderr
        == "error: '--strict' is a switch and takes no value (got 'yes')\n" + usage(of: "build"))
  }

  @Test(
    "bad values name the flag and say what is expected",
    arguments: [
      (
        ["--page-size", "x"], "'--page-size': invalid value 'x': expected a whole number, 0 or more"
      ),
      (["--page-size=-1"], "'--page-size': invalid value '-1': expected a whole number, 0 or more"),
      (
        ["--gallery-page-size", "-3"],
        "'--gallery-page-size': invalid value '-3': expected a whole number, 0 or more"
      ),
      (
        ["--gallery-page-size=ten"],
        "'--gallery-page-size': invalid value 'ten': expected a whole number, 0 or more"
      ),
      (["--jobs", "0"], "'--jobs': invalid value '0': expected a whole number from 1 to 1024"),
      (
        ["--board-limit", "0"],
        "'--board-limit': invalid value '0': expected a whole number, 1 or more"
      ),
      (
        ["--board-limit=-5"],
        "'--board-limit': invalid value '-5': expected a whole number, 1 or more"
      ),
      (
        ["--board-limit", "many"],
        "'--board-limit': invalid value 'many': expected a whole number, 1 or more"
      ),
      (
        ["--locale", "fr_FR"],
        "'--locale': invalid value 'fr_FR': expected a language tag such as 'en', 'ja' or 'de'"
          + " (built in: 'en', 'ja'; others from labels.json)"
      ),
      (
        ["--base-url", "example.com"],
        "'--base-url': invalid value 'example.com': expected an absolute http:// or https:// URL"
      ),
    ])
  func badValues(arguments: [String], message: String) throws {
    let folder = try makeTemporaryFolder()
    let result = runTaskpress(["build", "--todos", "t.sqlite"] + arguments, in: folder)
    #expect(result.status == 64)
    #expect(result.stderr == "error: \(message)\n")
  }

  @Test("a build with no source is a usage error")
  func nothingToBuild() throws {
    let folder = try makeTemporaryFolder()
    let result = runTaskpress(["build"], in: folder)
    #expect(result.status == 64)
    #expect(
      result.stderr
        == "error: nothing to build: give --todos, --possessions or --contacts (or set them in taskpress.json)\n"
    )
  }

  @Test("the edit distance counts a swap as one edit")
  func editDistances() {
    #expect(editDistance("ouput", "output") == 1)
    #expect(editDistance("biuld", "build") == 1)
    #expect(editDistance("", "abc") == 3)
    #expect(closest(to: "--frobnicate", in: ["--output", "--todos"]) == nil)
  }
}

@Suite struct ConfigurationTests {
  func options(config: String, flags: [String] = []) throws -> BuildOptions {
    let folder = try makeTemporaryFolder()
    try config.write(toFile: folder + "/taskpress.json", atomically: true, encoding: .utf8)
    let parsed = try Command.parseArguments(flags, for: Specs.build)
    return try Configuration.buildOptions(from: parsed, currentDirectory: folder)
  }

  @Test("taskpress.json is read from the current folder; flags win")
  func mergedUnderFlags() throws {
    let merged = try options(
      config: #"{"todos": "data/todo.sqlite", "page-size": 10, "strict": true, "output": "out"}"#,
      flags: ["--output", "elsewhere"])
    #expect(merged.todos == "data/todo.sqlite")
    #expect(merged.pageSize == 10)
    #expect(merged.strict)
    #expect(merged.output == "elsewhere")
  }

  @Test("--board-limit is 50 unless taskpress.json or the flag says otherwise; a bad key names it")
  func boardLimit() throws {
    #expect(try options(config: "{}").boardLimit == 50)
    #expect(try options(config: #"{"board-limit": 7}"#).boardLimit == 7)
    #expect(
      try options(config: #"{"board-limit": 7}"#, flags: ["--board-limit", "3"]).boardLimit == 3)
    #expect(
      throws: UsageError(
        "taskpress.json:1:2: key 'board-limit': invalid value '0': expected a whole number, 1 or more"
      )
    ) {
      try options(config: #"{"board-limit": 0}"#)
    }
  }

  @Test("--gallery-page-size is 18 unless taskpress.json or the flag says otherwise")
  func galleryPageSize() throws {
    #expect(try options(config: "{}").galleryPageSize == 18)
    #expect(try options(config: #"{"gallery-page-size": 0}"#).galleryPageSize == 0)
    #expect(
      try options(config: #"{"gallery-page-size": 0}"#, flags: ["--gallery-page-size", "24"])
        .galleryPageSize == 24)
    #expect(
      throws: UsageError(
        "taskpress.json:1:2: key 'gallery-page-size': invalid value '-1': expected a whole number, 0 or more"
      )
    ) {
      try options(config: #"{"gallery-page-size": -1}"#)
    }
  }

  @Test("markdown: none by default; a list in taskpress.json, a comma list in --markdown")
  func markdownFields() throws {
    #expect(try options(config: "{}").markdown.isEmpty)
    #expect(
      try options(config: #"{"markdown": ["todos.text", "possessions.description"]}"#).markdown
        == [.todoText, .possessionDescription])
    #expect(try options(config: #"{"markdown": []}"#).markdown.isEmpty)
    #expect(try options(config: #"{"markdown": "todos.text"}"#).markdown == [.todoText])
    #expect(
      try options(config: #"{"markdown": ["todos.text"]}"#, flags: ["--markdown", "none"])
        .markdown.isEmpty)
    #expect(
      try options(config: "{}", flags: ["--markdown", "possessions.description, todos.text"])
        .markdown == [.todoText, .possessionDescription])
    let fields =
      "The fields that can be Markdown are 'todos.text' and 'possessions.description', or 'none'"
    #expect(
      throws: UsageError(
        "taskpress.json:1:2: key 'markdown': unknown field 'todos.txt'; did you mean 'todos.text'? "
          + fields)
    ) {
      try options(config: #"{"markdown": ["todos.txt"]}"#)
    }
    #expect(
      throws: UsageError("'--markdown': unknown field 'contacts.name'. " + fields)
    ) {
      try options(config: "{}", flags: ["--markdown", "contacts.name"])
    }
    #expect(
      throws: UsageError(
        #"taskpress.json:1:2: key 'markdown': expected a list of field names, e.g. ["todos.text", "possessions.description"]"#
      )
    ) {
      try options(config: #"{"markdown": [1]}"#)
    }
  }

  @Test("paths in a --config file are relative to that file")
  func pathsRelativeToConfig() throws {
    let folder = try makeTemporaryFolder()
    try FileManager.default.createDirectory(
      atPath: folder + "/conf", withIntermediateDirectories: true)
    try #"{"todos": "todo.sqlite"}"#.write(
      toFile: folder + "/conf/site.json", atomically: true, encoding: .utf8)
    let parsed = try Command.parseArguments(["--config", "conf/site.json"], for: Specs.build)
    let merged = try Configuration.buildOptions(from: parsed, currentDirectory: folder)
    #expect(merged.todos == "conf/todo.sqlite")
  }

  @Test(
    "bad config files name the file and the key",
    arguments: [
      (#"{"ouptut": "x"}"#, "taskpress.json:1:2: unknown key 'ouptut'; did you mean 'output'?"),
      (
        #"{"page-size": "ten"}"#,
        "taskpress.json:1:2: key 'page-size': invalid value 'ten': expected a whole number, 0 or more"
      ),
      (#"{"strict": "yes"}"#, "taskpress.json:1:2: key 'strict': expected true or false"),
      (#"{"jobs": 1.5}"#, "taskpress.json:1:2: key 'jobs': expected a string or a whole number"),
      (
        #"[1, 2]"#,
        #"taskpress.json:1:1: expected a JSON object of options, e.g. {"todos": "todo.sqlite"}"#
      ),
      (#"{"todos": "#, "taskpress.json:1:11: not valid JSON: unexpected end of input"),
    ])
  func badConfig(config: String, message: String) throws {
    let folder = try makeTemporaryFolder()
    try config.write(toFile: folder + "/taskpress.json", atomically: true, encoding: .utf8)
    let result = runTaskpress(["build"], in: folder)
    #expect(result.status == 64)
    #expect(result.stderr == "error: \(message)\n")
  }

  @Test("a missing --config file is named")
  func missingConfig() throws {
    let folder = try makeTemporaryFolder()
    let result = runTaskpress(["build", "--config", "nope.json"], in: folder)
    #expect(result.status == 64)
    #expect(
      result.stderr == "error: nope.json: no such config file; check the path given to '--config'\n"
    )
  }
}

@Suite struct ColorTests {
  // A terminal itself is tested through a pseudo-terminal in TerminalTests.
  @Test("colorLabel colours the error, warning and note labels; captured text stays plain")
  func labels() {
    #expect(CommandIO.colorLabel("error: x\n") == "\u{1B}[1;31merror:\u{1B}[0m x\n")
    #expect(CommandIO.colorLabel("warning: x\n") == "\u{1B}[1;33mwarning:\u{1B}[0m x\n")
    #expect(CommandIO.colorLabel("note: x\n") == "\u{1B}[1;36mnote:\u{1B}[0m x\n")
    #expect(CommandIO.colorLabel("plain\n") == "plain\n")
    let io = CapturedIO(environment: [:], currentDirectory: "/")
    io.err("error: x\n")
    #expect(io.stderr == "error: x\n")
  }
}
