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
///
/// The record also keeps the warnings the build found in the databases (`sourceWarnings`), so
/// that a rebuild with the same key reports them again without reading the databases; a record
/// written before they were kept has none (nil), and that rebuild reads the databases.
struct InputsRecord: Equatable {
  var key: String
  var pages: Int
  var photos: Int
  var sourceWarnings: [BuildWarning]?

  init(key: String, pages: Int, photos: Int, sourceWarnings: [BuildWarning]?) {
    self.key = key
    self.pages = pages
    self.photos = photos
    self.sourceWarnings = sourceWarnings
  }

  /// The key of the record `text`: its first line.
  static func key(of text: String) -> String {
    String(decoding: text.utf8.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
  }

  /// Parses `text`; nil when it is not a record (a record of another version, or damaged).
  init?(_ text: String) {
    // Split by bytes: a newline followed by a combining mark is one Character.
    let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
      .map { Substring($0) }
    guard lines.count >= 3, let pages = Int(lines[1]), let photos = Int(lines[2]) else {
      return nil
    }
    key = String(lines[0])
    self.pages = pages
    self.photos = photos
    sourceWarnings = nil
    // `warnings N`, then N lines of three fields, each escaped (see `escaped`).
    guard lines.count >= 4, lines[3].hasPrefix("warnings "), let count = Int(lines[3].dropFirst(9)),
      count >= 0, lines.count >= 4 + count
    else { return }
    var warnings: [BuildWarning] = []
    warnings.reserveCapacity(count)
    for line in lines[4..<(4 + count)] {
      guard let warning = Self.warning(line) else { return }
      warnings.append(warning)
    }
    sourceWarnings = warnings
  }

  /// A warning as one line of a record, without its newline: its file, location (`-` for
  /// none, else `+` and the location) and message, tab-separated, each escaped.
  static func line(_ warning: BuildWarning) -> String {
    var text = Self.escaped(warning.file) + "\t"
    text += warning.location.map { "+" + Self.escaped($0) } ?? "-"
    return text + "\t" + Self.escaped(warning.message)
  }

  /// The warning ``line(_:)`` wrote; nil when `line` is not one.
  static func warning(_ line: Substring) -> BuildWarning? {
    let fields = line.utf8.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
      .map { Substring($0) }
    guard fields.count == 3, let file = Self.unescaped(fields[0]),
      let message = Self.unescaped(fields[2])
    else { return nil }
    let location: String?
    if fields[1] == "-" {
      location = nil
    } else if fields[1].hasPrefix("+"), let text = Self.unescaped(fields[1].dropFirst()) {
      location = text
    } else {
      return nil
    }
    return BuildWarning(file: file, location: location, message: message)
  }

  var text: String {
    var text = "\(key)\n\(pages)\n\(photos)\n"
    guard let sourceWarnings else { return text }
    text += "warnings \(sourceWarnings.count)\n"
    for warning in sourceWarnings {
      text += Self.line(warning) + "\n"
    }
    return text
  }

  /// `text` with backslash, tab, newline and carriage return written as `\\`, `\t`, `\n` and
  /// `\r`: one field of one line of the record.
  static func escaped(_ text: String) -> String {
    guard
      text.unicodeScalars.contains(where: { $0 == "\\" || $0 == "\t" || $0 == "\n" || $0 == "\r" })
    else {
      return text
    }
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": result += "\\\\"
      case "\t": result += "\\t"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// The text ``escaped(_:)`` made; nil for an escape it does not make.
  static func unescaped(_ field: Substring) -> String? {
    guard field.unicodeScalars.contains("\\") else { return String(field) }
    var result = ""
    var scalars = field.unicodeScalars.makeIterator()
    while let scalar = scalars.next() {
      guard scalar == "\\" else {
        result.unicodeScalars.append(scalar)
        continue
      }
      switch scalars.next() {
      case "\\": result += "\\"
      case "t": result += "\t"
      case "n": result += "\n"
      case "r": result += "\r"
      default: return nil
      }
    }
    return result
  }
}

extension Build {
  /// The key of everything `options` build from (see ``InputsRecord``): the keyed hash, under
  /// the output folder's `key`, of `inputsDescription`.
  static func inputsKey(
    _ options: BuildOptions, theme: Theme, sourceDateEpoch: String?, key: HashKey
  ) -> String {
    key.hash(inputsDescription(options, theme: theme, sourceDateEpoch: sourceDateEpoch)).hex
  }

  /// Everything `options` build from, as bytes to hash (see ``InputsRecord``): taken before the
  /// sources are opened, hashed under the output folder's key once it is open.
  static func inputsDescription(_ options: BuildOptions, theme: Theme, sourceDateEpoch: String?)
    -> [UInt8]
  {
    var hasher = Description()
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    func add(_ text: String) {
      hasher.update(Array(text.utf8))
      hasher.update([0])
    }
    add("taskpress \(taskpressVersion)")
    add(programIdentity())
    for source in [Source.todos, .possessions, .contacts] {
      addSource(source, options, to: &hasher, now: now)
    }
    add("base-url \(options.baseURL ?? "")")
    add("locale \(options.locale.rawValue)")
    add("page-size \(options.pageSize)")
    add("board-limit \(options.boardLimit)")
    add("gallery-page-size \(options.galleryPageSize)")
    add("title \(options.title ?? "")")
    add("data \(options.dataCopies.map(\.rawValue).sorted().joined(separator: ","))")
    add("noindex \(options.noindex) csv-bom \(options.csvByteOrderMark)")
    add("search \(options.search)")
    add("pretty-urls \(options.prettyURLs)")
    add("markdown \(options.markdown.map(\.rawValue).sorted().joined(separator: ","))")
    add("max-photo-pixels \(options.maxPhotoPixels) keep-metadata \(options.keepPhotoMetadata)")
    if options.photoFormats != [.webp] {
      add("photo-formats \(options.photoFormats.map(\.rawValue).joined(separator: ","))")
    }
    add("source-date-epoch \(sourceDateEpoch ?? "")")
    add("date \(options.date ?? "")")
    for (path, file) in theme.files.sorted(by: { $0.key < $1.key }) {
      add("theme \(path)")
      hasher.update(Array("\(file.contents.count)\u{0}".utf8))
      hasher.update(file.contents)
    }
    return hasher.bytes
  }

  /// The bytes a key is the hash of, appended to as a hasher is fed.
  struct Description {
    var bytes: [UInt8] = []

    mutating func update(_ more: [UInt8]) { bytes += more }
  }

  /// The three databases, as `inputsKey` and `photosKey` name them.
  enum Source: String {
    case todos, possessions, contacts
  }

  /// Adds to `hasher` the identity of one database of `options` (see ``InputsRecord``): its
  /// path, mapping, file identity and header, and its `-wal` file's identity and bytes; a key
  /// no later build matches when it was modified within one tick of `now`.
  private static func addSource(
    _ source: Source, _ options: BuildOptions, to hasher: inout Description, now: timespec
  ) {
    func add(_ text: String) {
      hasher.update(Array(text.utf8))
      hasher.update([0])
    }
    let name = source.rawValue
    let path: String?
    let mapping: String
    switch source {
    case .todos: (path, mapping) = (options.todos, options.mapping.todos.key)
    case .possessions: (path, mapping) = (options.possessions, options.mapping.possessions.key)
    case .contacts: (path, mapping) = (options.contacts, options.mapping.contacts.key)
    }
    guard let path else {
      add("\(name) none")
      return
    }
    add("\(name) \(URL(fileURLWithPath: path).standardizedFileURL.path)")
    // Warnings name the file as it was given.
    add("given as \(path)")
    add("mapping \(mapping)")
    if source == .possessions {
      add(
        "photo-folder \(options.photoFolder.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? "")"
      )
    }
    add(fileIdentity(path) ?? "missing")
    add(fileIdentity(path + "-wal") ?? "no wal")
    add(header(of: path))
    let wal = walContents(path + "-wal")
    add("wal \(wal.count)")
    hasher.update(wal)
    if isRacy(path, now: now) || isRacy(path + "-wal", now: now) {
      add("modified just now, at \(now.tv_sec).\(now.tv_nsec)")
    }
  }

  /// The key of what decides the published photos: this program, the possessions database's
  /// identity (as in ``inputsKey(_:theme:sourceDateEpoch:)``) and the photo settings (the
  /// libvips version is in the record). A build
  /// whose key is the last one's publishes the photos that build recorded (`PhotoRecord`)
  /// without reading them. Nil without a possessions database.
  static func photosKey(_ options: BuildOptions, settings: PhotoSettings, key: HashKey) -> String? {
    guard options.possessions != nil else { return nil }
    var hasher = Description()
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    hasher.update(Array("taskpress \(taskpressVersion) photos\u{0}\(programIdentity())\u{0}".utf8))
    addSource(.possessions, options, to: &hasher, now: now)
    // Not the libvips version, which takes loading libvips: `PhotoRecord` keeps it, when a
    // photo needed libvips.
    hasher.update(Array("\(settings)".utf8))
    return key.hash(hasher.bytes).hex
  }

  /// This program's executable: its device, inode, size and modification time.
  static func programIdentity() -> String {
    fileIdentity(System.executablePath) ?? "unknown executable"
  }

  /// Device, inode, size and modification time of the file at `path` (following links).
  private static func fileIdentity(_ path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return
      "\(info.st_dev) \(info.st_ino) \(info.st_size) \(info.modificationTime.tv_sec) \(info.modificationTime.tv_nsec)"
  }

  /// A `-wal` file's bytes (`no wal` when there is none), read a megabyte at a time: hashed
  /// with the rest under the folder's key, not by a hash anyone can make collide.
  private static func walContents(_ path: String) -> [UInt8] {
    var bytes: [UInt8] = []
    if let handle = FileHandle(forReadingAtPath: path) {
      defer { try? handle.close() }
      while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
        bytes += chunk
      }
    } else {
      bytes = Array("no wal".utf8)
    }
    return bytes
  }

  /// Whether the file at `path` was modified so close to `now` that a later write within the
  /// same tick would keep its time: `FileStamp`'s racy-clean rule, on the modification time
  /// (the status change time of a database the tests set back is now, which the rule would
  /// count as racy; a checkpoint moves the modification time).
  private static func isRacy(_ path: String, now: timespec) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0 else { return false }
    return FileStamp.isRacy(FileStamp(info).modified, recordedAt: FileStamp.nanoseconds(now))
  }

  /// The first 100 bytes of a database: its header, with SQLite's file change counter.
  private static func header(of path: String) -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else { return "unreadable" }
    defer { try? handle.close() }
    let bytes = (try? handle.read(upToCount: 100)) ?? Data()
    return [UInt8](bytes).map { String($0, radix: 16) }.joined(separator: ".")
  }
}
