import Foundation
import Mustache
import TaskpressKit

/// `taskpress publish`: uploads the site the last build wrote to an rclone destination, in an
/// order that never shows a broken page (`PublishPlan`), keeping what each destination holds in
/// the state folder (`PublishRecord`).
enum PublishCommand {
  /// What the flags and `taskpress.json` ask for.
  struct Settings: Equatable {
    var output = "site"
    var destination = ""
    var host: HostLimits?
    var rcloneFlags: [String] = []
    var dryRun = false
    var full = false
    var strict = false
    var quiet = false
    var report: String?
  }

  /// The settings of `parsed`, with `taskpress.json` (or `--config`) under the flags: its
  /// `output`, `host`, `strict` and `quiet`, and its `publish` object (`destination`,
  /// `rclone-flags`, `host`).
  static func settings(_ parsed: ParsedArguments, io: CommandIO) throws(UsageError) -> Settings {
    var settings = Settings()
    let file = try Configuration.publishFile(parsed, currentDirectory: io.currentDirectory)
    if let output = file.output { settings.output = output }
    var hostSource: (name: String, source: String)? = file.host
    settings.destination = file.destination ?? ""
    settings.rcloneFlags = file.rcloneFlags
    settings.strict = file.strict
    settings.quiet = file.quiet
    if let output = parsed.values["output"] {
      guard !output.isEmpty else { throw UsageError("'--output': the value is empty") }
      settings.output = output
    }
    if let host = parsed.values["host"] { hostSource = (host, "'--host'") }
    if let (name, source) = hostSource {
      guard let limits = HostLimits.named(name) else {
        var message = "\(source): unknown host '\(name)'"
        if let suggestion = closest(to: name, in: HostLimits.names) {
          message += "; did you mean '\(suggestion)'?"
        } else {
          message += "; the hosts are " + HostLimits.names.map { "'\($0)'" }.joined(separator: ", ")
        }
        throw UsageError(message)
      }
      settings.host = limits
    }
    settings.rcloneFlags += parsed.repeated["rclone-flag"] ?? []
    if let destination = parsed.positionals.first { settings.destination = destination }
    guard !settings.destination.isEmpty else {
      throw UsageError(
        "no destination: give one, e.g. 'taskpress publish myremote:bucket/site' (an rclone"
          + " remote and path; see 'rclone config'), or set \"publish\": {\"destination\": ...}"
          + " in taskpress.json")
    }
    settings.dryRun = parsed.switches.contains("dry-run")
    settings.full = parsed.switches.contains("full")
    if parsed.switches.contains("strict") { settings.strict = true }
    if parsed.switches.contains("quiet") { settings.quiet = true }
    settings.report = parsed.values["report"]
    return settings
  }

  static func run(
    _ parsed: ParsedArguments, io: CommandIO, interrupt: InterruptFlag = .process
  ) -> Int32 {
    let settings: Settings
    do {
      settings = try Self.settings(parsed, io: io)
    } catch {
      io.err("error: \(error.message)\n")
      return TaskpressCLI.ExitStatus.usage
    }
    if let report = settings.report,
      let problem = BuildReport.problem(writing: report, source: "'--report'")
    {
      io.err("error: \(problem)\n")
      return TaskpressCLI.ExitStatus.usage
    }
    var report = PublishReport(output: settings.output, destination: settings.destination)
    report.dryRun = settings.dryRun
    var session = Session(settings: settings, io: io, interrupt: interrupt)
    let status = session.publish(&report)
    session.progress.clear()
    report.exitStatus = status
    if let path = settings.report, let problem = report.write(to: path) {
      io.err("error: \(path): cannot write the report (\(problem))\n")
      return status == TaskpressCLI.ExitStatus.success ? TaskpressCLI.ExitStatus.failure : status
    }
    return status
  }

  /// The name of the rclone remote of `destination` (`s3` of `s3:bucket/site`), or nil for a
  /// local path.
  static func remoteName(_ destination: String) -> String? {
    guard let colon = destination.firstIndex(of: ":") else { return nil }
    let name = destination[..<colon]
    guard !name.contains("/") else { return nil }
    return String(name)
  }

