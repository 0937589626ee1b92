/// Why a site cannot be published, or its record of a destination not kept.
public struct PublishError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file or folder concerned, as the user would type it.
  public var path: String
  /// What is wrong and what to do, lower-case.
  public var reason: String

  public init(path: String, reason: String) {
    self.path = path
    self.reason = reason
  }

  public var description: String { "\(path): \(reason)" }
}
