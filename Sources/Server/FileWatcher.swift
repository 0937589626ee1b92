#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Watches files and folders for changes: with inotify on the folders that hold them (so that a
/// file replaced by a rename, as vim and `sed -i` save, is seen), or by polling their `stat`.
///
/// A watched file is named by its path; its folder is watched and events for other names in it
/// are ignored. A watched folder is watched with all its subfolders (new ones included). An
/// event counts only when the file's identity (inode, size, modification time) changed: SQLite
/// opens a `-wal` file for writing even to read, and closing it is an event that changes nothing.
public final class FileWatcher {
  /// How changes are found.
  public enum Mode: Sendable, Equatable {
    /// inotify on the folders (Linux; elsewhere `inotify_init1` fails and it polls).
    case inotify
    /// `stat` of every watched file every `interval` milliseconds.
    case poll(intervalMilliseconds: Int32)
  }

  /// Names in a watched folder that never count as a change (SQLite's shared-memory file
  /// changes on every read).
  public static func isIgnored(_ name: String) -> Bool {
    name.hasSuffix("-shm")
  }

  private let files: Set<String>
  private let folders: [String]
  /// The mode in use (inotify falls back to polling when it cannot start).
  public private(set) var mode: Mode
  private var inotify: Int32 = -1
  private var watches: [Int32: String] = [:]
  private var snapshot: [String: String] = [:]

  /// Watches `files` (paths of files, which need not exist yet) and `folders` (recursively).
  public init(files: [String], folders: [String], mode: Mode = .inotify) {
    self.files = Set(files.map(Self.absolute))
    self.folders = folders.map(Self.absolute)
    self.mode = mode
    if mode == .inotify {
      inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
      if inotify < 0 {
        self.mode = .poll(intervalMilliseconds: 500)
      } else {
        for folder in Set(self.files.map(Self.parent)) { addWatch(folder, recursive: false) }
        for folder in self.folders { addWatch(folder, recursive: true) }
      }
    }
    snapshot = takeSnapshot()
  }

  deinit {
    if inotify >= 0 { close(inotify) }
  }

  /// Waits up to `milliseconds` for a change; the paths that changed (empty when none did).
  public func wait(milliseconds: Int32) -> [String] {
    switch mode {
    case .inotify:
      return readEvents(milliseconds: milliseconds)
    case .poll(let interval):
      var waited: Int32 = 0
      while waited < milliseconds {
        let step = min(interval, milliseconds - waited)
        usleep(useconds_t(step) * 1000)
        waited += step
        let now = takeSnapshot()
        if now != snapshot {
          let changed = Set(now.keys).union(snapshot.keys).filter { now[$0] != snapshot[$0] }
          snapshot = now
          return changed.sorted()
        }
      }
      return []
    }
  }

  // MARK: - inotify

  private func addWatch(_ folder: String, recursive: Bool) {
    let mask = UInt32(
      IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE
        | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
    let watch = inotify_add_watch(inotify, folder, mask)
    guard watch >= 0 else { return }
    watches[watch] = folder
    guard recursive else { return }
    for name in Self.subfolders(of: folder) { addWatch(folder + "/" + name, recursive: true) }
  }

  private func readEvents(milliseconds: Int32) -> [String] {
    var entry = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, milliseconds) > 0 else { return [] }
    var changed: Set<String> = []
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      var offset = 0
      let header = MemoryLayout<inotify_event>.size
      while offset + header <= count {
        let (watch, mask, length) = buffer.withUnsafeBytes { raw in
          let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
          return (event.wd, event.mask, Int(event.len))
        }
        let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)]
        let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
        offset += header + length
        guard let folder = watches[watch],
          let path = relevant(folder: folder, name: name, mask: mask)
        else { continue }
        let identity = Self.identity(path)
        if snapshot[path] != identity || Self.isFolder(path) {
          snapshot[path] = identity
          changed.insert(path)
        }
      }
    }
    return changed.sorted()
  }

  private func relevant(folder: String, name: String, mask: UInt32) -> String? {
    let path = name.isEmpty ? folder : folder + "/" + name
    if mask & UInt32(IN_ISDIR) != 0, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0,
      folders.contains(where: { path.hasPrefix($0 + "/") })
    {
      addWatch(path, recursive: true)
      return path
    }
    if name.isEmpty || Self.isIgnored(name) { return nil }
    if files.contains(path) || files.contains(where: { path == $0 + "-wal" }) { return path }
    if folders.contains(where: { path.hasPrefix($0 + "/") }) { return path }
    return nil
  }

  // MARK: - Polling

  private func takeSnapshot() -> [String: String] {
    var result: [String: String] = [:]
    for file in files {
      result[file] = Self.identity(file)
      result[file + "-wal"] = Self.identity(file + "-wal")
    }
    for folder in folders { addTree(folder, to: &result) }
    return result
  }

  private func addTree(_ folder: String, to result: inout [String: String]) {
    guard let directory = opendir(folder) else { return }
    defer { closedir(directory) }
    while let entry = readdir(directory) {
      let name = Self.name(of: entry)
      if name == "." || name == ".." || Self.isIgnored(name) { continue }
      let path = folder + "/" + name
      result[path] = Self.identity(path)
      if Self.isFolder(path) { addTree(path, to: &result) }
    }
  }

  private static func identity(_ path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    let modified = info.modificationTime
    return "\(info.st_ino) \(info.st_size) \(modified.tv_sec).\(modified.tv_nsec)"
  }

  // MARK: - Paths

  private static func isFolder(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  private static func subfolders(of folder: String) -> [String] {
    guard let directory = opendir(folder) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = Self.name(of: entry)
      if name != ".", name != "..", isFolder(folder + "/" + name) { names.append(name) }
    }
    return names
  }

  /// The name of a `readdir` record, read where it is: a record is only as long as its name,
  /// so copying the whole `dirent` (`entry.pointee`) can read past the end of readdir's buffer.
  private static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
    // 19 is glibc's offset of `d_name`, should the layout not say.
    let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19
    return String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
  }

  private static func parent(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  static func absolute(_ path: String) -> String {
    if path.hasPrefix("/") { return path }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return path }
    let directory = String(
      decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var trimmed = Substring(path)
    while trimmed.hasPrefix("./") { trimmed = trimmed.dropFirst(2) }
    return directory + "/" + trimmed
  }
}
