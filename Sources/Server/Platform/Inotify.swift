// swift-format-ignore-file: AlwaysUseLowerCamelCase, TypeNamesShouldBeCapitalized
#if !os(Linux)
  // inotify is Linux's: elsewhere `inotify_init1` fails, and `FileWatcher` polls instead. These
  // stand-ins let it compile; none but `inotify_init1` is ever called.

  let IN_CLOEXEC: Int32 = 0
  let IN_NONBLOCK: Int32 = 0
  let IN_CLOSE_WRITE: Int32 = 0
  let IN_MODIFY: Int32 = 0
  let IN_MOVED_TO: Int32 = 0
  let IN_MOVED_FROM: Int32 = 0
  let IN_CREATE: Int32 = 0
  let IN_DELETE: Int32 = 0
  let IN_ATTRIB: Int32 = 0
  let IN_DELETE_SELF: Int32 = 0
  let IN_MOVE_SELF: Int32 = 0
  let IN_ISDIR: Int32 = 0

  struct inotify_event {
    var wd: Int32 = 0
    var mask: UInt32 = 0
    var cookie: UInt32 = 0
    var len: UInt32 = 0
  }

  func inotify_init1(_ flags: Int32) -> Int32 { -1 }

  func inotify_add_watch(_ fd: Int32, _ path: String, _ mask: UInt32) -> Int32 { -1 }
#endif
