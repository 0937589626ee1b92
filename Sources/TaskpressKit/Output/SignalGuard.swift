import Glibc
import Synchronization

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

/// Installs `SIGINT`/`SIGTERM` handlers that only set `InterruptFlag.process` (all a handler
/// may safely do), for as long as the guard lives; the previous handlers come back after
/// `restore()` or when the guard is released.
///
/// It also unblocks those signals in the calling thread: a process inherits its parent's signal
/// mask, and a parent that starts taskpress from a thread that blocks them (Foundation's
/// `Process` run from a Dispatch worker does) would otherwise leave it deaf to Ctrl-C and to
/// SIGTERM. The previous mask comes back with the handlers, so restore from the same thread.
///
/// The CLI keeps one for the whole build, polls the flag, and exits with `128 + signal`
/// (130 for Ctrl-C) when it is set.
public final class SignalGuard {
  private var previous: [(Int32, sigaction)] = []
  private var previousMask: sigset_t?

  /// Installs the handlers for `signals` and unblocks them in the calling thread.
  public init(signals: [Int32] = [SIGINT, SIGTERM]) {
    _ = InterruptFlag.process.isSet  // initialize the global before any handler can run
    defer { unblock(signals) }
    for number in signals {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { number in
        InterruptFlag.process.set(signal: number)
      }
      sigemptyset(&action.sa_mask)
      action.sa_flags = SA_RESTART
      var old = sigaction()
      if sigaction(number, &action, &old) == 0 { previous.append((number, old)) }
    }
  }

  private func unblock(_ signals: [Int32]) {
    var set = sigset_t()
    sigemptyset(&set)
    for number in signals { sigaddset(&set, number) }
    var old = sigset_t()
    if pthread_sigmask(SIG_UNBLOCK, &set, &old) == 0 { previousMask = old }
  }

  /// Puts the previous handlers and signal mask back (also done on release).
  public func restore() {
    if var mask = previousMask {
      previousMask = nil
      pthread_sigmask(SIG_SETMASK, &mask, nil)
    }
    for (number, old) in previous.reversed() {
      var action = old
      sigaction(number, &action, nil)
    }
    previous.removeAll()
  }

  deinit { restore() }
}
