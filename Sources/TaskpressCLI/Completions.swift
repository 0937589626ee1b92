/// Shell completion scripts, made from the same specs as the help text: every subcommand, its
/// options (files, folders or words after those that take a value) and its arguments.
enum Completions {
  /// The shells there is a script for.
  static let shells = ["bash", "zsh", "fish"]

  /// The script for `shell`, one of `shells`.
  static func script(for shell: String) -> String? {
    switch shell {
    case "bash": bash()
    case "zsh": zsh()
    case "fish": fish()
    default: nil
    }
  }

  /// What a shell offers for an option's value or an argument.
  enum Value: Equatable {
    case none
    case files
    case folders
    case words([String])
  }

  static func value(of option: OptionSpec) -> Value {
    if !option.choices.isEmpty { return .words(option.choices) }
    switch option.valueName {
    case nil: return .none
    case "<dir>": return .folders
    case "<db>", "<file>", "<file.json>": return .files
    default: return .none
    }
  }

  static func value(of argument: ArgumentSpec) -> Value {
    if !argument.choices.isEmpty { return .words(argument.choices) }
    switch argument.name {
    case "dir", "site": return .folders
    case "template": return .files
    default: return .none
    }
  }

  /// What the first word can be: the subcommands, `help`, and the options of `taskpress` alone.
  static var topLevelWords: [String] {
    Specs.all.map(\.name) + ["help", "--help", "-h", "--version"]
  }

  private static func optionWords(_ spec: SubcommandSpec) -> [String] {
    spec.options.flatMap { option in
      ["--" + option.name] + (option.short.map { ["-\($0)"] } ?? [])
    }
  }

  // MARK: - bash

  static func bash() -> String {
    var lines = [
      "# bash completion for taskpress; load it with: source <(taskpress completions bash)",
      "_taskpress() {",
      "  local cur prev sub i",
      "  COMPREPLY=()",
      "  cur=\"${COMP_WORDS[COMP_CWORD]}\"",
      "  prev=\"${COMP_WORDS[COMP_CWORD-1]}\"",
      "  sub=\"\"",
      "  for ((i = 1; i < COMP_CWORD; i++)); do",
      "    case \"${COMP_WORDS[i]}\" in",
      "      -*) ;;",
      "      *) sub=\"${COMP_WORDS[i]}\"; break ;;",
      "    esac",
      "  done",
      "  case \"$sub\" in",
      "    \"\")",
      "      COMPREPLY=($(compgen -W \"\(topLevelWords.joined(separator: " "))\" -- \"$cur\"))",
      "      ;;",
      "    help)",
      "      COMPREPLY=($(compgen -W \"\(Specs.all.map(\.name).joined(separator: " "))\" -- \"$cur\"))",
      "      ;;",
    ]
    for spec in Specs.all {
      lines.append("    \(spec.name))")
      var byValue: [(patterns: [String], value: Value)] = []
      for option in spec.options where option.takesValue {
        let patterns = ["--" + option.name] + (option.short.map { ["-\($0)"] } ?? [])
        byValue.append((patterns, value(of: option)))
      }
      if !byValue.isEmpty {
        lines.append("      case \"$prev\" in")
        for entry in byValue {
          lines.append(
            "        \(entry.patterns.joined(separator: "|"))) \(bashReply(entry.value)) return 0 ;;"
          )
        }
        lines.append("      esac")
      }
      let options = optionWords(spec).joined(separator: " ")
      let argument = spec.arguments.first.map { value(of: $0) } ?? .none
      lines.append("      if [[ \"$cur\" == -* || -z \"$cur\" ]]; then")
      lines.append("        COMPREPLY=($(compgen -W \"\(options)\" -- \"$cur\"))")
      lines.append("      fi")
      if argument != .none {
        lines.append("      if [[ \"$cur\" != -* ]]; then")
        lines.append("        \(bashReply(argument, appending: true))")
        lines.append("      fi")
      }
      lines.append("      ;;")
    }
    lines += ["  esac", "  return 0", "}", "complete -F _taskpress taskpress", ""]
    return lines.joined(separator: "\n")
  }

  private static func bashReply(_ value: Value, appending: Bool = false) -> String {
    let assign = appending ? "COMPREPLY+=" : "COMPREPLY="
    return switch value {
    case .none: "COMPREPLY=();"
    case .files: "\(assign)($(compgen -f -- \"$cur\"));"
    case .folders: "\(assign)($(compgen -d -- \"$cur\"));"
    case .words(let words):
      "\(assign)($(compgen -W \"\(words.joined(separator: " "))\" -- \"$cur\"));"
    }
  }

  // MARK: - zsh

