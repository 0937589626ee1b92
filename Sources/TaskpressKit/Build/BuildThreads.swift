import Dispatch
import Synchronization

extension Build {
  /// The threads a build starts beside its own, what they hand back, and the one order in which
  /// a build waits for them on every way out (`finish`).
  ///
  /// - `reading`: the to-dos (`BuildRun.startReadingTodos`) and, in a build that reads early,
  ///   the last build (`LastBuild.start`, once the output folder is locked).
  /// - `checking`: what the last build left to keep its pages by (`LastPages`), in a build that
  ///   reads early; the writer is not let go of (nor aborted) before it is done.
  /// - `stagingPhotos`: the photos, once the possessions are read; told to stop by
  ///   `staging.cancel()`.
  ///
  /// The possessions' database is opened and closed by the build's own thread only.
  final class BuildThreads: Sendable {
    let reading = DispatchGroup()
    let checking = DispatchGroup()
    let stagingPhotos = DispatchGroup()
    /// What the threads staging the site share: the photos once they are staged, and failures.
    let staging = StagingState()
    /// The to-dos, as the reading thread left them.
    let todos = Mutex<
      Result<(todos: TodoRows, warnings: [BuildWarning], hasDueDates: Bool), any Error>?
    >(nil)
    /// What the last build left to keep its pages by, when looked at early.
    let lastPages = Mutex<LastPages?>(nil)
    /// The photos' warnings and how many renditions were decoded.
    let photoWarnings = Mutex<(warnings: [BuildWarning], decoded: Int)>(([], 0))
    /// Wall seconds the photos took.
    let photoSeconds = Mutex(0.0)
    /// The photos the previous build recorded, when this build publishes them as they are.
    let reusedPhotos = Mutex<PhotoRecord?>(nil)
    /// The record of the photos the site's renditions were made from (`RenditionSources`).
    let renditionSources = Mutex<[UInt8]?>(nil)
    /// The possessions' database, open until the photos are published (they are read from it).
    nonisolated(unsafe) var possessionSource: PossessionSource?

    /// Starts reading the to-dos of `options`, if it has any, on a thread of `reading`.
    func startReadingTodos(_ options: BuildOptions, busyTimeout: Duration) {
      guard let path = options.todos else { return }
      DispatchQueue.global().async(group: reading) {
        let result = Result {
          let source = try TodoSource(
            path: path, mapping: options.mapping.todos, busyTimeout: busyTimeout,
            queryTimeout: options.queryTimeout)
          defer { source.close() }
          let loaded = try source.loadRows()
          return (todos: loaded.todos, warnings: loaded.warnings, hasDueDates: source.hasDueDates)
        }
        self.todos.withLock { $0 = result }
      }
    }

    /// Stops the photos and waits for them: the photo thread may still be adding a file, so
    /// this comes before the writer's staging goes.
    func stopPhotos() {
      staging.cancel()
      stagingPhotos.wait()
    }

    /// What a build does on its way out, whether it succeeded, threw or stopped early (`defer`
    /// in `Build.run`), in this order: the photos are stopped and waited for (before the
    /// possessions' database they read is closed), the database is closed, then the check of
    /// the last build's files and the reading threads are waited for. Each step is harmless when
    /// its thread never started or is already done.
    func finish() {
      stopPhotos()
      possessionSource?.close()
      checking.wait()
      reading.wait()
    }
  }
}
