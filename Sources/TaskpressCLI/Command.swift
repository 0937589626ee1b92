/// The options and arguments given to one subcommand, as typed.
struct ParsedArguments: Sendable, Equatable {
  /// Options with a value, by long name; a repeated option keeps its last value.
  var values: [String: String] = [:]
  /// Switches that were given, by long name.
  var switches: Set<String> = []
  /// Positional arguments in order.
  var positionals: [String] = []
  /// Every value of each option with a value, in order (`--rclone-flag` is given many times).
  var repeated: [String: [String]] = [:]
}

/// What the command line asks for.
enum Command: Equatable {
  case help(subcommand: String?)
  case version
  case build(ParsedArguments)
  case initTheme(directory: String)
  case render(template: String, data: String?, partials: String?)
  case check(site: String)
  case completions(shell: String)
  /// `taskpress help --man`: the manual page.
  case manPage
  case serve(ParsedArguments)
  case publish(ParsedArguments)

  /// Parses the arguments after the program name.
  ///
  /// A pure function: reads no file, so every usage error can be tested in-process.
  static func parse(_ arguments: [String]) throws(UsageError) -> Command {
    guard let first = arguments.first else { return .help(subcommand: nil) }
    switch first {
    case "-h", "--help":
      return .help(subcommand: nil)
    case "--version":
      return .version
    case "help":
      guard arguments.count <= 2 else {
        throw UsageError("'help' takes at most one subcommand")
      }
      if arguments.count == 2 {
        let topic = arguments[1]
        if topic == "--man" { return .manPage }
        guard Specs.subcommand(named: topic) != nil else {
          throw unknownSubcommand(topic)
        }
        return .help(subcommand: topic)
      }
      return .help(subcommand: nil)
    default:
      break
    }
    if first.hasPrefix("-") {
      throw UsageError("unknown option '\(first)'" + topLevelHint(first))
    }
    guard let spec = Specs.subcommand(named: first) else {
      throw unknownSubcommand(first)
    }
    let parsed = try parseArguments(Array(arguments.dropFirst()), for: spec)
    if parsed.switches.contains("help") {
      return .help(subcommand: spec.name)
    }
    let maximum = spec.arguments.count
    let minimum = spec.arguments.filter { !$0.optional }.count
    if parsed.positionals.count > maximum {
      let extra = parsed.positionals[maximum]
      throw UsageError("unexpected argument '\(extra)'", command: spec.name)
    }
    if parsed.positionals.count < minimum {
      let missing = spec.arguments[parsed.positionals.count].name
      throw UsageError("missing argument <\(missing)>", command: spec.name)
    }
    switch spec.name {
    case "build":
      return .build(parsed)
    case "serve":
      return .serve(parsed)
    case "publish":
      return .publish(parsed)
    case "init":
      return .initTheme(directory: parsed.positionals.first ?? ".")
    case "render":
      return .render(
        template: parsed.positionals[0], data: parsed.values["data"],
        partials: parsed.values["partials"])
    case "completions":
      let shell = parsed.positionals[0]
      guard Completions.shells.contains(shell) else {
        var message = "unknown shell '\(shell)'"
        if let suggestion = closest(to: shell, in: Completions.shells) {
          message += "; did you mean '\(suggestion)'?"
        } else {
          message +=
            "; the shells are " + Completions.shells.map { "'\($0)'" }.joined(separator: ", ")
        }
        throw UsageError(message, command: spec.name)
      }
      return .completions(shell: shell)
    default:
      return .check(site: parsed.positionals.first ?? "site")
    }
  }

