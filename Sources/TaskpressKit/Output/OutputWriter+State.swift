#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: - Where taskpress keeps its state

extension OutputWriter {
  /// The folder that holds taskpress's state for the output folder `output` (its manifest,
  /// the record of its inputs, its lock-free staging area and the marker of a commit in
  /// progress): beside the output folder, named after it, `.site.taskpress` for `site`, so that
  /// renames between the two stay on one file system and nothing that publishes the output
  /// folder sees it. Nil for the root of the file system, which has no folder beside it.
  public static func stateFolder(ofOutput output: String) -> String? {
    try? stateLocation(ofOutput: trimmed(output)).state
  }

  /// `output` without trailing slashes (`.` for an empty path).
  static func trimmed(_ output: String) -> String {
    var trimmed = Substring(output)
    while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    return trimmed.isEmpty ? "." : String(trimmed)
  }

  /// The folder holding `output` and the state folder beside it, as paths the user would type.
  static func stateLocation(ofOutput output: String) throws(OutputError) -> (
    parent: String, state: String
  ) {
    var path = output
    var (parent, name) = OutputPath.split(path)
    if name == "." || name == ".." {
      // `.` or `..`: the folder's own name is needed, so resolve it (it exists, or it could not
      // be named so).
      guard let resolved = realpath(path, nil) else {
        throw OutputError(path: output, reason: SystemError.current.reason)
      }
      path = String(cString: resolved)
      free(resolved)
      (parent, name) = OutputPath.split(path)
    }
    guard !name.isEmpty, path != "/" else {
      throw OutputError(
        path: output,
        reason: "the root of the file system cannot be the output folder; give a folder in it")
    }
    if path.hasPrefix("/") && parent.isEmpty { parent = "/" }
    let state: String
    switch parent {
    case "": state = "." + name + ".taskpress"
    case "/": state = "/." + name + ".taskpress"
    default: state = parent + "/." + name + ".taskpress"
    }
    return (parent.isEmpty ? "." : parent, state)
  }

  /// Earlier versions kept the state in `.taskpress/` inside the output folder: it is moved to
  /// the state folder beside it (one rename), or removed when that folder exists already.
  static func adoptOldState(_ rootFD: Int32, _ displayRoot: String, _ statePath: String)
    throws(OutputError)
  {
    let old = OutputPath.stateFolder
    guard let info = FileSystem.statNoFollow(rootFD, old), info.isDirectory else { return }
    if FileSystem.statNoFollow(AT_FDCWD, statePath) != nil {
      FileSystem.removeTree(rootFD, old)
      return
    }
    guard renameat(rootFD, old, AT_FDCWD, statePath) == 0 else {
      let reason = SystemError.current.reason
      throw OutputError(
        path: displayRoot + "/" + old,
        reason: "holds the state of an earlier taskpress, which cannot be moved to '\(statePath)' "
          + "(\(reason)); move it there yourself, or delete it")
    }
  }

  /// Creates (as needed) the output folder and the state folder beside it, and opens the latter.
  func createStateFolder(_ s: inout State) throws(OutputError) {
    _ = try ensureRoot(&s)
    var info = stat()
    let parentModified = stat(stateParent, &info) == 0 ? info.modificationTime : nil
    if mkdir(statePath, 0o777) == 0 {
      s.modifiedBeforeStaging = parentModified
      s.createdStateFolder = true
    } else if errno != EEXIST {
      throw OutputError(path: statePath, reason: SystemError.current.reason)
    }
    do throws(SystemError) {
      guard let fd = try FileSystem.openDirectory(AT_FDCWD, statePath) else {
        throw SystemError(code: ENOENT)
      }
      s.stateFolderFD = fd
    } catch {
      throw OutputError(path: statePath, reason: error.reason)
    }
  }
}
