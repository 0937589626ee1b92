import TaskpressKit

/// The manual page, taskpress(1), in roff: made from the same specs as the help text, so the
/// two cannot disagree. `taskpress help --man` prints it; `Docs/taskpress.1` is a copy that a
/// test keeps equal to it.
enum ManPage {
  static func text() -> String {
    var lines = [
      #".TH TASKPRESS 1 "" "taskpress \#(taskpressVersion)" "User Commands""#,
      ".SH NAME",
      #"taskpress \- build a static website of task reports from SQLite databases"#,
      ".SH SYNOPSIS",
    ]
    for spec in Specs.all {
      lines += [".B taskpress \(spec.name)", escape(usageTail(spec)), ".br"]
    }
    lines += [
      ".B taskpress help", "[\\fIsubcommand\\fR] | \\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR",
      ".SH DESCRIPTION",
      escape(
        "taskpress reads SQLite databases of to-dos, possessions and contacts and writes a static"
          + " website of them: a task list, a task board, a page for every row, a photo gallery,"
          + " and JSON and CSV copies of the data. It never writes to the databases, and a build"
          + " that fails leaves the site as it was."),
      ".SH COMMANDS",
    ]
    for spec in Specs.all {
      lines += [".SS \(spec.name)", escape(spec.overview)]
      for argument in spec.arguments {
        lines += [".TP", "\\fI\(escape(argument.name))\\fR", escape(argument.help)]
      }
      for option in spec.options {
        var names = "\\fB\\-\\-\(escape(option.name))\\fR"
        if let short = option.short {
          names = "\\fB\\-\(short)\\fR, " + names
        }
        if let value = option.valueName {
          names += " \\fI\(escape(value))\\fR"
        }
        var help = option.help
        if let defaultText = option.defaultText {
          help += " (default: \(defaultText))"
        }
        lines += [".TP", names, escape(help)]
      }
    }
    lines += [
      ".SH FILES",
      ".TP",
      ".I taskpress.json",
      escape(
        "The options of taskpress build, named as its flags without the dashes; read from the"
          + " current folder, or from \(configFlag); flags win. Paths in it are relative to it."),
      ".SH EXIT STATUS",
    ]
    for (code, meaning) in [
      ("0", "Success."),
      ("1", "The build failed (bad data, template or output), or check found broken links."),
      ("64", "A usage error: an unknown subcommand or option, a bad value, a bad taskpress.json."),
      ("130", "Interrupted by SIGINT (Ctrl-C); the site was left as it was."),
      ("143", "Stopped by SIGTERM; the site was left as it was."),
    ] {
      lines += [".TP", ".B \(code)", escape(meaning)]
    }
    lines += [
      ".SH ENVIRONMENT",
      ".TP", ".B SOURCE_DATE_EPOCH",
      escape(
        "Seconds since 1970: the date put in the page footers. Without it no date reaches the site."
      ),
      ".TP", ".B NO_COLOR",
      escape("When set, diagnostics are not coloured."),
      ".SH SEE ALSO",
      escape("taskpress completions bash|zsh|fish prints a completion script for the shell."),
      "",
    ]
    return lines.joined(separator: "\n")
  }

  private static let configFlag = "--config FILE"

  /// The usage line of `spec` after `taskpress NAME`.
  private static func usageTail(_ spec: SubcommandSpec) -> String {
    let prefix = "taskpress \(spec.name)"
    let usage = Help.usage(spec)
    return usage.hasPrefix(prefix) ? String(usage.dropFirst(prefix.count + 1)) : usage
  }

  /// Text made safe for roff: backslashes and dashes escaped, a line never starting with a
  /// control character.
  static func escape(_ text: String) -> String {
    var text = text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
    if text.hasPrefix(".") || text.hasPrefix("'") { text = "\\&" + text }
    return text
  }
}