  /// What to say of an option given before any subcommand; it names only commands and
  /// options that exist.
  static func topLevelHint(_ option: String) -> String {
    let known = ["--help", "--version"]
    if let suggestion = closest(to: option, in: known) {
      return "; did you mean '\(suggestion)'?"
    }
    // `-v` for `--version`.
    if option.count == 2, let letter = option.last,
      let long = known.first(where: { $0.dropFirst(2).first == letter })
    {
      return "; did you mean '\(long)'?"
    }
    let name = option.drop { $0 == "-" }.split(separator: "=", maxSplits: 1).first.map(String.init)
    for spec in Specs.all {
      let found =
        option.hasPrefix("--")
        ? spec.option(named: name ?? "")
        : option.count == 2 ? option.last.flatMap(spec.option(short:)) : nil
      if let found, found.name != "help" {
        return "; options come after the subcommand, e.g. 'taskpress \(spec.name) --\(found.name)'"
      }
    }
    for spec in Specs.all {
      let names = spec.options.filter { $0.name != "help" }.map { "--" + $0.name }
      if let suggestion = closest(to: option, in: names) {
        return "; did you mean 'taskpress \(spec.name) \(suggestion)'?"
      }
    }
    return "; a subcommand comes first: see 'taskpress --help'"
  }

  private static func unknownSubcommand(_ name: String) -> UsageError {
    var message = "unknown subcommand '\(name)'"
    if let suggestion = closest(to: name, in: Specs.all.map(\.name)) {
      message += "; did you mean '\(suggestion)'?"
    } else {
      message += "; the subcommands are " + Specs.all.map { "'\($0.name)'" }.joined(separator: ", ")
    }
    return UsageError(message)
  }

  /// Splits `--opt value`, `--opt=value`, `-o value`, switches and positionals; `--` ends options.
  static func parseArguments(
    _ arguments: [String], for spec: SubcommandSpec
  ) throws(UsageError) -> ParsedArguments {
    var parsed = ParsedArguments()
    var index = 0
    var optionsEnded = false
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
        parsed.positionals.append(argument)
        continue
      }
      if argument == "--" {
        optionsEnded = true
        continue
      }
      let option: OptionSpec
      var inlineValue: String?
      if argument.hasPrefix("--") {
        let body = argument.dropFirst(2)
        let name: Substring
        if let equals = body.firstIndex(of: "=") {
          name = body[..<equals]
          inlineValue = String(body[body.index(after: equals)...])
        } else {
          name = body
        }
        guard let found = spec.option(named: String(name)) else {
          throw unknownOption("--" + name, spec: spec)
        }
        option = found
      } else {
        let letters = Array(argument.dropFirst())
        guard letters.count == 1, let found = spec.option(short: letters[0]) else {
          throw unknownOption(argument, spec: spec)
        }
        option = found
      }
      let display = "--" + option.name
      if option.takesValue {
        if let inlineValue {
          parsed.values[option.name] = inlineValue
          parsed.repeated[option.name, default: []].append(inlineValue)
        } else if index < arguments.count, !looksLikeOption(arguments[index], spec: spec) {
          parsed.values[option.name] = arguments[index]
          parsed.repeated[option.name, default: []].append(arguments[index])
          index += 1
        } else {
          throw UsageError(
            "missing value for '\(display)' (expected \(option.valueName ?? "a value"))",
            command: spec.name)
        }
      } else {
        if let inlineValue {
          throw UsageError(
            "'\(display)' is a switch and takes no value (got '\(inlineValue)')",
            command: spec.name)
        }
        parsed.switches.insert(option.name)
      }
    }
    return parsed
  }

  /// A following argument is taken as a value unless it is one of this subcommand's options.
  private static func looksLikeOption(_ argument: String, spec: SubcommandSpec) -> Bool {
    if argument == "--" { return true }
    if argument.hasPrefix("--") {
      let name = argument.dropFirst(2).split(separator: "=", maxSplits: 1).first ?? ""
      return spec.option(named: String(name)) != nil
    }
    if argument.count == 2, argument.hasPrefix("-"), let letter = argument.last {
      return spec.option(short: letter) != nil
    }
    return false
  }

  private static func unknownOption(_ option: String, spec: SubcommandSpec) -> UsageError {
    var message = "unknown option '\(option)'"
    let names = spec.options.map { "--" + $0.name }
    if let suggestion = closest(to: option, in: names) {
      message += "; did you mean '\(suggestion)'?"
    }
    return UsageError(message, command: spec.name)
  }
}