  /// What to say when rclone failed, and the exit status.
  static func failure(
    _ kind: RcloneFailure, destination: String, doing: String, started: Bool
  ) -> (message: String, status: Int32) {
    let remote = remoteName(destination)
    let after =
      started
      ? "; the destination may hold part of this publish, and links only to files present:"
        + " run 'taskpress publish' again to finish"
      : "; nothing was uploaded"
    switch kind {
    case .notConfigured:
      let name = remote ?? ""
      let variable = "RCLONE_CONFIG_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
      return (
        "'\(destination)': rclone has no remote named '\(name)'; set it up with 'rclone config'"
          + " (see 'rclone config file' for where it is kept), or in the environment with"
          + " \(variable)_TYPE=... and the backend's other settings" + after,
        TaskpressCLI.ExitStatus.notConfigured
      )
    case .authentication(let detail):
      let fix =
        remote.map {
          "check the credentials with 'rclone config show \($0)' and fix them with"
            + " 'rclone config update \($0) ...' (or 'rclone config reconnect \($0):')"
        } ?? "check the permissions of the destination"
      return (
        "'\(destination)': the server refused rclone's credentials while \(doing) (\(detail));"
          + " \(fix)" + after,
        TaskpressCLI.ExitStatus.authentication
      )
    case .unreachable(let detail):
      let check = remote.map { "'rclone config show \($0)'" } ?? "the destination"
      return (
        "'\(destination)': rclone cannot reach the server while \(doing) (\(detail)); check the"
          + " address in \(check) and the network, then run 'taskpress publish' again" + after,
        TaskpressCLI.ExitStatus.transferFailed
      )
    case .failed(let detail):
      return (
        "'\(destination)': rclone failed while \(doing) (\(detail)); see 'rclone lsf \(destination)'"
          + " and run 'taskpress publish' again (add '--rclone-flag=-vv' for rclone's details)"
          + after,
        TaskpressCLI.ExitStatus.transferFailed
      )
    }
  }
}

// MARK: - One publish

extension PublishCommand {
  struct Session {
    let settings: Settings
    let io: CommandIO
    let interrupt: InterruptFlag
    let progress: PublishProgress
    let started = Date()

    init(settings: Settings, io: CommandIO, interrupt: InterruptFlag) {
      self.settings = settings
      self.io = io
      self.interrupt = interrupt
      let switches = OutputSwitches(environment: io.environment, isTerminal: io.errorIsTerminal)
      progress = PublishProgress(io: io, enabled: !settings.quiet && switches.showsProgress)
    }

    private var destination: String { settings.destination }

    func fail(_ message: String, _ status: Int32, _ report: inout PublishReport) -> Int32 {
      progress.clear()
      io.err("error: \(message)\n")
      report.error = message
      report.status = "failed"
      return status
    }

