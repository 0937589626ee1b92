import Foundation

/// What a build was made from, recorded in the output folder so that a rebuild with nothing
/// changed can stop before rendering.
///
/// The key names everything that decides the output's bytes: this program (version, size and
/// modification time of the executable), every option that reaches a page, the theme's files,
/// `SOURCE_DATE_EPOCH`, and each database file's identity (device, inode, size, modification
/// time, those of its `-wal` file, and its header, whose change counter SQLite bumps on every
/// write). A change to any of them makes a full build.
struct InputsRecord: Equatable {
  var key: String
  var pages: Int
  var photos: Int

  init(key: String, pages: Int, photos: Int) {
    self.key = key
    self.pages = pages
    self.photos = photos
  }

  init?(_ text: String) {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.count >= 3, let pages = Int(lines[1]), let photos = Int(lines[2]) else {
      return nil
    }
    key = String(lines[0])
    self.pages = pages
    self.photos = photos
  }

  var text: String { "\(key)\n\(pages)\n\(photos)\n" }
}

extension Build {
  /// The key of everything `options` build from; see ``InputsRecord``.
  static func inputsKey(_ options: BuildOptions, theme: Theme, sourceDateEpoch: String?) -> String {
    var hasher = ContentHasher()
    func add(_ text: String) {
      hasher.update(Array(text.utf8))
      hasher.update([0])
    }
    add("taskpress \(taskpressVersion)")
    add(fileIdentity("/proc/self/exe") ?? "unknown executable")
    for (name, path) in [
      ("todos", options.todos), ("possessions", options.possessions),
      ("contacts", options.contacts),
    ] {
      guard let path else {
        add("\(name) none")
        continue
      }
      add("\(name) \(URL(fileURLWithPath: path).standardizedFileURL.path)")
      add(fileIdentity(path) ?? "missing")
      add(fileIdentity(path + "-wal") ?? "no wal")
      add(header(of: path))
    }
    add("base-url \(options.baseURL ?? "")")
    add("locale \(options.locale.rawValue)")
    add("page-size \(options.pageSize)")
    add("title \(options.title ?? "")")
    add("data \(options.dataCopies.map(\.rawValue).sorted().joined(separator: ","))")
    add("noindex \(options.noindex) csv-bom \(options.csvByteOrderMark)")
    add("pretty-urls \(options.prettyURLs)")
    add("source-date-epoch \(sourceDateEpoch ?? "")")
    for (path, file) in theme.files.sorted(by: { $0.key < $1.key }) {
      add("theme \(path)")
      hasher.update(file.contents)
    }
    return hasher.finalize().hex
  }

  /// Device, inode, size and modification time of the file at `path` (following links).
  private static func fileIdentity(_ path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return
      "\(info.st_dev) \(info.st_ino) \(info.st_size) \(info.st_mtim.tv_sec) \(info.st_mtim.tv_nsec)"
  }

  /// The first 100 bytes of a database: its header, with SQLite's file change counter.
  private static func header(of path: String) -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else { return "unreadable" }
    defer { try? handle.close() }
    let bytes = (try? handle.read(upToCount: 100)) ?? Data()
    return ContentHash.hex(of: [UInt8](bytes))
  }
}
