import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a command writes its result and its diagnostics.
///
/// The real process writes to stdout and stderr; tests capture both.
public class CommandIO: @unchecked Sendable {
  /// The process environment the command sees (`CI`, `NO_COLOR`, `SOURCE_DATE_EPOCH`).
  public let environment: [String: String]
  /// The folder relative paths are resolved against.
  public let currentDirectory: String

  /// Creates an IO over the given environment and folder.
  public init(environment: [String: String], currentDirectory: String) {
    self.environment = environment
    self.currentDirectory = currentDirectory
  }

  /// Writes the command's result.
  public func out(_ text: String) {
    write(text, to: STDOUT_FILENO)
  }

  /// Writes a diagnostic. Its `error:`, `warning:` or `note:` label is coloured when
  /// `OutputSwitches.colorsLabels` says so.
  public func err(_ text: String) {
    write(usesColor ? Self.colorLabel(text) : text, to: STDERR_FILENO)
  }

  private var usesColor: Bool {
    OutputSwitches(environment: environment, isTerminal: errorIsTerminal).colorsLabels
  }

  static func colorLabel(_ text: String) -> String {
    for (label, color) in [("error:", "1;31"), ("warning:", "1;33"), ("note:", "1;36")]
    where text.hasPrefix(label) {
      return "\u{1B}[\(color)m\(label)\u{1B}[0m" + text.dropFirst(label.count)
    }
    return text
  }

  /// Whether diagnostics go to a terminal (progress lines are shown only there).
  public var errorIsTerminal: Bool {
    isatty(STDERR_FILENO) != 0
  }

  private func write(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { bytes in
      var offset = 0
      while offset < bytes.count {
        let count = System.write(
          descriptor, bytes.baseAddress?.advanced(by: offset), bytes.count - offset)
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return }
        offset += count
      }
    }
  }
}

/// A `CommandIO` that keeps everything written, for tests.
public final class CapturedIO: CommandIO, @unchecked Sendable {
  private let captured = Mutex((out: "", err: ""))

  /// Everything written to stdout.
  public var stdout: String { captured.withLock { $0.out } }
  /// Everything written to stderr.
  public var stderr: String { captured.withLock { $0.err } }

  override public func out(_ text: String) {
    captured.withLock { $0.out += text }
  }

  override public func err(_ text: String) {
    captured.withLock { $0.err += text }
  }

  override public var errorIsTerminal: Bool { false }
}
