import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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
final class SignalGuard {
  private var previous: [(Int32, sigaction)] = []
  private var previousMask: sigset_t?

  /// Installs the handlers for `signals` and unblocks them in the calling thread.
  init(signals: [Int32] = [SIGINT, SIGTERM]) {
    _ = InterruptFlag.process.isSet  // initialize the global before any handler can run
    defer { unblock(signals) }
    for number in signals {
      var action = sigaction()
      System.setHandler(&action) { number in
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
  func restore() {
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
