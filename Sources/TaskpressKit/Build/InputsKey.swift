import Foundation

/// What a build was made from, recorded in the output folder so that a rebuild with nothing
/// changed can stop before rendering.
///
/// The key names everything that decides the output's bytes: this program (version, size and
/// modification time of the executable), every option that reaches a page, the theme's files,
/// `SOURCE_DATE_EPOCH`, and each database file's identity (device, inode, size, modification
/// time, and its header, whose change counter SQLite bumps on every commit in rollback mode),
/// with the bytes of its `-wal` file: in WAL mode a commit writes only there, and one after the
/// log was reset overwrites it in place, keeping its size (and, within one tick of the file
/// system's clock, its time). A change to any of them makes a full build.
///
/// Times alone cannot tell a file written within one tick of the clock that stamps it from one
/// written before (git's "racy clean" problem): a database whose file or log was modified less
/// than one tick before the key is taken gives a key no later build matches.
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
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
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
      switch name {
      case "todos": add("mapping \(options.mapping.todos.key)")
      case "possessions": add("mapping \(options.mapping.possessions.key)")
      default: add("mapping \(options.mapping.contacts.key)")
      }
      add(fileIdentity(path) ?? "missing")
      add(fileIdentity(path + "-wal") ?? "no wal")
      add(header(of: path))
      hasher.update(walContents(path + "-wal"))
      if isRacy(path, now: now) || isRacy(path + "-wal", now: now) {
        add("modified just now, at \(now.tv_sec).\(now.tv_nsec)")
      }
    }
    add("base-url \(options.baseURL ?? "")")
    add("locale \(options.locale.rawValue)")
    add("page-size \(options.pageSize)")
    add("board-limit \(options.boardLimit)")
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

  /// The hash of a `-wal` file's bytes (of nothing when there is none), read a megabyte at a time.
  private static func walContents(_ path: String) -> [UInt8] {
    var hasher = ContentHasher()
    if let handle = FileHandle(forReadingAtPath: path) {
      defer { try? handle.close() }
      while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
        chunk.withUnsafeBytes { hasher.update($0) }
      }
    } else {
      hasher.update(Array("no wal".utf8))
    }
    return Array(hasher.finalize().hex.utf8)
  }

  /// How far apart two file times must be to tell their order: one tick of the clock that
  /// stamps files (the kernel's coarse clock on Linux, 4 ms here; 10 ms assumed elsewhere). A
  /// file stamped later than one tick before the key was taken may be written again within the
  /// same tick.
  static let timestampGranularity: Int64 = {
    #if os(Linux)
      var resolution = timespec()
      if clock_getres(CLOCK_REALTIME_COARSE, &resolution) == 0 {
        let nanoseconds = Int64(resolution.tv_sec) * 1_000_000_000 + Int64(resolution.tv_nsec)
        return max(1_000_000, nanoseconds)
      }
    #endif
    return 10_000_000
  }()

  /// Whether the file at `path` was modified so close to `now` that a later write within the
  /// same tick would keep its time.
  private static func isRacy(_ path: String, now: timespec) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0 else { return false }
    let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    let current = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    return modified > current - timestampGranularity
  }

  /// The first 100 bytes of a database: its header, with SQLite's file change counter.
  private static func header(of path: String) -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else { return "unreadable" }
    defer { try? handle.close() }
    let bytes = (try? handle.read(upToCount: 100)) ?? Data()
    return ContentHash.hex(of: [UInt8](bytes))
  }
}
