#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file's times from `stat`, by one name on Linux (`st_mtim`, `st_ctim`, `st_atim`) and on
/// Darwin (`st_mtimespec`, ...). The rest of the module reads them only through these.
extension stat {
  /// The last change of the file's bytes.
  var modificationTime: timespec {
    #if canImport(Darwin)
      st_mtimespec
    #else
      st_mtim
    #endif
  }

  /// The last change of the file's bytes or status (links, permissions, times); no program can
  /// set it.
  var statusChangeTime: timespec {
    #if canImport(Darwin)
      st_ctimespec
    #else
      st_ctim
    #endif
  }
}
