import TaskpressKit

#if canImport(Glibc)
  import Glibc
#endif

/// The command-line interface of taskpress.
public enum TaskpressCLI {
  /// Runs taskpress with `arguments` (without the program name) and returns the exit status.
  public static func main(arguments: [String]) -> Int32 {
    0
  }
}
