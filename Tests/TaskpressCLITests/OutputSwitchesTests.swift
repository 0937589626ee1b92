import Foundation
@_spi(Testing) import SQLite
import TestFixtures
import Testing

@testable import TaskpressCLI

@Suite struct OutputSwitchesTests {
  @Test(
    "progress line and colour: a terminal only, never in CI or TERM=dumb; NO_COLOR drops colour",
    arguments: [
      ([:], true, true, true),
      ([:], false, false, false),
      (["CI": "true"], true, false, false),
      (["CI": "1"], true, false, false),
      (["CI": "false"], true, true, true),
      (["CI": ""], true, true, true),
      (["NO_COLOR": "1"], true, true, false),
      (["NO_COLOR": ""], true, true, true),
      (["TERM": "dumb"], true, false, false),
    ])
  func switches(
    environment: [String: String], isTerminal: Bool, progress: Bool, colour: Bool
  ) {
    let switches = OutputSwitches(environment: environment, isTerminal: isTerminal)
    #expect(switches.showsProgress == progress)
    #expect(switches.colorsLabels == colour)
  }

  @Test(
    "the tests' \"in CI\" (TestEnvironment.inCI) is taskpress's own rule",
    arguments: ["true", "1", "yes", "TRUE", "false", "False", "0", "", nil])
  func testsInCI(value: String?) {
    let environment = value.map { ["CI": $0] } ?? [:]
    let productSaysCI = !OutputSwitches(environment: environment, isTerminal: true).showsProgress
    #expect(TestEnvironment.inCI(environment) == productSaysCI)
  }

  @Test("--quiet prints errors only: no warning, no note, no summary")
  func quietPrintsErrorsOnly() throws {
    let folder = try makeTemporaryFolder()
    let database = folder + "/todo.sqlite"
    try Database.createForTesting(
      at: database,
      sql: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);"
        + "INSERT INTO todo VALUES (1, 'one', 7, 0);")
    let loud = runTaskpress(["build", "--todos", database, "-o", folder + "/loud"])
    #expect(loud.stderr == "warning: \(database): todo pk=1: priority 7 is not 1, 2 or 3\n")
    let quiet = runTaskpress(["build", "--todos", database, "-o", folder + "/site", "--quiet"])
    #expect(quiet.status == 0)
    #expect(quiet.stdout.isEmpty)
    #expect(quiet.stderr.isEmpty)
    let failing = runTaskpress([
      "build", "--todos", database, "-o", folder + "/site", "-q", "--strict",
    ])
    #expect(failing.status == 1)
    #expect(failing.stderr == "error: 1 warning and --strict is set; the site was not changed\n")
  }

  @Test(
    "a bad SOURCE_DATE_EPOCH is a usage error naming it, before anything is built",
    arguments: ["abc", "-5", "1.5", ""])
  func badSourceDateEpoch(value: String) throws {
    let folder = try makeTemporaryFolder()
    let database = folder + "/todo.sqlite"
    try Database.createForTesting(
      at: database,
      sql: "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);")
    let result = runTaskpress(
      ["build", "--todos", database, "-o", folder + "/site"],
      environment: ["SOURCE_DATE_EPOCH": value])
    #expect(result.status == 64)
    #expect(
      result.stderr
        == "error: SOURCE_DATE_EPOCH: invalid value '\(value)': expected seconds since 1970\n")
    #expect(!FileManager.default.fileExists(atPath: folder + "/site"))
  }

  @Test("bad values in taskpress.json exit 64 naming the file and the key")
  func badConfigValues() throws {
    let folder = try makeTemporaryFolder()
    let cases = [
      (#"{"jobs": 0}"#, "key 'jobs': invalid value '0': expected a whole number from 1 to 1024"),
      (#"{"quiet": "yes"}"#, "key 'quiet': expected true or false"),
      (#"{"output": ""}"#, "key 'output': the value is empty"),
    ]
    for (text, message) in cases {
      try Data(text.utf8).write(to: URL(filePath: folder + "/taskpress.json"))
      let result = runTaskpress(["build", "--config", folder + "/taskpress.json"])
      #expect(result.status == 64)
      // Each names the line and column of its key.
      #expect(result.stderr == "error: \(folder)/taskpress.json:1:2: \(message)\n")
    }
  }
}

@Suite struct ConfigFileErrorTests {
  @Test("--config naming a folder is a usage error that says what to give")
  func configFolder() throws {
    let folder = try makeTemporaryFolder()
    let result = runTaskpress(["build", "--config", folder])
    #expect(result.status == 64)
    #expect(
      result.stderr == "error: \(folder): is a folder; give '--config' the path of a JSON file\n")
  }
}
