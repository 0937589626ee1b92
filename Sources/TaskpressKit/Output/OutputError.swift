/// An error of the output layer: a file or folder of the output and what went wrong with it.
///
/// `path` is the output folder as the user gave it joined with the relative path of the file,
/// e.g. `site/todos/3.html`, so the message can be printed as is:
/// `site/todos/3.html: no space left on device`.
public struct OutputError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file or folder concerned, as the user would type it.
  public var path: String
  /// What went wrong, lower-case, without a trailing period.
  public var reason: String

  /// Creates an error about `path`.
  public init(path: String, reason: String) {
    self.path = path
    self.reason = reason
  }

  public var description: String { "\(path): \(reason)" }
}

extension OutputError {
  static let notWrittenByUs = "exists and was not written by taskpress; move it away or delete it"
  static let symbolicLink = "is a symbolic link; taskpress does not write through links"
  static let interrupted = "interrupted; the output folder was left unchanged"
}
