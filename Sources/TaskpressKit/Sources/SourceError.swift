import SQLite

/// A source database that cannot be read: missing, not a database, locked, or without the
/// table or columns taskpress needs.
public struct SourceError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The input file, as the user gave its path.
  public var file: String
  /// What is wrong: lower-case start, no trailing period, names in quotes.
  public var message: String
  /// The SQLite error behind this one, if any.
  public var underlying: SQLiteError?

  public init(file: String, message: String, underlying: SQLiteError? = nil) {
    self.file = file
    self.message = message
    self.underlying = underlying
  }

  /// Wraps an error from the SQLite layer, keeping its message.
  public init(_ error: SQLiteError) {
    self.init(file: error.file, message: error.detail, underlying: error)
  }

  /// `todo.sqlite: table 'todo' has no column 'priority' (found: pk, text, complete)`
  public var description: String { "\(file): \(message)" }
}

// MARK: - Schema errors

extension SourceError {
  static func noTable(file: String, table: String, found: [String]) -> SourceError {
    let list = found.isEmpty ? "the file has no tables" : "found: " + found.joined(separator: ", ")
    var message = "no table '\(table)' (\(list))"
    if let suggestion = closestName(to: table, in: found) {
      message += "; did you mean '\(suggestion)'?"
    }
    return SourceError(file: file, message: message)
  }

  /// The name in `names` closest to `name` (in any case), when it is close enough to be a slip:
  /// at most a third of its letters apart, and at least one letter in common.
  static func closestName(to name: String, in names: [String]) -> String? {
    let word = Array(name.lowercased().utf8)
    var best: (name: String, distance: Int)?
    for candidate in names {
      let distance = editDistance(word, Array(candidate.lowercased().utf8))
      if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
    }
    guard let best, best.distance <= max(1, best.name.utf8.count / 3) else { return nil }
    return best.name
  }

  /// The Levenshtein distance between two byte strings.
  private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
    var previous = Array(0...b.count)
    for i in 1...max(1, a.count) where !a.isEmpty {
      var current = [i] + [Int](repeating: 0, count: b.count)
      for j in stride(from: 1, through: b.count, by: 1) {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      }
      previous = current
    }
    return a.isEmpty ? b.count : previous[b.count]
  }

  static func missingColumns(
    file: String, table: String, missing: [String], found: [String]
  ) -> SourceError {
    let names = missing.map { "'\($0)'" }
    let what =
      names.count == 1
      ? "column \(names[0])"
      : "columns \(names.dropLast().joined(separator: ", ")) and \(names[names.count - 1])"
    let list = found.joined(separator: ", ")
    return SourceError(file: file, message: "table '\(table)' has no \(what) (found: \(list))")
  }

  static func closed(file: String) -> SourceError {
    SourceError(file: file, message: "the source was closed before it was read")
  }
}