    mutating func publish(_ report: inout PublishReport) -> Int32 {
      guard let executable = Rclone.find(environment: io.environment) else {
        return fail(
          "rclone is not installed (taskpress publish uploads through it); install it with"
            + " 'apt-get install rclone' or see https://rclone.org/install/, then set up the"
            + " destination with 'rclone config'",
          TaskpressCLI.ExitStatus.rcloneMissing, &report)
      }
      let site: BuiltSite
      do {
        site = try BuiltSite(output: settings.output)
      } catch {
        return fail("\(error)", TaskpressCLI.ExitStatus.failure, &report)
      }
      defer { site.close() }
      report.files = site.files.count
      if let host = settings.host {
        for problem in host.problems(files: site.files, folders: site.folders) {
          report.warnings.append(problem)
          if !settings.strict && !settings.quiet { io.err("warning: \(problem)\n") }
        }
        if settings.strict, let first = report.warnings.first {
          return fail(
            first + " (an error with --strict; nothing was uploaded)",
            TaskpressCLI.ExitStatus.failure, &report)
        }
      }
      let folder = site.statePath + "/published"
      if mkdir(folder, 0o777) != 0 && errno != EEXIST {
        return fail(
          "\(folder): cannot create the folder of publish records"
            + " (\(String(cString: strerror(errno))))", TaskpressCLI.ExitStatus.failure, &report)
      }
      let scratch = folder + "/" + PublishRecord.fileName(for: destination)
      // One publish to a destination at a time: two would each keep a record of half.
      let lock = open(scratch + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
      defer { if lock >= 0 { close(lock) } }
      guard lock >= 0, flock(lock, LOCK_EX | LOCK_NB) == 0 else {
        return fail(
          "'\(destination)': another taskpress publish of '\(settings.output)' to it is running;"
            + " wait for it to finish", TaskpressCLI.ExitStatus.failure, &report)
      }
      let rclone = Rclone(
        executable: executable, flags: settings.rcloneFlags, environment: io.environment,
        scratch: scratch)

      // What the destination holds: the record, checked against its top folder, else a listing.
      var record = PublishRecord.read(statePath: site.statePath, destination: destination)
      let probe = rclone.run(
        [
          "lsjson", "--max-depth", "1", "--files-only", "--no-mimetype", "--no-modtime",
          destination,
        ],
        interrupt: interrupt)
      if let status = stopped(probe, doing: "reading the destination", started: false, &report) {
        return status
      }
      // The record is trusted when the top folder holds, at their sizes, the files it says
      // are there as the site has them (those the plan would not upload again).
      var earlier: PublishRecord?
      if settings.full {
        // Listed and compared; what taskpress published there before is still deleted.
        earlier = record
        record = nil
      }
      if let known = record {
        let top = Listing(probe.status == 3 ? Data("[]".utf8) : probe.output)
        let sizes = Dictionary(
          site.files.lazy.filter { !$0.path.contains("/") }.map { ($0.path, $0) },
          uniquingKeysWith: { a, _ in a })
        let missing = known.files.values.contains { file in
          !file.path.contains("/") && sizes[file.path] == file
            && top?.sizes[file.path] != file.size
        }
        if top == nil || missing || (probe.status == 3 && !known.files.isEmpty) {
          if !settings.quiet {
            io.err(
              "note: '\(destination)' does not hold what taskpress last published there;"
                + " comparing it file by file\n")
          }
          earlier = known
          record = nil
        }
      }
      var present = Set<String>()
      var listed = false
      if record == nil {
        listed = true
        var fresh = PublishRecord()
        let status = compare(site, rclone, &fresh, &present, &report)
        if let status { return status }
        // Files taskpress published there that the site no longer has are still deleted.
        let produced = Set(site.files.map(\.path))
        for (path, file) in earlier?.files ?? [:]
        where !produced.contains(path) && report.listedPaths.contains(path) {
          fresh.files[path] = file
        }
        record = fresh
      }
      guard var record else { return TaskpressCLI.ExitStatus.failure }
      let plan = PublishPlan(site: site.files, record: record, present: present)
      report.plan(plan)
      if settings.dryRun {
        if !settings.quiet {
          io.out(PublishCommand.describe(plan, site: site, destination: destination))
        }
        report.status = "planned"
        return TaskpressCLI.ExitStatus.success
      }
      if listed {
        if let status = keep(record, site, &report) { return status }
      }

      // The uploads, step by step, each recorded once rclone has finished it.
      let listPath = scratch + ".files"
      for (number, step) in plan.steps.enumerated() {
        progress.show(
          "publishing: step \(number + 1)/\(plan.steps.count + (plan.deletions.isEmpty ? 0 : 1)),"
            + " \(step.name): \(step.files.count) files (\(HostLimitsText.bytes(step.bytes)))")
        guard write(step.files.map(\.path), to: listPath) else {
          return fail(
            "\(listPath): cannot write the list of files to upload",
            TaskpressCLI.ExitStatus.failure,
            &report)
        }
        let outcome = rclone.run(
          [
            "copy", "--files-from-raw", listPath, "--ignore-times", "--no-traverse",
            site.output, destination,
          ], interrupt: interrupt)
        if let status = stopped(
          outcome, doing: "uploading the \(step.name)", started: true, &report)
        {
          return status
        }
        for file in step.files { record.files[file.path] = file }
        report.uploaded(step)
        if let status = keep(record, site, &report) { return status }
      }
      if !plan.deletions.isEmpty {
        progress.show(
          "publishing: step \(plan.steps.count + 1)/\(plan.steps.count + 1), deleting"
            + " \(plan.deletions.count) files no longer built")
        guard write(plan.deletions, to: listPath) else {
          return fail(
            "\(listPath): cannot write the list of files to delete",
            TaskpressCLI.ExitStatus.failure,
            &report)
        }
        let outcome = rclone.run(
          ["delete", "--files-from-raw", listPath, destination], interrupt: interrupt)
        if let status = stopped(
          outcome, doing: "deleting the files no longer built", started: true, &report)
        {
          return status
        }
        for path in plan.deletions { record.files[path] = nil }
        report.deletedPaths = plan.deletions
        if let status = keep(record, site, &report) { return status }
      }
      unlink(listPath)
      progress.clear()
      report.status = "published"
      if !settings.quiet {
        let seconds = Date().timeIntervalSince(started)
        io.out(
          "published \(settings.output) to \(destination): \(plan.uploadCount) uploaded"
            + " (\(HostLimitsText.bytes(plan.uploadBytes))), \(plan.deletions.count) deleted,"
            + " \(plan.unchanged) unchanged in \(String(format: "%.2f", seconds)) s\n")
      }
      return TaskpressCLI.ExitStatus.success
    }

    /// Lists the destination and compares it with the site: files of the same size whose hash
    /// (of a kind the backend gives) is the local file's go into `record` as published; the
    /// other paths of the site found there go into `present`. Returns an exit status on failure.
    private func compare(
      _ site: BuiltSite, _ rclone: Rclone, _ record: inout PublishRecord,
      _ present: inout Set<String>, _ report: inout PublishReport
    ) -> Int32? {
      let outcome = rclone.run(
        ["lsjson", "-R", "--files-only", "--hash", "--no-mimetype", "--no-modtime", destination],
        interrupt: interrupt)
      if let status = stopped(outcome, doing: "listing the destination", started: false, &report) {
        return status
      }
      guard let listing = Listing(outcome.status == 3 ? Data("[]".utf8) : outcome.output) else {
        return fail(
          "'\(destination)': cannot read rclone's listing of the destination ('rclone lsjson -R"
            + " \(destination)' shows it)", TaskpressCLI.ExitStatus.transferFailed, &report)
      }
      var candidates: [BuiltSite.File] = []
      for file in site.files where listing.sizes[file.path] != nil {
        if listing.sizes[file.path] == file.size, listing.hashes[file.path]?.isEmpty == false {
          candidates.append(file)
        } else {
          present.insert(file.path)
        }
      }
      report.listed = listing.sizes.count
      report.listedPaths = Set(listing.sizes.keys)
      guard !candidates.isEmpty else { return nil }
      let kind = Listing.preferredHash(candidates.compactMap { listing.hashes[$0.path] })
      let listPath = rclone.scratch + ".files"
      guard let kind, write(candidates.map(\.path), to: listPath) else {
        for file in candidates { present.insert(file.path) }
        return nil
      }
      let local = rclone.run(
        ["hashsum", kind, "--files-from-raw", listPath, site.output], passFlags: false,
        interrupt: interrupt)
      if interrupt.isSet {
        return fail(
          "interrupted while comparing the destination; nothing was uploaded",
          TaskpressCLI.ExitStatus.interrupted(by: interrupt.signal), &report)
      }
      var localHashes: [String: String] = [:]
      if local.status == 0 {
        for line in String(decoding: local.output, as: UTF8.self).split(separator: "\n") {
          guard let space = line.range(of: "  ") else { continue }
          localHashes[String(line[space.upperBound...])] = String(line[..<space.lowerBound])
            .lowercased()
        }
      }
      for file in candidates {
        if let remote = listing.hashes[file.path]?[kind], !remote.isEmpty,
          localHashes[file.path] == remote.lowercased()
        {
          record.files[file.path] = file
          report.matched += 1
        } else {
          present.insert(file.path)
        }
      }
      return nil
    }

    /// Nil when `outcome` succeeded (or found no destination folder, status 3); else the exit
    /// status, once the failure or interruption is told.
    private func stopped(
      _ outcome: Rclone.Outcome, doing: String, started: Bool, _ report: inout PublishReport
    ) -> Int32? {
      if outcome.interrupted {
        progress.clear()
        let message =
          "interrupted while \(doing); "
          + (started
            ? "the destination links only to files present: run 'taskpress publish' again to finish"
            : "nothing was uploaded")
        io.err(message + "\n")
        report.error = message
        report.status = "interrupted"
        return TaskpressCLI.ExitStatus.interrupted(by: interrupt.signal)
      }
      if outcome.status == 0 || (outcome.status == 3 && doing.hasPrefix("reading"))
        || (outcome.status == 3 && doing.hasPrefix("listing"))
      {
        return nil
      }
      if outcome.status == -1 {
        return fail(outcome.errors, TaskpressCLI.ExitStatus.failure, &report)
      }
      let (message, status) = PublishCommand.failure(
        RcloneFailure.classify(outcome.errors), destination: destination, doing: doing,
        started: started)
      return fail(message, status, &report)
    }

    /// Writes `record`; an exit status when it cannot.
    private func keep(
      _ record: PublishRecord, _ site: BuiltSite, _ report: inout PublishReport
    ) -> Int32? {
      do {
        try record.write(statePath: site.statePath, destination: destination)
        return nil
      } catch {
        return fail(
          "\(error) (the record of what was published; the next publish will compare the"
            + " destination file by file)", TaskpressCLI.ExitStatus.failure, &report)
      }
    }

    private func write(_ paths: [String], to path: String) -> Bool {
      var text = ""
      for line in paths { text += line + "\n" }
      return FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }
  }

