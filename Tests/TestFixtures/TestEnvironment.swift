import Foundation
import Testing

/// What the tests may assume about the machine they run on, in one place: whether they run in
/// CI, and the programs some of them start (installed by `.ci/run`).
///
/// A test that cannot run here says why: outside CI a missing tool skips it with that reason
/// (`Test.cancel`, listed by `.ci/run`); in CI every tool must be there, so a missing one fails
/// the test.
public enum TestEnvironment {
  /// Whether the tests run in CI: `CI` set to anything but "", "0" or "false" (any case): the
  /// same rule as taskpress's own (`OutputSwitches`). The one definition the tests use.
  public static let isCI: Bool = inCI(ProcessInfo.processInfo.environment)

  /// Whether the long tests run: `TASKPRESS_LONG_TESTS` set to anything but "", "0" or
  /// "false" (`.ci/run` sets it). A long test is a scale run or a long randomized run whose
  /// behaviour a small case of the default suite also covers; without the switch `swift test`
  /// stays within a few minutes.
  public static let longTests: Bool = {
    guard let value = ProcessInfo.processInfo.environment["TASKPRESS_LONG_TESTS"] else {
      return false
    }
    return !["", "0", "false"].contains(value.lowercased())
  }()

  /// The trait of a long test: skipped, saying so, unless `TASKPRESS_LONG_TESTS=1`.
  public static var long: ConditionTrait {
    .enabled(if: longTests, "a long test: TASKPRESS_LONG_TESTS=1 runs it (.ci/run does)")
  }

  /// `long` when the long tests run, else `short`: the size of a test that runs either way.
  public static func size<T>(long: T, short: T) -> T { longTests ? long : short }

  /// The rule of `isCI`, for an environment.
  public static func inCI(_ environment: [String: String]) -> Bool {
    guard let value = environment["CI"] else { return false }
    return !["", "0", "false"].contains(value.lowercased())
  }

  /// The first of `candidates` (absolute paths) that is an executable file, or else `name`
  /// found on `PATH`; nil when neither is.
  public static func find(_ name: String, candidates: [String] = []) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    let onPath = path.split(separator: ":").map { "\($0)/\(name)" }
    return (candidates + onPath).first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// The trait of a test that runs the program `name`: outside CI, without it, the test is
  /// skipped with this reason; in CI it runs, and `requireTool` fails it. (A trait rather than
  /// `requireTool`'s cancel for parameterized tests: a cancelled case is not reported.)
  public static func needs(_ name: String, candidates: [String] = [], install: String)
    -> ConditionTrait
  {
    .enabled(
      if: isCI || find(name, candidates: candidates) != nil,
      "'\(name)' is not installed (\(install); .ci/run installs it): skipped outside CI")
  }

  /// Whether this process may mount file systems (root with the right to mount, which a
  /// container may not give): a bind mount of a temporary folder is tried once.
  /// `TASKPRESS_TEST_NO_MOUNT=1` says no, to see the tests that need it skipped.
  public static let canMount: Bool = {
    guard ProcessInfo.processInfo.environment["TASKPRESS_TEST_NO_MOUNT"] == nil else {
      return false
    }
    let probe = NSTemporaryDirectory() + "taskpress-mount-probe-" + UUID().uuidString
    defer { try? FileManager.default.removeItem(atPath: probe) }
    guard
      (try? FileManager.default.createDirectory(
        atPath: probe + "/point", withIntermediateDirectories: true)) != nil,
      let mount = find("mount", candidates: ["/usr/bin/mount", "/bin/mount"]),
      let umount = find("umount", candidates: ["/usr/bin/umount", "/bin/umount"])
    else { return false }
    func run(_ program: String, _ arguments: [String]) -> Bool {
      let process = Process()
      process.executableURL = URL(filePath: program)
      process.arguments = arguments
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      guard (try? process.run()) != nil else { return false }
      process.waitUntilExit()
      return process.terminationStatus == 0
    }
    guard run(mount, ["--bind", probe, probe + "/point"]) else { return false }
    _ = run(umount, [probe + "/point"])
    return true
  }()

  /// The path of the program `name` (see `find`). When it is missing, in CI the test fails,
  /// naming the program and how to install it; outside CI the test is skipped with that reason.
  public static func requireTool(
    _ name: String, candidates: [String] = [], install: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    if let found = find(name, candidates: candidates) { return found }
    let reason = "'\(name)' is not installed (\(install); .ci/run installs it)"
    if isCI {
      Issue.record("\(reason), and CI is set", sourceLocation: sourceLocation)
      throw MissingTool(name: name)
    }
    try Test.cancel("\(reason): skipped outside CI", sourceLocation: sourceLocation)
  }

  /// Skips the running test, saying why (`.ci/run` lists it). For what the machine does not
  /// allow (mounting as root in a container), not for a missing tool: see `requireTool`.
  public static func skip(_ reason: String, sourceLocation: SourceLocation = #_sourceLocation)
    throws -> Never
  {
    try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
  }

  /// Thrown after the issue that names the missing tool is recorded, to end the test.
  public struct MissingTool: Error, CustomStringConvertible {
    public let name: String
    public var description: String { "'\(name)' is not installed" }
  }
}
