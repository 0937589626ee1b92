import TaskpressKit

/// An option a subcommand accepts.
struct OptionSpec: Sendable {
  /// The long name without dashes, e.g. `output`; also its key in `taskpress.json`.
  var name: String
  /// A one-letter alias, e.g. `o` for `-o`.
  var short: Character?
  /// The placeholder of the value (`<dir>`), or `nil` for a switch.
  var valueName: String?
  /// One line of help.
  var help: String
  /// Shown as `(default: ...)`.
  var defaultText: String?
  /// Values a shell offers to complete the option's value with.
  var choices: [String] = []

  var takesValue: Bool { valueName != nil }
}

/// A positional argument a subcommand accepts.
struct ArgumentSpec: Sendable {
  var name: String
  var optional: Bool
  var help: String
  /// Values a shell offers to complete the argument with.
  var choices: [String] = []
}

/// A subcommand: its name, what it does, its arguments and options.
struct SubcommandSpec: Sendable {
  var name: String
  var overview: String
  var arguments: [ArgumentSpec]
  var options: [OptionSpec]

  func option(named name: String) -> OptionSpec? {
    options.first { $0.name == name }
  }

  func option(short: Character) -> OptionSpec? {
    options.first { $0.short == short }
  }
}

// MARK: - The subcommands

enum Specs {
  static let build = SubcommandSpec(
    name: "build",
    overview: "Build the website from the databases.",
    arguments: [],
    options: [
      OptionSpec(
        name: "config", valueName: "<file>",
        help: "Read options from this JSON file; flags win.",
        defaultText: "taskpress.json when present"),
      OptionSpec(name: "todos", valueName: "<db>", help: "SQLite database with a 'todo' table."),
      OptionSpec(
        name: "possessions", valueName: "<db>",
        help: "SQLite database with a 'possessions' table."),
      OptionSpec(
        name: "photo-folder", valueName: "<dir>",
        help: "Folder that photos stored as paths are relative to.",
        defaultText: "the possessions database's folder"),
      OptionSpec(
        name: "contacts", valueName: "<db>", help: "SQLite database with a 'contacts' table."),
      OptionSpec(
        name: "templates", valueName: "<dir>",
        help: "Templates that override the built-in theme, file by file."),
      OptionSpec(
        name: "output", short: "o", valueName: "<dir>", help: "Folder to write the site to.",
        defaultText: "site"),
      OptionSpec(
        name: "base-url", valueName: "<url>",
        help: "Absolute URL of the published site; adds canonical links and sitemap.xml."),
      OptionSpec(
        name: "locale", valueName: "<tag>",
        help: "Language of the labels: en, ja, or a locale of the templates' labels.json.",
        defaultText: "en", choices: ["en", "ja"]),
      OptionSpec(
        name: "page-size", valueName: "<n>", help: "To-dos per index page; 0 for one page.",
        defaultText: "100"),
      OptionSpec(
        name: "gallery-page-size", valueName: "<n>",
        help: "Possessions per page of the possession list; 0 for one page.", defaultText: "18"),
      OptionSpec(
        name: "board-limit", valueName: "<n>",
        help: "Cards a board column shows; the rest are on the status's list.",
        defaultText: "50"),
      OptionSpec(
        name: "pretty-urls", help: "Write todos/3/index.html and link to todos/3/."),
      OptionSpec(
        name: "jobs", short: "j", valueName: "<n>", help: "Pages rendered at once.",
        defaultText: "the number of cores"),
      OptionSpec(name: "strict", help: "Treat every warning as an error."),
      OptionSpec(name: "quiet", short: "q", help: "Print errors only."),
      OptionSpec(
        name: "warnings", valueName: "<how>",
        help: "grouped: the first ten of each kind, then one line for the rest; all: every one.",
        defaultText: "grouped", choices: ["grouped", "all"]),
      OptionSpec(
        name: "report", valueName: "<file.json>", help: "Write the build summary as JSON."),
      OptionSpec(
        name: "title", valueName: "<text>", help: "The site's title.",
        defaultText: "the label siteTitle"),
      OptionSpec(
        name: "data", valueName: "<list>",
        help: "Sources whose JSON/CSV copies are published: todos, possessions, contacts, none.",
        defaultText: "todos,possessions"),
      OptionSpec(
        name: "markdown", valueName: "<fields>",
        help: "Fields rendered as inline Markdown: todos.text, possessions.description.",
        defaultText: "none"),
      OptionSpec(name: "noindex", help: "Ask search engines not to index the site."),
      OptionSpec(name: "csv-bom", help: "Start CSV copies with a UTF-8 byte order mark (Excel)."),
      OptionSpec(
        name: "search", valueName: "<what>",
        help: "all: a search field on every page and its index in search/; none: neither.",
        defaultText: "all", choices: ["all", "none"]),
      OptionSpec(
        name: "previous", valueName: "<dir>",
        help: "A copy of the last published site to list the changes since.",
        defaultText: "the site in --output"),
      OptionSpec(
        name: "date", valueName: "<date>",
        help: "The build's date, for overdue marks and the record of changes (ISO 8601).",
        defaultText: "SOURCE_DATE_EPOCH, else now"),
      OptionSpec(
        name: "history-limit", valueName: "<n>", help: "Builds the history of changes keeps.",
        defaultText: "100"),
      OptionSpec(
        name: "max-photo-pixels", valueName: "<n>",
        help: "Photos with more pixels are not decoded (a warning).", defaultText: "200000000"),
      OptionSpec(
        name: "keep-photo-metadata",
        help: "Publish photos' EXIF/XMP/IPTC metadata (GPS position, camera) as stored."),
      OptionSpec(
        name: "photo-formats", valueName: "<list>",
        help: "Photos' rendition formats: webp, or webp,avif (AVIF beside WebP).",
        defaultText: "webp", choices: ["webp", "webp,avif"]),
      OptionSpec(
        name: "photo-cache", valueName: "<dir>",
        help: "Keep photos' renditions in this folder across builds and checkouts."),
      OptionSpec(
        name: "photo-cache-size", valueName: "<size>",
        help: "The most the photo cache holds (bytes, or K, M, G); oldest dropped first.",
        defaultText: "1G"),
      OptionSpec(
        name: "query-timeout", valueName: "<seconds>",
        help: "How long a source's \"query\" may run before the build stops.",
        defaultText: "30"),
      hostOption,
      help,
    ])

