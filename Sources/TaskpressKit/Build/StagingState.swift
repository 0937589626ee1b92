import Foundation
import Synchronization

extension Build {
  /// What the threads staging a site share: the photos once they are staged, and failures.
  final class StagingState: Sendable {
    struct Photos {
      var photoFiles: [Int64: PageContext.PhotoFile]
    }

    private struct State {
      var photos: Photos?
      var failures: [(index: Int, error: any Error)] = []
      var cancelled = false
    }

    private let state = Mutex(State())
    private let condition = NSCondition()

    var failed: Bool { state.withLock { !$0.failures.isEmpty } }

    /// Whether the work should stop: some of it failed, or the build is over.
    var isStopping: Bool { state.withLock { !$0.failures.isEmpty || $0.cancelled } }

    /// Whether the build told the work still under way that it is over (see `cancel`).
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Tells work still under way (the photos) that the build is over.
    func cancel() {
      state.withLock { $0.cancelled = true }
    }

    /// The staged photos by possession id; empty until they are staged (or when there are none).
    var photoFiles: [Int64: PageContext.PhotoFile] {
      state.withLock { $0.photos?.photoFiles ?? [:] }
    }

    /// The error of the earliest piece of work that failed.
    var firstError: (any Error)? {
      state.withLock { $0.failures.min { $0.index < $1.index }?.error }
    }

    func photosDone(_ files: [Int64: PageContext.PhotoFile]) {
      condition.lock()
      state.withLock { $0.photos = Photos(photoFiles: files) }
      condition.broadcast()
      condition.unlock()
    }

    func fail(_ index: Int, _ error: any Error) {
      condition.lock()
      state.withLock { $0.failures.append((index, error)) }
      condition.broadcast()
      condition.unlock()
    }

    /// The staged photos, once they are; nil when some work failed first or the build was
    /// interrupted.
    func waitForPhotos(_ interrupt: InterruptFlag) -> Photos? {
      condition.lock()
      defer { condition.unlock() }
      while true {
        let (photos, failed) = state.withLock { ($0.photos, !$0.failures.isEmpty) }
        if let photos { return photos }
        if failed || interrupt.isSet { return nil }
        // An interrupt sets a flag and wakes no one: look at it now and then.
        _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
      }
    }
  }
}
