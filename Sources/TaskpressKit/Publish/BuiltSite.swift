#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The files the last build of an output folder wrote, as its manifest records them (path,
/// content hash, size): what `taskpress publish` uploads.
///
/// Opening it takes a shared lock on the output folder, so no build writes the folder while it
/// is published (a build takes the lock exclusively); `close()` (or releasing it) lets go.
public final class BuiltSite: @unchecked Sendable {
  // `@unchecked`: every stored property is set in `init` and only read afterwards, but the
  // descriptor, which `close()` sets to -1 once.

  /// One file of the site.
  public struct File: Sendable, Equatable {
    public var path: String
    public var hash: KeyedHash
    public var size: Int

    public init(path: String, hash: KeyedHash, size: Int) {
      self.path = path
      self.hash = hash
      self.size = size
    }
  }

  /// The output folder as given.
  public let output: String
  /// Its state folder (`.site.taskpress` beside `site`).
  public let statePath: String
  /// The files, in byte order of their paths.
  public let files: [File]
  /// The folders the build created, in byte order.
  public let folders: [String]
  private var rootFD: Int32

  /// The site the last build wrote to `output`, checked to be as it left it: every file of the
  /// manifest is still there, a regular file, with its recorded size and modification time.
  /// How the output folder is locked while the site is read and published.
  public enum Locking: Sendable {
    /// Not at all (the build that just wrote it checks it).
    case none
    /// Shared; a build writing the folder is an error (`PublishError.isBusy`).
    case shared
    /// Shared, once the build writing the folder has finished.
    case sharedWaiting
  }

  public init(output: String, locking: Locking = .shared) throws(PublishError) {
    self.output = output
    let state: String
    do {
      state = try OutputWriter.stateLocation(ofOutput: OutputWriter.trimmed(output)).state
    } catch {
      throw PublishError(path: error.path, reason: error.reason)
    }
    statePath = state
    let root = open(output, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard root >= 0 else {
      let reason =
        errno == ENOENT
        ? "no such folder; build the site first ('taskpress build --output \(output)')"
        : SystemError.current.reason
      throw PublishError(path: output, reason: reason)
    }
    if locking != .none {
      var locked: Int32
      repeat {
        locked = flock(root, LOCK_SH | (locking == .shared ? LOCK_NB : 0))
      } while locked != 0 && errno == EINTR
      guard locked == 0 else {
        let busy = errno == EWOULDBLOCK
        let reason = SystemError.current.reason
        System.close(root)
        var error = PublishError(
          path: output,
          reason: busy
            ? "a taskpress build is writing to this folder; publish once it has finished"
            : reason)
        error.isBusy = busy
        throw error
      }
    }
    rootFD = root
    do throws(PublishError) {
      let manifest = try Self.readManifest(state, output: output)
      var files: [File] = []
      files.reserveCapacity(manifest.files.count)
      let paths = manifest.files.paths
      for index in OutputPath.byteOrder(paths.count, { paths[$0] }) {
        let entry = manifest.files.entry(index)
        files.append(File(path: paths[index], hash: entry.hash, size: entry.size))
        guard let info = FileSystem.statNoFollow(root, paths[index]),
          info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) == entry.size,
          info.modificationNanoseconds == entry.modified
        else {
          throw PublishError(
            path: output + "/" + paths[index],
            reason: "is not as the last build wrote it (changed, replaced or removed since);"
              + " run 'taskpress build' again, then publish")
        }
      }
      self.files = files
      folders = OutputPath.sorted(manifest.folders)
    } catch {
      System.close(root)
      throw error
    }
  }

  deinit { close() }

  /// Lets go of the lock on the output folder.
  public func close() {
    if rootFD >= 0 {
      System.close(rootFD)
      rootFD = -1
    }
  }

  /// How many bytes the files hold in all.
  public var totalSize: Int { files.reduce(0) { $0 + $1.size } }

  private static func readManifest(_ state: String, output: String) throws(PublishError)
    -> Manifest
  {
    let stateFD = open(state, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard stateFD >= 0 else {
      throw PublishError(
        path: output,
        reason: "was not built by taskpress (no state folder '\(state)' beside it);"
          + " build it first ('taskpress build --output \(output)')")
    }
    defer { System.close(stateFD) }
    if FileSystem.statNoFollow(stateFD, OutputWriter.markerName) != nil {
      throw PublishError(
        path: output,
        reason: "its last build was interrupted while writing; run 'taskpress build' again,"
          + " then publish")
    }
    let fd = openat(stateFD, OutputWriter.manifestName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      throw PublishError(
        path: output,
        reason: "has no record of a build ('\(state)/\(OutputWriter.manifestName)' is missing);"
          + " build it first ('taskpress build --output \(output)')")
    }
    defer { System.close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0,
      let bytes = try? FileSystem.readAll(fd, expected: Int(info.st_size)),
      let manifest = Manifest(parsing: bytes)
    else {
      throw PublishError(
        path: state + "/" + OutputWriter.manifestName,
        reason: "cannot be read or is damaged; run 'taskpress build' again, then publish")
    }
    return manifest
  }
}
