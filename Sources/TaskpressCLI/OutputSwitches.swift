/// What the environment says about how diagnostics are shown, in one place.
///
/// - `CI` set to anything but empty, `0` or `false`: plain lines (no progress line, no colour),
///   whatever the terminal.
/// - stderr not a terminal, or `TERM=dumb`: the same.
/// - `NO_COLOR` set and not empty (https://no-color.org): no colour; the progress line stays.
///
/// `--quiet` is separate: it prints errors only, whatever these say.
struct OutputSwitches: Equatable {
  /// Whether the progress line is drawn while pages render.
  var showsProgress: Bool
  /// Whether the labels `error:`, `warning:` and `note:` are coloured.
  var colorsLabels: Bool

  init(environment: [String: String], isTerminal: Bool) {
    let ci = environment["CI"].map { !["", "0", "false"].contains($0.lowercased()) } ?? false
    let interactive = isTerminal && !ci && environment["TERM"] != "dumb"
    showsProgress = interactive
    colorsLabels = interactive && (environment["NO_COLOR"] ?? "").isEmpty
  }
}
