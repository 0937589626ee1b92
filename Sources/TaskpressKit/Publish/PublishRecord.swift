#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What `taskpress publish` put at one destination: each file's path, content hash and size, as
/// the site's manifest gave them when the file was uploaded.
///
/// Kept in the output's state folder, `published/` and the hash of the destination's name (one
/// file per destination), in the manifest's text form. Written after each phase of a publish
/// that succeeded, so a publish stopped half-way is finished by the next one; read as empty
/// when missing or damaged (the next publish then lists the destination).
public struct PublishRecord: Sendable, Equatable {
  /// The files, by path.
  public var files: [String: BuiltSite.File] = [:]

  public init() {}

  static let folderName = "published"

  /// The entry of a file found at the destination whose bytes are not known to be the site's
  /// (a listing without hashes, or with other ones): a size no file has, so that the plan
  /// replaces it and never takes it for unchanged.
  public static func unknown(_ path: String) -> BuiltSite.File {
    BuiltSite.File(path: path, hash: .zero, size: Int(Int64.max))
  }

  /// The record's file name for `destination`, in the state folder's `published/`.
  public static func fileName(for destination: String) -> String {
    ContentHash(of: Array(destination.utf8)).hex
  }

  /// The record of `destination` in `statePath`, nil when there is none (or it is damaged).
  public static func read(statePath: String, destination: String) -> PublishRecord? {
    let path = statePath + "/" + folderName + "/" + fileName(for: destination)
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0,
      let bytes = try? FileSystem.readAll(fd, expected: Int(info.st_size)),
      let manifest = Manifest(parsing: bytes)
    else { return nil }
    var record = PublishRecord()
    record.files.reserveCapacity(manifest.files.count)
    for index in manifest.files.indices {
      let path = manifest.files.path(index)
      let entry = manifest.files.entry(index)
      record.files[path] = BuiltSite.File(path: path, hash: entry.hash, size: entry.size)
    }
    return record
  }

  /// Writes the record of `destination` into `statePath`, atomically (a temporary file, synced,
  /// then renamed).
  public func write(statePath: String, destination: String) throws(PublishError) {
    let folder = statePath + "/" + Self.folderName
    if mkdir(folder, 0o777) != 0 && errno != EEXIST {
      throw PublishError(path: folder, reason: SystemError.current.reason)
    }
    let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard folderFD >= 0 else {
      throw PublishError(path: folder, reason: SystemError.current.reason)
    }
    defer { close(folderFD) }
    let name = Self.fileName(for: destination)
    let sorted = OutputPath.sorted(files.keys).compactMap { path in
      files[path].map {
        (path: path, entry: Manifest.Entry(hash: $0.hash, size: $0.size, modified: 0))
      }
    }
    let bytes = Manifest.text(files: sorted, folders: [])
    do {
      try OutputWriter.writeFile(bytes, folderFD, name + ".tmp", folder)
    } catch {
      throw PublishError(path: error.path, reason: error.reason)
    }
    guard renameat(folderFD, name + ".tmp", folderFD, name) == 0 else {
      let reason = SystemError.current.reason
      unlinkat(folderFD, name + ".tmp", 0)
      throw PublishError(path: folder + "/" + name, reason: reason)
    }
  }

  /// Forgets the record of `destination` (`--full`: the destination is listed again).
  public static func remove(statePath: String, destination: String) {
    unlink(statePath + "/" + folderName + "/" + fileName(for: destination))
  }
}
