import CCmark

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Memory for libcmark, one document at a time.
///
/// libcmark builds a tree of many small nodes and buffers for each document and frees them one
/// by one; on a site of 100,000 pages that is most of what Markdown costs. An arena hands out
/// memory by moving a pointer and drops all of it at once when the document is rendered. Each
/// thread has its own (libcmark's allocator has no context argument), found through a
/// thread-specific key.
final class MarkdownArena {
  /// Every block starts with a header holding its size, so `realloc` knows what to copy; 16
  /// bytes keeps blocks aligned as `malloc`'s are.
  private static let header = 16
  private static let chunkSize = 256 << 10

  /// The chunk being filled, and how far.
  private var chunk: UnsafeMutableRawPointer
  private var chunkCapacity: Int
  private var used = 0
  /// Chunks filled earlier in this document, and blocks too big for a chunk.
  private var retired: [UnsafeMutableRawPointer] = []

  private init() {
    chunkCapacity = Self.chunkSize
    chunk = UnsafeMutableRawPointer.allocate(byteCount: chunkCapacity, alignment: Self.header)
  }

  deinit {
    reset()
    chunk.deallocate()
  }

  /// A block of `size` bytes, zeroed when asked; nil when `size` is absurd.
  func allocate(_ size: Int, zeroed: Bool) -> UnsafeMutableRawPointer? {
    guard size >= 0, size <= Int.max / 2 else { return nil }
    let needed = Self.header + (size + Self.header - 1) / Self.header * Self.header
    let start: UnsafeMutableRawPointer
    if needed > Self.chunkSize / 4 {
      // A large block gets memory of its own, dropped with the document.
      start = UnsafeMutableRawPointer.allocate(byteCount: needed, alignment: Self.header)
      retired.append(start)
    } else {
      if used + needed > chunkCapacity {
        retired.append(chunk)
        chunk = UnsafeMutableRawPointer.allocate(byteCount: Self.chunkSize, alignment: Self.header)
        chunkCapacity = Self.chunkSize
        used = 0
      }
      start = chunk + used
      used += needed
    }
    start.storeBytes(of: size, as: Int.self)
    let block = start + Self.header
    if zeroed { block.initializeMemory(as: UInt8.self, repeating: 0, count: size) }
    return block
  }

  /// `block` (from this arena, or nil) with room for `size` bytes, its bytes kept.
  func reallocate(_ block: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? {
    guard let block else { return allocate(size, zeroed: false) }
    let old = (block - Self.header).load(as: Int.self)
    if size <= old {
      (block - Self.header).storeBytes(of: size, as: Int.self)
      return block
    }
    guard let moved = allocate(size, zeroed: false) else { return nil }
    moved.copyMemory(from: block, byteCount: old)
    return moved
  }

  /// Drops every block: the document is rendered and copied out.
  func reset() {
    for block in retired { block.deallocate() }
    retired.removeAll(keepingCapacity: true)
    used = 0
  }

  // MARK: - One per thread

  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { pointer in
      if let pointer { Unmanaged<MarkdownArena>.fromOpaque(pointer).release() }
    }
    return key
  }()

  /// The arena of the calling thread.
  static var current: MarkdownArena {
    withCurrent { $0 }
  }

  /// Runs `body` with the arena of the calling thread, which the thread keeps alive: no
  /// reference counting on the way, as libcmark calls this for every node.
  static func withCurrent<R>(_ body: (MarkdownArena) -> R) -> R {
    if let pointer = pthread_getspecific(key) {
      return Unmanaged<MarkdownArena>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }
    let arena = MarkdownArena()
    pthread_setspecific(key, Unmanaged.passRetained(arena).toOpaque())
    return body(arena)
  }

  /// libcmark's view of the arenas: calloc and realloc from the calling thread's arena, and a
  /// free that does nothing (the arena drops everything at once).
  nonisolated(unsafe) static let allocator: UnsafeMutablePointer<cmark_mem> = {
    let allocator = UnsafeMutablePointer<cmark_mem>.allocate(capacity: 1)
    allocator.initialize(
      to: cmark_mem(
        calloc: { count, size in
          let (total, overflow) = count.multipliedReportingOverflow(by: size)
          guard !overflow, let bytes = Int(exactly: total) else { return nil }
          return MarkdownArena.withCurrent { $0.allocate(bytes, zeroed: true) }
        },
        realloc: { block, size in
          guard let bytes = Int(exactly: size) else { return nil }
          return MarkdownArena.withCurrent { $0.reallocate(block, bytes) }
        },
        free: { _ in }))
    return allocator
  }()
}