  static let hostOption = OptionSpec(
    name: "host", valueName: "<name>",
    help: "Warn when the site passes this static host's limits (files, file size, total size).",
    choices: HostLimits.names)

  static let publish = SubcommandSpec(
    name: "publish",
    overview: "Upload what the last build changed to an rclone destination, in a safe order.",
    arguments: [
      ArgumentSpec(
        name: "destination", optional: true,
        help:
          "An rclone remote and path, e.g. s3:bucket/site. (default: \"publish\" in taskpress.json)"
      )
    ],
    options: [
      OptionSpec(
        name: "config", valueName: "<file>",
        help: "Read output, host and the publish object from this JSON file; flags win.",
        defaultText: "taskpress.json when present"),
      OptionSpec(
        name: "output", short: "o", valueName: "<dir>", help: "The built site to publish.",
        defaultText: "site"),
      OptionSpec(name: "dry-run", help: "Print the plan (steps, files, bytes); upload nothing."),
      OptionSpec(
        name: "full",
        help: "Forget what was published there: list the destination and compare by hash."),
      hostOption,
      OptionSpec(
        name: "strict", help: "Fail, uploading nothing, when the site passes --host's limits."),
      OptionSpec(name: "quiet", short: "q", help: "Print errors only."),
      OptionSpec(
        name: "report", valueName: "<file.json>",
        help: "Write what was uploaded and deleted as JSON."),
      OptionSpec(
        name: "rclone-flag", valueName: "<flag>",
        help: "Pass a flag to rclone (repeatable), e.g. --rclone-flag=--transfers=16."),
      help,
    ])

  static let initTheme = SubcommandSpec(
    name: "init",
    overview: "Write the default theme and a taskpress.json to customize.",
    arguments: [
      ArgumentSpec(name: "dir", optional: true, help: "Folder to write into. (default: .)")
    ],
    options: [help])

  static let render = SubcommandSpec(
    name: "render",
    overview: "Render one Mustache template to stdout.",
    arguments: [
      ArgumentSpec(
        name: "template", optional: false,
        help: "The template; its extension (.html, .md) chooses the escaping.")
    ],
    options: [
      OptionSpec(name: "data", valueName: "<file.json>", help: "The data to render with."),
      OptionSpec(
        name: "partials", valueName: "<dir>", help: "Folder of partials.",
        defaultText: "the template's folder"),
      help,
    ])

  static let check = SubcommandSpec(
    name: "check",
    overview: "Verify a built site: every internal link and image resolves to a file.",
    arguments: [
      ArgumentSpec(name: "site", optional: true, help: "The site folder. (default: site)")
    ],
    options: [help])

  static let completions = SubcommandSpec(
    name: "completions",
    overview: "Print a completion script for a shell.",
    arguments: [
      ArgumentSpec(
        name: "shell", optional: false, help: "bash, zsh or fish.", choices: Completions.shells)
    ],
    options: [help])

  static let serve = SubcommandSpec(
    name: "serve",
    overview: "Build, serve on 127.0.0.1, rebuild and reload the open pages on every change.",
    arguments: [],
    options: build.options.filter { $0.name != "help" && $0.name != "host" } + [
      OptionSpec(
        name: "port", short: "p", valueName: "<n>", help: "Port to listen on; 0 picks a free one.",
        defaultText: "8000"),
      OptionSpec(
        name: "host", valueName: "<addr>",
        help: "Address to listen on; 0.0.0.0 shares the preview on the network.",
        defaultText: "127.0.0.1"),
      OptionSpec(
        name: "poll", help: "Find changes by polling, for file systems without inotify."),
      help,
    ])

  static let help = OptionSpec(name: "help", short: "h", help: "Show help information.")

  static let all = [build, publish, initTheme, render, check, serve, completions]

  static func subcommand(named name: String) -> SubcommandSpec? {
    all.first { $0.name == name }
  }
}
