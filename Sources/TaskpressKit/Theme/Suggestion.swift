/// "Did you mean ...?": the closest of a few known names to a mistyped one.
public enum Suggestion {
  /// The closest candidate to `word` that is near enough to be a likely typo: at most two
  /// edits away, or a third of the candidate's length for a long one.
  public static func closest(to word: String, in candidates: [String]) -> String? {
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
      let distance = editDistance(word, candidate)
      if distance < (best?.distance ?? Int.max) {
        best = (candidate, distance)
      }
    }
    guard let best else { return nil }
    let limit = max(2, best.candidate.count / 3)
    return best.distance <= limit ? best.candidate : nil
  }

  /// The Damerau–Levenshtein (optimal string alignment) distance between two strings.
  public static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.utf8)
    let b = Array(b.utf8)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previousPrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          value = min(value, previousPrevious[j - 2] + 1)
        }
        current[j] = value
      }
      (previousPrevious, previous, current) = (previous, current, previousPrevious)
    }
    return previous[b.count]
  }
}
