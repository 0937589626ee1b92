#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension OutputWriter {
  /// Writes `bytes` as the file `name` of the state folder, atomically (a temporary file, then a
  /// rename). Best effort, after the commit: without the file the next build compares with
  /// less.
  func recordStateFile(_ name: String, _ bytes: [UInt8]) {
    let stateFD = open(statePath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard stateFD >= 0 else { return }
    defer { close(stateFD) }
    let temporary = name + ".tmp"
    do {
      try Self.writeFile(bytes, stateFD, temporary, statePath)
      renameat(stateFD, temporary, stateFD, name)
    } catch {
      unlinkat(stateFD, temporary, 0)
    }
  }

  /// Removes the file `name` of the state folder, when it is there.
  func removeStateFile(_ name: String) {
    let stateFD = open(statePath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard stateFD >= 0 else { return }
    defer { close(stateFD) }
    unlinkat(stateFD, name, 0)
  }
}
