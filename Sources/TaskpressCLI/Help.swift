/// Help text in swift-argument-parser's layout.
enum Help {
  static let column = 26
  static let width = 80

  static func root() -> String {
    var lines = [
      "OVERVIEW: Build a static website of task reports from SQLite databases.",
      "",
      "USAGE: taskpress <subcommand>",
      "",
      "OPTIONS:",
      row("--version", "Show the version."),
      row("-h, --help", "Show help information."),
      "",
      "SUBCOMMANDS:",
    ]
    for spec in Specs.all {
      lines.append(row(spec.name, spec.overview))
    }
    lines += [
      "", "  See 'taskpress help <subcommand>' for detailed help,",
      "  'taskpress help --man' for the manual page.", "",
    ]
    return lines.joined(separator: "\n")
  }

  static func subcommand(_ spec: SubcommandSpec) -> String {
    let usageLines = wrap(usage(spec), width: width - 7).joined(separator: "\n       ")
    var lines = ["OVERVIEW: \(spec.overview)", "", "USAGE: \(usageLines)", ""]
    if !spec.arguments.isEmpty {
      lines.append("ARGUMENTS:")
      for argument in spec.arguments {
        lines.append(row("<\(argument.name)>", argument.help))
      }
      lines.append("")
    }
    lines.append("OPTIONS:")
    for option in spec.options {
      var names = "--\(option.name)"
      if let short = option.short {
        names = "-\(short), " + names
      }
      if let value = option.valueName {
        names += " \(value)"
      }
      var help = option.help
      if let defaultText = option.defaultText {
        help += " (default: \(defaultText))"
      }
      lines.append(row(names, help))
    }
    lines.append("")
    return lines.joined(separator: "\n")
  }

  /// The one-line usage, e.g. `taskpress render <template> [--data <file.json>] ...`.
  static func usage(_ spec: SubcommandSpec) -> String {
    var parts = ["taskpress", spec.name]
    for argument in spec.arguments {
      parts.append(argument.optional ? "[<\(argument.name)>]" : "<\(argument.name)>")
    }
    for option in spec.options where option.name != "help" {
      if let value = option.valueName {
        parts.append("[--\(option.name) \(value)]")
      } else {
        parts.append("[--\(option.name)]")
      }
    }
    return parts.joined(separator: " ")
  }

  private static func row(_ left: String, _ right: String) -> String {
    let label = "  " + left
    let indent = String(repeating: " ", count: column)
    let body = wrap(right, width: width - column).joined(separator: "\n" + indent)
    if label.count >= column {
      return label + "\n" + indent + body
    }
    return label + String(repeating: " ", count: column - label.count) + body
  }

  /// Splits `text` into lines of at most `width` characters at spaces.
  static func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
      if !line.isEmpty, line.count + 1 + word.count > width {
        lines.append(line)
        line = ""
      }
      line += line.isEmpty ? String(word) : " " + word
    }
    if !line.isEmpty { lines.append(line) }
    return lines
  }
}
