import Testing

@testable import TaskpressCLI
@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#endif

@Suite struct SignalGuardTests {
  @Test("the signal guard turns a signal into the process flag, even one the thread blocked")
  func signalGuard() throws {
    InterruptFlag.process.reset()
    // A child inherits its parent's mask: Foundation's Process started from a worker thread
    // gives taskpress SIGINT and SIGTERM blocked. The guard must unblock what it handles.
    var blocked = sigset_t()
    var saved = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGUSR1)
    pthread_sigmask(SIG_BLOCK, &blocked, &saved)
    defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }

    let guarded = SignalGuard(signals: [SIGUSR1])
    raise(SIGUSR1)
    #expect(InterruptFlag.process.signal == SIGUSR1)
    guarded.restore()
    var mask = sigset_t()
    pthread_sigmask(SIG_SETMASK, nil, &mask)
    #expect(sigismember(&mask, SIGUSR1) == 1, "restore() puts the previous mask back")
    InterruptFlag.process.reset()
    #expect(!InterruptFlag.process.isSet)
  }
}
