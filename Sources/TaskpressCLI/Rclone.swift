import Foundation
import TaskpressKit

/// Runs rclone, the program `taskpress publish` uploads through: found on `PATH`, given the
/// environment of taskpress (so `RCLONE_CONFIG_*` variables configure remotes), its output
/// kept in files so that a long listing never fills a pipe.
struct Rclone {
  /// The rclone executable.
  let executable: String
  /// Flags passed to every command that touches the destination (`--rclone-flag`).
  let flags: [String]
  let environment: [String: String]
  /// The start of the paths of the files rclone's output goes to (in the records' folder of the
  /// state folder, named after the destination's record, so that publishes to two destinations
  /// do not mix them).
  let scratch: String

  /// What one run of rclone gave.
  struct Outcome {
    var status: Int32
    var output: Data
    var errors: String
    /// Whether the run was stopped because `interrupt` was set.
    var interrupted: Bool
  }

  /// The rclone on `PATH` (of `environment`), or nil.
  static func find(environment: [String: String]) -> String? {
    let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for folder in path.split(separator: ":") where !folder.isEmpty {
      let candidate = String(folder) + "/rclone"
      if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
  }

  /// Runs `rclone arguments...` (with `flags` after them when `passFlags`), stopping it
  /// (SIGTERM, then SIGKILL) when `interrupt` is set.
  func run(_ arguments: [String], passFlags: Bool = true, interrupt: InterruptFlag) -> Outcome {
    let outPath = scratch + ".out"
    let errPath = scratch + ".err"
    guard FileManager.default.createFile(atPath: outPath, contents: nil),
      FileManager.default.createFile(atPath: errPath, contents: nil),
      let out = FileHandle(forWritingAtPath: outPath),
      let err = FileHandle(forWritingAtPath: errPath)
    else {
      return Outcome(
        status: -1, output: Data(), errors: "cannot create '\(outPath)' for rclone's output",
        interrupted: false)
    }
    defer {
      try? out.close()
      try? err.close()
      unlink(outPath)
      unlink(errPath)
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments + (passFlags ? flags : [])
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = out
    process.standardError = err
    do {
      try process.run()
    } catch {
      return Outcome(
        status: -1, output: Data(), errors: "cannot run '\(executable)': \(error)",
        interrupted: false)
    }
    var interrupted = false
    var waited = 0
    while process.isRunning {
      if interrupt.isSet && !interrupted {
        interrupted = true
        process.terminate()
      }
      if interrupted {
        waited += 1
        // rclone stops within a second of SIGTERM; past 5 s it is killed.
        if waited == 250 { kill(process.processIdentifier, SIGKILL) }
      }
      usleep(20_000)
    }
    let output = FileManager.default.contents(atPath: outPath) ?? Data()
    let errors = String(
      decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
    return Outcome(
      status: process.terminationStatus, output: output, errors: errors,
      interrupted: interrupted || interrupt.isSet)
  }
}

/// Why rclone failed, read from its exit status and its messages.
enum RcloneFailure: Equatable {
  /// The remote is not in rclone's configuration.
  case notConfigured
  /// The server refused the credentials.
  case authentication(String)
  /// The server could not be reached.
  case unreachable(String)
  /// Anything else: a transfer failed.
  case failed(String)

  static func classify(_ errors: String) -> RcloneFailure {
    let lines = errors.split(separator: "\n").map(String.init)
    let lower = errors.lowercased()
    let detail = Self.detail(lines)
    if lower.contains("didn't find section in config file")
      || lower.contains("config file \"") && lower.contains("not found")
    {
      return .notConfigured
    }
    let authentication = [
      "401 unauthorized", "403 forbidden", "status code 401", "status code 403",
      "accessdenied", "access denied", "invalidaccesskeyid", "signaturedoesnotmatch",
      "unable to authenticate", "authentication failed", "permission denied", "unauthorized",
      "invalid credentials", "expiredtoken", "invalid_grant",
    ]
    if authentication.contains(where: lower.contains) { return .authentication(detail) }
    let network = [
      "connection refused", "no such host", "i/o timeout", "network is unreachable",
      "no route to host", "connection reset", "dial tcp", "tls handshake",
      "context deadline exceeded", "server misbehaving", "unexpected eof",
    ]
    if network.contains(where: lower.contains) { return .unreachable(detail) }
    return .failed(detail)
  }

  /// The last line of rclone's that says what went wrong, without its time stamp and level.
  static func detail(_ lines: [String]) -> String {
    let errors = lines.filter {
      $0.contains("ERROR") || $0.contains("CRITICAL") || $0.contains("Failed")
    }
    guard var line = errors.last ?? lines.last(where: { !$0.isEmpty }) else {
      return "no message"
    }
    for marker in ["CRITICAL: ", "ERROR : ", "ERROR: ", "NOTICE: "] {
      if let range = line.range(of: marker) { line = String(line[range.upperBound...]) }
    }
    // rclone's time stamp, `2026/12/05 21:38:24 `.
    if line.count > 20, line.prefix(20).allSatisfy({ $0.isNumber || "/: ".contains($0) }) {
      line = String(line.dropFirst(20))
    }
    line = line.trimmingCharacters(in: .whitespaces)
    return line.count > 300 ? String(line.prefix(300)) + "..." : line
  }
}
