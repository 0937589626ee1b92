#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// C library calls and fields whose names differ between Linux and Darwin, or which a type's
/// own methods hide.
enum System {
  /// `write(2)`.
  static func write(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
      Glibc.write(fd, bytes, count)
    #else
      Darwin.write(fd, bytes, count)
    #endif
  }

  /// Sets the handler of `action` (a union with another name on each system).
  static func setHandler(
    _ action: inout sigaction, _ handler: @escaping @convention(c) (Int32) -> Void
  ) {
    #if canImport(Glibc)
      action.__sigaction_handler.sa_handler = handler
    #else
      action.__sigaction_u.__sa_handler = handler
    #endif
  }
}
