#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The socket calls whose names `Socket`'s own methods hide, by the module that has them, and
/// how a send is kept from raising SIGPIPE when the peer is gone.
enum System {
  static func listen(_ fd: Int32, _ backlog: Int32) -> Int32 {
    #if canImport(Glibc)
      Glibc.listen(fd, backlog)
    #else
      Darwin.listen(fd, backlog)
    #endif
  }

  static func accept(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
      Glibc.accept(fd, nil, nil)
    #else
      Darwin.accept(fd, nil, nil)
    #endif
  }

  static func send(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
      Glibc.send(fd, bytes, count, flags)
    #else
      Darwin.send(fd, bytes, count, flags)
    #endif
  }

  /// The flag of a send that must not raise SIGPIPE: `MSG_NOSIGNAL` on Linux; Darwin has none
  /// (`noSignalOnWrite` sets the socket's `SO_NOSIGPIPE` instead).
  static var noSignal: Int32 {
    #if canImport(Glibc)
      Int32(MSG_NOSIGNAL)
    #else
      0
    #endif
  }

  /// Darwin: no SIGPIPE from writes to the socket `fd` (`SO_NOSIGPIPE`); nothing elsewhere.
  static func noSignalOnWrite(_ fd: Int32) {
    #if canImport(Darwin)
      var on: Int32 = 1
      setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    #endif
  }
}
