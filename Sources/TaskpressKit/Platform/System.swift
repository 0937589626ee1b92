#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// C library calls whose names a type's own methods hide, by the module that has them.
enum System {
  /// `read(2)`.
  static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
      Glibc.read(fd, buffer, count)
    #else
      Darwin.read(fd, buffer, count)
    #endif
  }

  /// `close(2)`.
  @discardableResult
  static func close(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
      Glibc.close(fd)
    #else
      Darwin.close(fd)
    #endif
  }

  /// `write(2)`.
  static func write(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
      Glibc.write(fd, bytes, count)
    #else
      Darwin.write(fd, bytes, count)
    #endif
  }

  /// The path of this program's executable, to take its identity: on Linux the kernel's link,
  /// elsewhere the path it was started by.
  static var executablePath: String {
    #if os(Linux)
      "/proc/self/exe"
    #else
      CommandLine.arguments.first ?? ""
    #endif
  }
}
