import CTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

// MARK: - The taskpress binary

/// The `taskpress` executable SwiftPM built beside the test bundle.
enum TaskpressBinary {
  static let path: String? = {
    var candidates: [URL] = []
    // `swift build` and `swift test` put the executable in the same folder as the test bundle
    // (`.build/<triple>/debug/taskpress` next to `taskpressPackageTests.xctest`); the test
    // target depends on the executable, so `swift test` builds it.
    if let bundle = Bundle.main.executableURL {
      candidates.append(bundle.deletingLastPathComponent().appending(path: "taskpress"))
    }
    let package = URL(filePath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(package.appending(path: ".build/debug/taskpress"))
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }?.path
  }()

  /// The path, or a failed requirement that says how to get the binary.
  static func require() throws -> String {
    try #require(
      path,
      "the taskpress executable was not found beside the test bundle; run 'swift build' first")
  }
}

/// A program running as a child process, started with `posix_spawn` (never `fork` in this
/// multithreaded process), its stdout and stderr read through pipes, or its stderr through a
/// pseudo-terminal.
///
/// The child starts with every signal at its default action and none blocked (unless
/// `blocking` says otherwise), whatever the test runner's threads have set.
final class ChildTaskpress: @unchecked Sendable {
  // `@unchecked`: `output` is behind a mutex and `readersOpen` behind `outputArrived`; `pid` and
  // the descriptors are only used from the test's thread (the readers only touch their own
  // descriptor).

  struct Result {
    /// The exit status, or the signal's number when `killed` is set.
    var status: Int32
    /// Whether the process was ended by a signal it did not handle.
    var killed: Bool
    var stdout: String
    var stderr: String
    /// The child's peak resident memory, in kilobytes (`ru_maxrss` from `wait4`).
    var peakKilobytes: Int
  }

  let pid: pid_t
  private let output = Mutex((out: [UInt8](), err: [UInt8]()))
  /// Signalled whenever output arrives or a reader ends; guards `readersOpen`.
  private let outputArrived = NSCondition()
  private var readersOpen = 2
  private let readersDone = DispatchGroup()
  /// Readable (at end of file) once the child has exited: it holds the only write end.
  private let exitFD: Int32
  private var finished: Result?

  /// Starts `taskpress arguments` in `directory`; see the other initializer.
  convenience init(
    _ arguments: [String], in directory: String, environment: [String: String?] = [:],
    terminal: Bool = false, blocking: [Int32] = []
  ) throws {
    try self.init(
      executable: try TaskpressBinary.require(), arguments: arguments, in: directory,
      environment: environment, terminal: terminal, blocking: blocking)
  }

