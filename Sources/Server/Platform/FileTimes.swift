#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file's modification time from `stat`, by one name on Linux (`st_mtim`) and on Darwin
/// (`st_mtimespec`).
extension stat {
  var modificationTime: timespec {
    #if canImport(Darwin)
      st_mtimespec
    #else
      st_mtim
    #endif
  }
}
