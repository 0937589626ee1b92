import TaskpressKit

/// A mistake on the command line or in `taskpress.json`: exit status 64.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong, naming the flag or key.
  public var message: String
  /// The subcommand whose usage line follows the message, if any.
  public var command: String?

  /// Creates a usage error.
  public init(_ message: String, command: String? = nil) {
    self.message = message
    self.command = command
  }

  public var description: String { message }
}

/// The closest candidate to `word` that is near enough to be a likely typo.
func closest(to word: String, in candidates: [String]) -> String? {
  Suggestion.closest(to: word, in: candidates)
}

/// The Damerau–Levenshtein (optimal string alignment) distance between two strings.
func editDistance(_ a: String, _ b: String) -> Int {
  Suggestion.editDistance(a, b)
}
