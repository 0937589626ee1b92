import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Publishing a rebuild that changes most of the site as a new folder: the commit puts this
/// build's files in a new folder beside the staged ones (the changed files renamed there, the
/// others hard-linked), exchanges it with the output folder in one step (`renameat2` with
/// `RENAME_EXCHANGE`; `renameatx_np` with `RENAME_SWAP` on Darwin), and moves the old folder
/// into the state folder's `trash/`, freed by a process the build does not wait for (started
/// again by the next build if it finds the trash, since a remover racing a build of 100,000
/// files kept in the way of its read phase for 18 s), and freed by a build that exchanges
/// folders before it makes the new one. Replacing each file with a rename over the old one frees every old
/// file inside the build; a new folder frees them afterwards.
public enum FolderSwap {
  /// When a commit may exchange folders (`BuildOptions.folderSwap`; `TASKPRESS_SWAP` for the
  /// CLI). The plain path is `never`: every file replaced in place.
  public enum Mode: String, Sendable, CaseIterable {
    /// When most of the previous files change (`shouldSwap`) and the folder allows it.
    case auto
    /// Every file replaced in place (the plain path).
    case never
    /// Whenever the folder allows it, however few files change (tests).
    case always
  }

  /// The name of the folder, in the state folder, that holds the old sites being freed.
  static let trashFolder = "trash"
  /// The name, in the staging folder, of the new site before the exchange.
  static let nextFolder = "next"

  /// Whether a commit that writes `rewritten` files and removes `removed` of the `previous`
  /// files of the last build replaces most of them: more than half.
  public static func shouldSwap(previous: Int, rewritten: Int, removed: Int) -> Bool {
    previous > 0 && (rewritten + removed) * 2 > previous
  }

  /// Exchanges `from` (in folder `fromFD`) and `to` (in `toFD`) in one step: 0, or the error
  /// number (`ENOSYS` where the system has no such call).
  static func exchange(_ fromFD: Int32, _ from: String, _ toFD: Int32, _ to: String) -> Int32 {
    #if os(Linux)
      guard let call = renameat2 else { return ENOSYS }
      // RENAME_EXCHANGE (linux/fs.h).
      return call(fromFD, from, toFD, to, 2) == 0 ? 0 : errno
    #elseif canImport(Darwin)
      return renameatx_np(fromFD, from, toFD, to, UInt32(RENAME_SWAP)) == 0 ? 0 : errno
    #else
      return ENOSYS
    #endif
  }

  #if os(Linux)
    private typealias RenameAt2 =
      @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    /// glibc's `renameat2` (2.28 and later), which Swift's Glibc module does not declare.
    private static let renameat2: RenameAt2? = {
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else {
        return nil
      }
      return unsafeBitCast(symbol, to: RenameAt2.self)
    }()
  #endif

  /// Whether this file system exchanges folders: two empty folders made in `folderFD`
  /// exchanged, then removed.
  static func exchangeWorks(in folderFD: Int32) -> Bool {
    let first = "swap-probe-a"
    let second = "swap-probe-b"
    defer {
      unlinkat(folderFD, first, AT_REMOVEDIR)
      unlinkat(folderFD, second, AT_REMOVEDIR)
    }
    guard mkdirat(folderFD, first, 0o700) == 0, mkdirat(folderFD, second, 0o700) == 0 else {
      return false
    }
    return exchange(folderFD, first, folderFD, second) == 0
  }

  /// Whether the folder `rootFD` holds only what the last build wrote: every entry, folder
  /// after folder, is a file of `previous` (a regular file) or one of its folders (a folder).
  /// A file or folder taskpress did not write (a `CNAME`, `.git/`, a link) would be lost in
  /// the exchange: then the commit replaces file by file.
  static func holdsOnlySiteFiles(_ rootFD: Int32, previous: Manifest) -> Bool {
    var pending: [(fd: Int32, path: String)] = []
    guard let first = reopen(rootFD) else { return false }
    pending.append((first, ""))
    var clean = true
    while let (fd, folder) = pending.popLast() {
      defer { close(fd) }
      guard clean, let entries = list(fd) else {
        clean = false
        continue
      }
      for (name, type) in entries {
        let path = folder.isEmpty ? name : folder + "/" + name
        var kind = type
        if kind == Int(DT_UNKNOWN) {
          guard let info = FileSystem.statNoFollow(fd, name) else { return false }
          kind = Int(info.isDirectory ? DT_DIR : info.isRegularFile ? DT_REG : DT_LNK)
        }
        if kind == Int(DT_REG), previous.files[path] != nil { continue }
        if kind == Int(DT_DIR), previous.folders.contains(path),
          let child = try? FileSystem.openDirectory(fd, name)
        {
          pending.append((child, path))
          continue
        }
        clean = false
        break
      }
    }
    return clean
  }

  private static func reopen(_ fd: Int32) -> Int32? {
    let copy = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    return copy >= 0 ? copy : nil
  }

  /// The names in folder `fd` with their `d_type`, but `.` and `..`; nil when it cannot be read.
  private static func list(_ fd: Int32) -> [(String, Int)]? {
    guard let copy = reopen(fd), let dir = fdopendir(copy) else { return nil }
    defer { closedir(dir) }
    let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19
    let typeOffset = MemoryLayout<dirent>.offset(of: \dirent.d_type) ?? 18
    var entries: [(String, Int)] = []
    while let entry = readdir(dir) {
      let raw = UnsafeRawPointer(entry)
      let name = String(cString: (raw + nameOffset).assumingMemoryBound(to: CChar.self))
      if name == "." || name == ".." { continue }
      entries.append((name, Int(raw.load(fromByteOffset: typeOffset, as: UInt8.self))))
    }
    return entries
  }

  /// Removes what is in the state folder's `trash/` (`statePath` as the user would type it)
  /// outside the build's wall time: by `rm -rf` in a process of its own, which goes on after
  /// taskpress exits (a thread would end with the process and leave the whole old site to the
  /// next build), or, where `rm` cannot be started, on a thread nobody waits for. Whatever is
  /// left when the next build starts, it starts removing again, in the same way; a build that
  /// exchanges folders removes it first (`freeTrash(inStateFolder:)`).
  static func freeTrashInBackground(_ statePath: String) {
    let trash = statePath + "/" + trashFolder
    let remover = Process()
    remover.executableURL = URL(filePath: "/bin/rm")
    remover.arguments = ["-rf", "--", trash]
    remover.standardInput = FileHandle.nullDevice
    remover.standardOutput = FileHandle.nullDevice
    remover.standardError = FileHandle.nullDevice
    if (try? remover.run()) != nil { return }
    DispatchQueue.global(qos: .utility).async {
      FileSystem.removeTree(AT_FDCWD, trash)
    }
  }

  /// Removes the state folder's `trash/`: the old sites an earlier build exchanged and whose
  /// remover has not finished. Called under the folder's lock by a build that exchanges folders,
  /// before it makes the new one: no more than two copies of the site are ever on the disk.
  static func freeTrash(inStateFolder folderFD: Int32) {
    FileSystem.removeTree(folderFD, trashFolder)
  }
}
