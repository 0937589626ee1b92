import TaskpressKit

/// How a build's warnings are shown on stderr: gathered while it runs and printed when it ends,
/// sorted by source (in the order the sources were first warned about) and by key. Grouped (the
/// default), the first `shownPerKind` warnings of a kind are printed one by one and the rest as
/// one line with their count and first keys; with `--warnings all`, every one. `--report`
/// always lists every one.
///
/// Two warnings are of one kind when they come from the same file and table and their messages
/// differ only in numbers and quoted values (`priority 7 is not 1, 2 or 3` and `priority 0 is
/// not 1, 2 or 3`).
struct WarningPrinter {
  /// Warnings of a kind printed one by one before the rest are summed up.
  static let shownPerKind = 10
  /// Keys a summary line names before `…`.
  static let keysNamed = 5

  /// The lines (without `warning: ` and the newline) that show `warnings`.
  static func lines(_ warnings: [BuildWarning], all: Bool) -> [String] {
    let sorted = sortedWarnings(warnings)
    if all { return sorted.map { "\($0)" } }
    var lines: [String] = []
    var start = 0
    while start < sorted.count {
      var end = start
      while end < sorted.count, sorted[end].file == sorted[start].file { end += 1 }
      lines += groupedLines(sorted[start..<end])
      start = end
    }
    return lines
  }

  /// The note printed after grouped warnings when some were not shown one by one; nil when
  /// every one was.
  static func note(_ warnings: [BuildWarning], all: Bool) -> String? {
    guard !all else { return nil }
    var counts: [Kind: Int] = [:]
    for warning in warnings { counts[Kind(warning), default: 0] += 1 }
    let hidden = counts.values.reduce(0) { $0 + max(0, $1 - shownPerKind) }
    guard hidden > 0 else { return nil }
    let count = hidden == 1 ? "1 warning was" : "\(hidden) warnings were"
    return "\(count) summed up; '--warnings all' prints every one, '--report' lists them"
  }

  /// The warnings by source (first seen first), then by table, key and message.
  static func sortedWarnings(_ warnings: [BuildWarning]) -> [BuildWarning] {
    var fileOrder: [String: Int] = [:]
    for warning in warnings where fileOrder[warning.file] == nil {
      fileOrder[warning.file] = fileOrder.count
    }
    let keyed = warnings.enumerated().map { index, warning in
      (warning, fileOrder[warning.file] ?? 0, Location(warning.location), index)
    }
    return keyed.sorted { a, b in
      if a.1 != b.1 { return a.1 < b.1 }
      if a.2.table != b.2.table { return (a.2.table ?? "") < (b.2.table ?? "") }
      if a.2.key != b.2.key { return (a.2.key ?? Int64.min) < (b.2.key ?? Int64.min) }
      return a.3 < b.3
    }.map(\.0)
  }

  /// The lines of one file's sorted warnings: the first of each kind one by one, in order,
  /// then a line for the rest of each kind.
  private static func groupedLines(_ warnings: ArraySlice<BuildWarning>) -> [String] {
    var seen: [Kind: Int] = [:]
    var kinds: [Kind] = []
    var rest: [Kind: [BuildWarning]] = [:]
    var lines: [String] = []
    for warning in warnings {
      let kind = Kind(warning)
      let count = seen[kind, default: 0]
      if count == 0 { kinds.append(kind) }
      seen[kind] = count + 1
      if count < shownPerKind {
        lines.append("\(warning)")
      } else {
        rest[kind, default: []].append(warning)
      }
    }
    for kind in kinds {
      guard let more = rest[kind], let first = more.first else { continue }
      lines.append(summary(more, first))
    }
    return lines
  }

  /// `todo.sqlite: 990 more in todo: priority … is not 1, 2 or 3 (pk 21, 22, 24, 25, 27, …)`
  private static func summary(_ more: [BuildWarning], _ first: BuildWarning) -> String {
    var pieces = Kind.pieces(first.message)
    for warning in more.dropFirst() {
      let other = Kind.pieces(warning.message)
      for index in pieces.indices where index < other.count && other[index] != pieces[index] {
        pieces[index] = "…"
      }
    }
    let message = pieces.joined()
    let location = Location(first.location)
    var line = "\(first.file): \(more.count) more"
    if let table = location.table, location.key != nil {
      line += " in \(table): \(message)"
      let keys = more.prefix(keysNamed).compactMap { Location($0.location).key }.map(String.init)
      let name = location.keyName.map { $0 + " " } ?? ""
      line += " (\(name)\(keys.joined(separator: ", "))\(more.count > keysNamed ? ", …" : ""))"
    } else {
      line += " like: \(message)"
    }
    return line
  }

  /// A warning's location split into its table and key: `todo pk=42` is `todo`, `pk`, 42.
  struct Location {
    var table: String?
    var keyName: String?
    var key: Int64?

    init(_ text: String?) {
      guard let text else { return }
      guard let equals = text.lastIndex(of: "="),
        let key = Int64(text[text.index(after: equals)...])
      else {
        table = text
        return
      }
      let before = text[..<equals]
      if let space = before.lastIndex(of: " ") {
        table = String(before[..<space])
        keyName = String(before[before.index(after: space)...])
      } else {
        table = String(before)
      }
      self.key = key
    }
  }

  /// What makes warnings of one kind: the file, the table, and the message without its values.
  struct Kind: Hashable {
    var file: String
    var table: String?
    var pattern: String

    init(_ warning: BuildWarning) {
      file = warning.file
      let location = Location(warning.location)
      table = location.key == nil ? warning.location : location.table
      pattern = Self.pieces(warning.message).map { piece in
        guard let first = piece.first else { return piece }
        return first == "'" || first == "\"" ? "'?'" : first.isNumber ? "0" : piece
      }.joined()
    }

    /// `message` cut into numbers, quoted values and the text between them.
    static func pieces(_ message: String) -> [String] {
      var pieces: [String] = []
      var current = ""
      var index = message.startIndex
      while index < message.endIndex {
        let character = message[index]
        if character == "'" || character == "\"",
          let close = message[message.index(after: index)...].firstIndex(of: character)
        {
          if !current.isEmpty { pieces.append(current) }
          pieces.append(String(message[index...close]))
          current = ""
          index = message.index(after: close)
        } else if character.isASCII, character.isNumber || character == "-",
          character != "-" || message[message.index(after: index)...].first?.isNumber == true
        {
          if !current.isEmpty { pieces.append(current) }
          var end = message.index(after: index)
          while end < message.endIndex, message[end].isASCII, message[end].isNumber {
            end = message.index(after: end)
          }
          pieces.append(String(message[index..<end]))
          current = ""
          index = end
        } else {
          current.append(character)
          index = message.index(after: index)
        }
      }
      if !current.isEmpty { pieces.append(current) }
      return pieces
    }
  }
}
