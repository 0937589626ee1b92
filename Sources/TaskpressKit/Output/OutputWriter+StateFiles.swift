#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension OutputWriter {
  /// Writes `bytes` as the file `name` of the state folder, atomically (a temporary file, then a
  /// rename), while the folder is locked (a build that stops without a commit). Best effort:
  /// without the file the next build compares with less.
  func recordStateFile(_ name: String, _ bytes: [UInt8]) {
    let stateFD = state.withLock { $0.stateFolderFD }
    guard stateFD >= 0 else { return }
    _ = replaceStateFile(stateFD, name, bytes)
  }
}
