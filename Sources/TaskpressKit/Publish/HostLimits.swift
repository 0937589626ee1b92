/// The limits of the common static hosts, as their documentation gave them (see
/// `Docs/publish.md` for the sources and dates), and the check of a site against them.
public struct HostLimits: Sendable, Equatable {
  /// The name `--host` takes: `cloudflare-pages`.
  public var name: String
  /// Files in one deployment (GitLab counts folders too: `countsFolders`).
  public var files: Int?
  /// Whether folders count as entries against `files`.
  public var countsFolders = false
  /// Files in one folder.
  public var filesPerFolder: Int?
  /// Bytes of one file.
  public var fileSize: Int?
  /// Bytes of the whole site.
  public var totalSize: Int?
  /// Where the figures come from.
  public var source: String

  /// The date the figures were read on.
  public static let documentedOn = "2026-12-05"

  /// The hosts `--host` knows, in the order help lists them.
  public static let all: [HostLimits] = [
    HostLimits(
      name: "github-pages", totalSize: 1_000_000_000,
      source:
        "https://docs.github.com/en/pages/getting-started-with-github-pages/github-pages-limits"
    ),
    HostLimits(
      name: "gitlab-pages", files: 200_000, countsFolders: true, totalSize: 1_000_000_000,
      source: "https://docs.gitlab.com/ee/user/gitlab_com/#gitlab-pages"),
    HostLimits(
      name: "cloudflare-pages", files: 20_000, fileSize: 25 << 20,
      source: "https://developers.cloudflare.com/pages/platform/limits/"),
    HostLimits(
      name: "cloudflare-pages-paid", files: 100_000, fileSize: 25 << 20,
      source: "https://developers.cloudflare.com/pages/platform/limits/"),
    HostLimits(
      name: "netlify", filesPerFolder: 54_000,
      source: "https://docs.netlify.com/site-deploys/overview/#files-per-directory-limit"),
  ]

  /// The names `--host` accepts.
  public static var names: [String] { all.map(\.name) }

  /// The limits of the host called `name`, or nil.
  public static func named(_ name: String) -> HostLimits? {
    all.first { $0.name == name }
  }

  /// Every limit of this host that `files` (paths and sizes) and `folders` pass, each as one
  /// sentence naming the counts, the biggest folders and the options that shrink them.
  public func problems(files: [BuiltSite.File], folders: [String]) -> [String] {
    var problems: [String] = []
    let tally = FolderTally(files)
    if let limit = self.files {
      let count = files.count + (countsFolders ? Set(folders + tally.allFolders).count : 0)
      if count > limit {
        let what = countsFolders ? "entries (files and folders)" : "files"
        problems.append(
          "the site has \(Self.number(count)) \(what), over \(name)'s limit of "
            + "\(Self.number(limit)) per site; the most are in \(tally.biggest(by: \.count))"
            + "; \(Self.fewerFiles)")
      }
    }
    if let limit = filesPerFolder {
      let crowded = tally.direct.filter { $0.value > limit }.sorted { $0.value > $1.value }
      if let (folder, count) = crowded.first {
        problems.append(
          "the folder '\(folder.isEmpty ? "." : folder)' holds \(Self.number(count)) files, over "
            + "\(name)'s limit of \(Self.number(limit)) files per folder"
            + (crowded.count > 1 ? " (and \(crowded.count - 1) more folders)" : "")
            + "; \(Self.fewerFiles)")
      }
    }
    if let limit = fileSize {
      let big = files.filter { $0.size > limit }.sorted { $0.size > $1.size }
      if let first = big.first {
        problems.append(
          "'\(first.path)' has \(Self.bytes(first.size)), over \(name)'s limit of "
            + "\(Self.bytes(limit)) per file"
            + (big.count > 1 ? " (and \(big.count - 1) more files)" : "")
            + "; smaller files: a larger --page-size splits no list, a smaller one does; "
            + "'--data none' leaves out the data copies; a photo is published at the theme's widths"
        )
      }
    }
    if let limit = totalSize {
      let total = files.reduce(0) { $0 + $1.size }
      if total > limit {
        problems.append(
          "the site holds \(Self.bytes(total)), over \(name)'s limit of \(Self.bytes(limit)); "
            + "the most is in \(tally.biggest(by: \.bytes)); \(Self.lessBytes)")
      }
    }
    return problems
  }

  static let fewerFiles =
    "fewer files: a larger --page-size (to-dos per index page) and --gallery-page-size "
    + "(possessions per page), '--data none' (no data copies), fewer photo widths in the theme's "
    + "photos.json; or publish to object storage with 'taskpress publish'"

  static let lessBytes =
    "fewer bytes: '--data none' or fewer sources in --data (the JSON and CSV copies), fewer or "
    + "smaller photo widths in the theme's photos.json, a larger --page-size; or publish to "
    + "object storage with 'taskpress publish'"

  /// `123,456`.
  static func number(_ value: Int) -> String {
    let digits = Array(String(value))
    var out = ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
      out.append(digit)
    }
    return out
  }

  /// `1.6 GB`, `25.0 MiB` for limits given in MiB.
  static func bytes(_ value: Int) -> String {
    if value % (1 << 20) == 0 && value < 1 << 30 { return "\(value >> 20) MiB" }
    let units = ["bytes", "kB", "MB", "GB", "TB"]
    var amount = Double(value)
    var unit = 0
    while amount >= 1000 && unit < units.count - 1 {
      amount /= 1000
      unit += 1
    }
    if unit == 0 { return "\(value) bytes" }
    let tenths = Int((amount * 10).rounded())
    return "\(tenths / 10).\(tenths % 10) \(units[unit])"
  }
}

/// Files and bytes per top-level folder, and files per folder.
struct FolderTally {
  struct Total {
    var count = 0
    var bytes = 0
  }

  /// By top-level folder (`""` for the files at the top).
  var top: [String: Total] = [:]
  /// Files directly in each folder.
  var direct: [String: Int] = [:]

  init(_ files: [BuiltSite.File]) {
    for file in files {
      let slash = file.path.firstIndex(of: "/")
      let first = slash.map { String(file.path[..<$0]) } ?? ""
      top[first, default: Total()].count += 1
      top[first, default: Total()].bytes += file.size
      let parent = file.path.lastIndex(of: "/").map { String(file.path[..<$0]) } ?? ""
      direct[parent, default: 0] += 1
    }
  }

  /// Every folder that holds a file, with the folders on its way.
  var allFolders: [String] {
    var folders = Set<String>()
    for folder in direct.keys where !folder.isEmpty {
      var path = Substring(folder)
      while !path.isEmpty, folders.insert(String(path)).inserted {
        guard let slash = path.lastIndex(of: "/") else { break }
        path = path[..<slash]
      }
    }
    return Array(folders)
  }

  /// The three biggest top-level folders by `measure`: `todos/ (100,000), page/ (1,000)`.
  func biggest(by measure: KeyPath<Total, Int>) -> String {
    top.sorted { a, b in
      a.value[keyPath: measure] != b.value[keyPath: measure]
        ? a.value[keyPath: measure] > b.value[keyPath: measure] : a.key < b.key
    }
    .prefix(3)
    .map { name, total in
      let value = total[keyPath: measure]
      let shown = measure == \Total.bytes ? HostLimits.bytes(value) : HostLimits.number(value)
      return (name.isEmpty ? "the top folder" : name + "/") + " (\(shown))"
    }
    .joined(separator: ", ")
  }
}
