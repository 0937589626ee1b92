import Foundation
import Synchronization

extension Build {
  /// What the threads staging a site share: the photos once they are staged, failures, and
  /// the photos' work that any of them may take a piece of (`RenderPaths.sharedPhotoWork`).
  final class StagingState: Sendable {
    struct Photos {
      var photoFiles: [Int64: PageContext.PhotoFile]
    }

    private struct State {
      var photos: Photos?
      var failures: [(index: Int, error: any Error)] = []
      var cancelled = false
      /// The photos' pieces of work, in the order they were added; each taken once (set to
      /// nil, so that what it holds is let go of once it ran).
      var pieces: [(@Sendable () -> Void)?] = []
      /// The first piece not taken yet.
      var nextPiece = 0
      /// Pieces taken and not finished.
      var runningPieces = 0
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
    /// interrupted. Until then, the photos' pieces of work waiting are run here.
    func waitForPhotos(_ interrupt: InterruptFlag) -> Photos? {
      while true {
        if runPhotoPiece() { continue }
        condition.lock()
        defer { condition.unlock() }
        let (photos, failed, waiting) = state.withLock {
          ($0.photos, !$0.failures.isEmpty, $0.nextPiece < $0.pieces.count)
        }
        if let photos { return photos }
        if failed || interrupt.isSet { return nil }
        if waiting { continue }
        // An interrupt sets a flag and wakes no one: look at it now and then.
        _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
      }
    }

    // MARK: - The photos' work, shared

    /// Adds pieces of the photos' work, which any thread may run (`runPhotoPiece`): the photo
    /// thread, and the page threads before their next page (`helpWithPhotos`) and while they
    /// wait for the photos.
    /// With `first`, they are taken before the pieces waiting (those that publish what is held
    /// in memory go before those that read more).
    func addPhotoWork(_ pieces: [@Sendable () -> Void], first: Bool = false) {
      guard !pieces.isEmpty else { return }
      condition.lock()
      state.withLock { state in
        if first {
          state.pieces.insert(contentsOf: pieces.map { Optional($0) }, at: state.nextPiece)
        } else {
          state.pieces += pieces.map { Optional($0) }
        }
      }
      condition.broadcast()
      condition.unlock()
    }

    /// Runs one piece of the photos' work on this thread; false when none is waiting.
    @discardableResult
    func runPhotoPiece() -> Bool {
      let piece: (@Sendable () -> Void)? = state.withLock { state in
        guard state.nextPiece < state.pieces.count else { return nil }
        let piece = state.pieces[state.nextPiece]
        state.pieces[state.nextPiece] = nil
        state.nextPiece += 1
        state.runningPieces += 1
        return piece
      }
      guard let piece else { return false }
      piece()
      condition.lock()
      state.withLock { $0.runningPieces -= 1 }
      condition.broadcast()
      condition.unlock()
      return true
    }

    /// Runs the photos' pieces of work waiting, until none is, while fewer than `helpers`
    /// threads run them besides the photo thread: a page thread gives the photos its core
    /// before its next page, and the others go on with the pages (the photos' work waits on
    /// the database and the photos' folder, which one more thread does not speed up).
    func helpWithPhotos(helpers: Int) {
      while true {
        let busy = state.withLock { $0.runningPieces >= helpers + 1 }
        if busy || !runPhotoPiece() { return }
      }
    }

    /// Runs the photos' pieces of work until every piece added has run, here or on another
    /// thread (a piece may add others); then forgets them.
    func finishPhotoWork() {
      while true {
        if runPhotoPiece() { continue }
        condition.lock()
        defer { condition.unlock() }
        let (waiting, running) = state.withLock {
          ($0.nextPiece < $0.pieces.count, $0.runningPieces)
        }
        if waiting { continue }
        if running == 0 {
          state.withLock {
            $0.pieces = []
            $0.nextPiece = 0
          }
          return
        }
        condition.wait()
      }
    }
  }
}