  static func zsh() -> String {
    var lines = [
      "#compdef taskpress",
      "# zsh completion for taskpress; save it as _taskpress in a folder of $fpath:",
      "#   taskpress completions zsh > ~/.zfunc/_taskpress",
      "_taskpress() {",
      "  local state line",
      "  local -a subcommands",
      "  subcommands=(",
    ]
    for spec in Specs.all {
      lines.append("    \(zshQuote(spec.name + ":" + zshEscape(spec.overview, colons: false)))")
    }
    lines += [
      "    'help:Show help for a subcommand.'",
      "  )",
      "  _arguments -C \\",
      "    '--version[Show the version.]' \\",
      "    '(-h --help)'{-h,--help}'[Show help information.]' \\",
      "    '1: :->subcommand' \\",
      "    '*:: :->arguments'",
      "  case $state in",
      "    subcommand)",
      "      _describe 'subcommand' subcommands",
      "      ;;",
      "    arguments)",
      "      case $line[1] in",
      "        help)",
      "          _values 'subcommand' \(Specs.all.map(\.name).joined(separator: " "))",
      "          ;;",
    ]
    for spec in Specs.all {
      lines.append("        \(spec.name))")
      var specs: [String] = []
      for option in spec.options {
        let help = "[" + zshEscape(option.help, colons: false) + "]"
        let action: String
        if option.takesValue {
          let name = (option.valueName ?? "value").trimmingBrackets
          action = ":" + zshEscape(name, colons: true) + ":" + zshAction(value(of: option))
        } else {
          action = ""
        }
        if let short = option.short {
          specs.append(
            "'(-\(short) --\(option.name))'{-\(short),--\(option.name)}\(zshQuote(help + action))")
        } else {
          specs.append(zshQuote("--\(option.name)" + help + action))
        }
      }
      for (index, argument) in spec.arguments.enumerated() {
        let optional = argument.optional ? ":" : ""
        specs.append(
          zshQuote(
            "\(index + 1):\(optional)\(zshEscape(argument.name, colons: true)):"
              + zshAction(value(of: argument))))
      }
      lines.append("          _arguments \\")
      lines += specs.enumerated().map { index, spec in
        "            " + spec + (index + 1 < specs.count ? " \\" : "")
      }
      lines.append("          ;;")
    }
    lines += ["      esac", "      ;;", "  esac", "}", "_taskpress \"$@\"", ""]
    return lines.joined(separator: "\n")
  }

  private static func zshAction(_ value: Value) -> String {
    switch value {
    case .none: " "
    case .files: "_files"
    case .folders: "_directories"
    case .words(let words): "(" + words.joined(separator: " ") + ")"
    }
  }

  /// `text` in single quotes for zsh.
  private static func zshQuote(_ text: String) -> String {
    "'" + text.replacing("'", with: "'\\''") + "'"
  }

  /// Escapes what `_arguments` reads in a description: brackets, and colons where they end a
  /// field.
  private static func zshEscape(_ text: String, colons: Bool) -> String {
    var text = text.replacing("[", with: "\\[").replacing("]", with: "\\]")
    if colons { text = text.replacing(":", with: "\\:") }
    return text
  }

  // MARK: - fish

  static func fish() -> String {
    var lines = [
      "# fish completion for taskpress; save it with:",
      "#   taskpress completions fish > ~/.config/fish/completions/taskpress.fish",
      "complete -c taskpress -f",
      "complete -c taskpress -n __fish_use_subcommand -l version -d \(fishQuote("Show the version."))",
      "complete -c taskpress -n __fish_use_subcommand -s h -l help -d \(fishQuote("Show help information."))",
      "complete -c taskpress -n __fish_use_subcommand -a help -d \(fishQuote("Show help for a subcommand."))",
    ]
    for spec in Specs.all {
      lines.append(
        "complete -c taskpress -n __fish_use_subcommand -a \(spec.name) -d \(fishQuote(spec.overview))"
      )
    }
    lines.append(
      "complete -c taskpress -n '__fish_seen_subcommand_from help' -a "
        + fishQuote(Specs.all.map(\.name).joined(separator: " ")))
    for spec in Specs.all {
      let condition = "-n '__fish_seen_subcommand_from \(spec.name)'"
      for option in spec.options {
        var line = "complete -c taskpress \(condition)"
        if let short = option.short { line += " -s \(short)" }
        line += " -l \(option.name)"
        switch value(of: option) {
        case .none: if option.takesValue { line += " -x" }
        case .files: line += " -r -F"
        case .folders: line += " -x -a '(__fish_complete_directories)'"
        case .words(let words): line += " -x -a " + fishQuote(words.joined(separator: " "))
        }
        line += " -d " + fishQuote(option.help)
        lines.append(line)
      }
      if let argument = spec.arguments.first {
        switch value(of: argument) {
        case .none: break
        case .files: lines.append("complete -c taskpress \(condition) -F")
        case .folders:
          lines.append("complete -c taskpress \(condition) -a '(__fish_complete_directories)'")
        case .words(let words):
          lines.append(
            "complete -c taskpress \(condition) -a " + fishQuote(words.joined(separator: " ")))
        }
      }
    }
    lines.append("")
    return lines.joined(separator: "\n")
  }

  /// `text` in single quotes for fish.
  private static func fishQuote(_ text: String) -> String {
    "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
  }
}

extension String {
  /// `dir` of `<dir>`.
  fileprivate var trimmingBrackets: String {
    var text = self
    if text.hasPrefix("<") { text.removeFirst() }
    if text.hasSuffix(">") { text.removeLast() }
    return text
  }
}