  /// The plan as `--dry-run` prints it.
  static func describe(_ plan: PublishPlan, site: BuiltSite, destination: String) -> String {
    var text = "plan for publishing \(site.output) to \(destination):\n"
    func line(_ verb: String, _ name: String, _ paths: [String], _ bytes: Int?) {
      let shown = paths.prefix(3).joined(separator: ", ") + (paths.count > 3 ? ", ..." : "")
      let size = bytes.map { ", \(HostLimitsText.bytes($0))" } ?? ""
      text += "  \(verb) \(name): \(paths.count) files\(size): \(shown)\n"
    }
    for (number, step) in plan.steps.enumerated() {
      line("\(number + 1). upload", step.name, step.files.map(\.path), step.bytes)
    }
    if !plan.deletions.isEmpty {
      line("\(plan.steps.count + 1). delete", "files no longer built", plan.deletions, nil)
    }
    text +=
      "  \(plan.uploadCount) to upload (\(HostLimitsText.bytes(plan.uploadBytes))),"
      + " \(plan.deletions.count) to delete, \(plan.unchanged) unchanged (dry run: nothing was"
      + " uploaded)\n"
    return text
  }
}

/// rclone's `lsjson` output: each file's size and hashes.
struct Listing {
  var sizes: [String: Int] = [:]
  var hashes: [String: [String: String]] = [:]

