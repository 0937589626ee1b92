import Foundation
import TestFixtures
import Testing

@testable import TaskpressKit

/// The example CI files of `Docs/ci/`.
private let recipes = URL(filePath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .appending(path: "Docs/ci")

@Suite struct CIRecipeTests {
  @Test(
    "the example workflows pass the GitHub and GitLab schemas, and a broken one does not",
    TestEnvironment.needs("check-jsonschema", install: "pip install check-jsonschema"),
    arguments: [
      ("github-nightly.yml", "vendor.github-workflows", "runs-on: ubuntu-24.04", "runs_on: x"),
      ("gitlab-ci.yml", "vendor.gitlab-ci", "when: on_success", "when: sometimes"),
    ])
  func schemas(file: String, schema: String, line: String, broken: String) throws {
    let tool = try Tool.require("check-jsonschema", install: "pip install check-jsonschema")
    let path = recipes.appending(path: file).path
    let check = Tool.run(tool, ["--builtin-schema", schema, path])
    #expect(check.status == 0, "\(check.output)")
    #expect(check.output.contains("ok -- validation done"))

    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text.contains(line))
    let folder = try makeTemporaryFolder()
    let copy = folder + "/" + file
    try text.replacingOccurrences(of: line, with: broken).write(
      toFile: copy, atomically: true, encoding: .utf8)
    let bad = Tool.run(tool, ["--builtin-schema", schema, copy])
    #expect(bad.status != 0, "\(bad.output)")
  }

  @Test(
    "the cache of each recipe keeps the site and the state folder taskpress uses beside it",
    arguments: ["github-nightly.yml", "gitlab-ci.yml"])
  func cachedFolders(file: String) throws {
    let text = try String(contentsOfFile: recipes.appending(path: file).path, encoding: .utf8)
    let site = try #require(
      text.split(separator: "\n").first { $0.hasPrefix("  SITE: ") }?.dropFirst("  SITE: ".count))
    let state = try #require(OutputWriter.stateFolder(ofOutput: String(site)))
    #expect(state == "public/.reports.taskpress")
    #expect(text.contains("  STATE: \(state)\n"))
    #expect(text.contains("- \(site)/\n") || text.contains("    \(site)\n"))
    #expect(text.contains("- \(state)/\n") || text.contains("    \(state)\n"))
  }
}
