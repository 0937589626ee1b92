import Foundation
import TaskpressKit

/// What `taskpress publish --report FILE.json` writes: the outcome, the plan's steps, and the
/// paths uploaded and deleted. Written for failed and interrupted publishes too.
struct PublishReport: Encodable {
  struct Step: Encodable {
    var key: String
    var name: String
    var files: Int
    var bytes: Int
    /// Whether rclone finished it.
    var done: Bool
  }

  var version = taskpressVersion
  /// `published`, `planned` (`--dry-run`), `failed` or `interrupted`.
  var status = "failed"
  var exitStatus: Int32 = 0
  var output: String
  var destination: String
  var dryRun = false
  /// Files of the site.
  var files = 0
  /// Files found by listing the destination (a first publish, or `--full`).
  var listed = 0
  /// Their paths (not written to the report).
  var listedPaths = Set<String>()
  /// Of those, the files whose hash was the site's: not uploaded.
  var matched = 0
  var unchanged = 0
  var steps: [Step] = []
  var uploaded = 0
  var uploadedBytes = 0
  var deleted = 0
  var uploadedPaths: [String] = []
  var deletedPaths: [String] = [] {
    didSet { deleted = deletedPaths.count }
  }
  /// The host limits passed (`--host`).
  var warnings: [String] = []
  var error: String?

  init(output: String, destination: String) {
    self.output = output
    self.destination = destination
  }

  mutating func plan(_ plan: PublishPlan) {
    unchanged = plan.unchanged
    steps = plan.steps.map {
      Step(key: $0.key, name: $0.name, files: $0.files.count, bytes: $0.bytes, done: false)
    }
    if !plan.deletions.isEmpty {
      steps.append(
        Step(
          key: "delete", name: "files no longer built", files: plan.deletions.count, bytes: 0,
          done: false))
    }
  }

  mutating func uploaded(_ step: PublishPlan.Step) {
    uploaded += step.files.count
    uploadedBytes += step.bytes
    uploadedPaths += step.files.map(\.path)
    if let index = steps.firstIndex(where: { $0.key == step.key }) { steps[index].done = true }
  }

  enum CodingKeys: String, CodingKey {
    case version, status, exitStatus, output, destination, dryRun, files, listed, matched
    case unchanged, steps, uploaded, uploadedBytes, deleted, uploadedPaths, deletedPaths
    case warnings, error
  }

  func encode(to encoder: Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(version, forKey: .version)
    try container.encode(status, forKey: .status)
    try container.encode(exitStatus, forKey: .exitStatus)
    try container.encode(output, forKey: .output)
    try container.encode(destination, forKey: .destination)
    try container.encode(dryRun, forKey: .dryRun)
    try container.encode(files, forKey: .files)
    try container.encode(listed, forKey: .listed)
    try container.encode(matched, forKey: .matched)
    try container.encode(unchanged, forKey: .unchanged)
    var shown = steps
    if deleted > 0, let index = shown.firstIndex(where: { $0.key == "delete" }) {
      shown[index].done = true
    }
    try container.encode(shown, forKey: .steps)
    try container.encode(uploaded, forKey: .uploaded)
    try container.encode(uploadedBytes, forKey: .uploadedBytes)
    try container.encode(deleted, forKey: .deleted)
    try container.encode(uploadedPaths, forKey: .uploadedPaths)
    try container.encode(deletedPaths, forKey: .deletedPaths)
    try container.encode(warnings, forKey: .warnings)
    try container.encode(error, forKey: .error)
  }

  /// Writes the report to `path` (a temporary file, then a rename); the problem, or nil.
  func write(to path: String) -> String? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
    guard var data = try? encoder.encode(self) else { return "cannot encode the report" }
    data.append(contentsOf: Array("\n".utf8))
    let temporary = path + ".tmp"
    guard FileManager.default.createFile(atPath: temporary, contents: data) else {
      return String(cString: strerror(errno))
    }
    guard rename(temporary, path) == 0 else {
      let problem = String(cString: strerror(errno))
      unlink(temporary)
      return problem
    }
    return nil
  }
}