  init?(_ data: Data) {
    guard let entries = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
      return nil
    }
    for entry in entries {
      guard let path = entry["Path"] as? String, (entry["IsDir"] as? Bool) != true else { continue }
      sizes[path] = (entry["Size"] as? NSNumber)?.intValue ?? -1
      if let found = entry["Hashes"] as? [String: String] { hashes[path] = found }
    }
  }

  /// The kind of hash to compare by: MD5 when the backend gives it, else SHA-1, else the one
  /// it gives most.
  static func preferredHash(_ found: [[String: String]]) -> String? {
    var counts: [String: Int] = [:]
    for hashes in found {
      for (kind, value) in hashes where !value.isEmpty { counts[kind, default: 0] += 1 }
    }
    for kind in ["md5", "sha1"] where counts[kind] != nil { return kind }
    return counts.max { $0.value < $1.value }?.key
  }
}

/// Byte counts as plans and summaries show them.
enum HostLimitsText {
  static func bytes(_ value: Int) -> String {
    let units = ["bytes", "kB", "MB", "GB", "TB"]
    var amount = Double(value)
    var unit = 0
    while amount >= 1000 && unit < units.count - 1 {
      amount /= 1000
      unit += 1
    }
    return unit == 0 ? "\(value) bytes" : String(format: "%.1f", amount) + " " + units[unit]
  }
}

/// The one line on stderr that says which step a publish is at, redrawn in place.
final class PublishProgress: @unchecked Sendable {
  // `@unchecked`: used from the one thread that publishes.
  private let io: CommandIO
  private let enabled: Bool
  private var shown = false

  init(io: CommandIO, enabled: Bool) {
    self.io = io
    self.enabled = enabled
  }

  func show(_ text: String) {
    guard enabled else { return }
    io.err("\r\u{1B}[2K" + text)
    shown = true
  }

  func clear() {
    guard enabled, shown else { return }
    io.err("\r\u{1B}[2K")
    shown = false
  }
}
