/// A problem in the input that the build works around, e.g. a repaired text or an unknown
/// priority. Printed as one line naming the file and the row.
public struct BuildWarning: Sendable, Equatable, CustomStringConvertible {
  /// The input file, as the user gave its path.
  public var file: String
  /// Where in the file, e.g. `todo pk=42` or `possessions id=3`.
  public var location: String?
  /// What happened: lower-case start, no trailing period, values in quotes.
  public var message: String

  public init(file: String, location: String? = nil, message: String) {
    self.file = file
    self.location = location
    self.message = message
  }

  /// `todo.sqlite: todo pk=42: priority 7 is not 1, 2 or 3`
  public var description: String {
    if let location {
      return "\(file): \(location): \(message)"
    }
    return "\(file): \(message)"
  }
}