  /// Starts `executable arguments` in `directory`.
  ///
  /// - Parameters:
  ///   - executable: the program's path.
  ///   - arguments: its arguments, without its name.
  ///   - directory: the folder it starts in.
  ///   - environment: added to this process's environment (without `SOURCE_DATE_EPOCH`); a
  ///     nil value removes the variable.
  ///   - terminal: stderr is a pseudo-terminal instead of a pipe.
  ///   - blocking: signals the child starts with blocked.
  /// - Throws: `POSIXError` when the pipes, the terminal or the process cannot be made.
  init(
    executable: String, arguments: [String], in directory: String,
    environment: [String: String?] = [:], terminal: Bool = false, blocking: [Int32] = []
  ) throws {
    var variables = ProcessInfo.processInfo.environment
    variables["SOURCE_DATE_EPOCH"] = nil
    for (name, value) in environment { variables[name] = value }

    let out = try Self.pipe()
    let exit = try Self.pipe()
    let err = try terminal ? Self.pseudoTerminal() : Self.pipe()
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, out.write, 1)
    posix_spawn_file_actions_adddup2(&actions, err.write, 2)
    posix_spawn_file_actions_adddup2(&actions, exit.write, 3)
    taskpress_spawn_addchdir(&actions, directory)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigfillset(&defaults)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var mask = sigset_t()
    sigemptyset(&mask)
    for number in blocking { sigaddset(&mask, number) }
    posix_spawnattr_setsigmask(&attributes, &mask)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv + envp { free(pointer) }
    }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    for fd in [out.write, err.write, exit.write] { close(fd) }
    guard spawned == 0 else {
      for fd in [out.read, err.read, exit.read] { close(fd) }
      throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL)
    }
    self.pid = pid
    exitFD = exit.read
    drain(out.read, isError: false)
    drain(err.read, isError: true)
  }

  /// A pipe whose ends are closed in every child but the one they are given to.
  private static func pipe() throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    guard taskpress_pipe_cloexec(&fds) == 0 else { throw POSIXError(.EMFILE) }
    return (fds[0], fds[1])
  }

  /// A pseudo-terminal in raw mode (no `\r` added): the master to read, the slave to give.
  private static func pseudoTerminal() throws -> (read: Int32, write: Int32) {
    var master: Int32 = -1
    var slave: Int32 = -1
    guard taskpress_open_pty(&master, &slave) == 0 else { throw POSIXError(.ENOTTY) }
    return (master, slave)
  }

  /// Reads `fd` to its end (a pseudo-terminal's master reports EIO once the child is gone),
  /// adding what it reads to `output` as it comes (see `waitForOutput`).
  private func drain(_ fd: Int32, isError: Bool) {
    readersDone.enter()
    let thread = Thread { [self] in
      var buffer = [UInt8](repeating: 0, count: 65536)
      while true {
        let count = read(fd, &buffer, buffer.count)
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }
        // Kept as it comes, for `waitForOutput`.
        outputArrived.lock()
        output.withLock { output in
          if isError { output.err += buffer[..<count] } else { output.out += buffer[..<count] }
        }
        outputArrived.broadcast()
        outputArrived.unlock()
      }
      close(fd)
      outputArrived.lock()
      readersOpen -= 1
      outputArrived.broadcast()
      outputArrived.unlock()
      readersDone.leave()
    }
    thread.start()
  }

  /// Blocks until the child's stdout (or stderr, with `stderr`) contains `text`, or both its
  /// outputs are closed (it exited), with no time limit. True when the text came.
  func waitForOutput(_ text: String, stderr: Bool = false) -> Bool {
    waitForOutput(until: { out, err in (stderr ? err : out).contains(text) })
  }

  /// Blocks, with no time limit, until `ready` holds for what the child has printed so far
  /// (stdout, stderr), or both are closed (the child has ended); returns whether it held.
  func waitForOutput(until ready: (_ stdout: String, _ stderr: String) -> Bool) -> Bool {
    outputArrived.lock()
    defer { outputArrived.unlock() }
    while true {
      let (out, err) = output.withLock { ($0.out, $0.err) }
      if ready(String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self)) {
        return true
      }
      if readersOpen == 0 { return false }
      outputArrived.wait()
    }
  }

  /// Sends `signal` to the child.
  func send(_ signal: Int32) {
    if finished == nil { kill(pid, signal) }
  }

  /// Blocks until `ready` holds or the child has exited, with no time limit: `ready` is looked
  /// at again whenever an entry is created in, moved into or opened in one of `folders`
  /// (watched with inotify; `ready` may add folders by calling `watch`). True when `ready` held
  /// while the child was still running.
  func wait(watching folders: [String], until ready: (_ watch: (String) -> Void) -> Bool) throws
    -> Bool
  {
    let inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
    try #require(inotify >= 0, "inotify_init1 failed with errno \(errno)")
    defer { close(inotify) }
    let watch: (String) -> Void = { folder in
      _ = inotify_add_watch(inotify, folder, UInt32(IN_CREATE | IN_MOVED_TO | IN_OPEN))
    }
    for folder in folders { watch(folder) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      if ready(watch) { return true }
      var fds = [
        pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
        pollfd(fd: exitFD, events: Int16(POLLIN), revents: 0),
      ]
      if poll(&fds, 2, -1) < 0, errno == EINTR { continue }
      if fds[1].revents != 0 { return false }
      while read(inotify, &buffer, buffer.count) > 0 {}
    }
  }

  /// Waits for the child to end and returns how it ended and what it printed.
  func wait() -> Result {
    if let finished { return finished }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
    readersDone.wait()
    close(exitFD)
    let (out, err) = output.withLock { ($0.out, $0.err) }
    // WIFSIGNALED / WTERMSIG / WEXITSTATUS are macros Swift cannot import.
    let signal = status & 0x7F
    let killed = signal != 0 && signal != 0x7F
    let result = Result(
      status: killed ? signal : (status >> 8) & 0xFF, killed: killed,
      stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self),
      peakKilobytes: usage.ru_maxrss)
    finished = result
    return result
  }

  /// Blocks, with no time limit, until one of `children` has exited (or all have), and returns
  /// the index of one that has.
  static func firstToExit(_ children: [ChildTaskpress]) -> Int {
    while true {
      var fds = children.map { pollfd(fd: $0.exitFD, events: Int16(POLLIN), revents: 0) }
      if poll(&fds, nfds_t(fds.count), -1) < 0, errno == EINTR { continue }
      if let index = fds.firstIndex(where: { $0.revents != 0 }) { return index }
    }
  }

  /// Kills a child the test gave up on, so that no test leaves a process behind.
  deinit {
    if finished == nil {
      kill(pid, SIGKILL)
      _ = wait()
    }
  }
}

/// Runs the taskpress binary to its end and returns how it ended and what it printed.
func runBinary(
  _ arguments: [String], in directory: String, environment: [String: String?] = [:],
  terminal: Bool = false
) throws -> ChildTaskpress.Result {
  try ChildTaskpress(arguments, in: directory, environment: environment, terminal: terminal)
    .wait()
}
