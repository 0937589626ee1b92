import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A flag that says "stop": set by a signal handler (see `SignalGuard`) or by code, polled by
/// the build.
///
/// `OutputWriter` polls it in `add` and at the start of `commit`: before the commit, an
/// interrupt abandons the build and leaves the output folder unchanged; once the commit has
/// started, it is only noticed when the commit has finished, so the folder is never left half
/// written because of Ctrl-C.
public final class InterruptFlag: Sendable {
  /// The flag the handlers installed by `SignalGuard` set.
  public static let process = InterruptFlag()

  /// The signal number received, or 0; a signal handler may only store into an atomic.
  private let received = Atomic<Int32>(0)

  /// Creates a flag that is not set (tests use their own; the CLI uses `process`).
  public init() {}

  /// Whether an interrupt was requested.
  public var isSet: Bool { received.load(ordering: .acquiring) != 0 }

  /// The signal that set the flag (e.g. `SIGINT`), or nil; `set()` without a signal gives
  /// `SIGINT`.
  public var signal: Int32? {
    let value = received.load(ordering: .acquiring)
    return value == 0 ? nil : value
  }

  /// Requests an interrupt, as `signal` would.
  public func set(signal: Int32 = SIGINT) {
    received.store(signal, ordering: .releasing)
  }

  /// Clears the flag.
  public func reset() {
    received.store(0, ordering: .releasing)
  }
}
