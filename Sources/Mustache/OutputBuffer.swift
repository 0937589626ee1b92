/// Where escaping and rendering append bytes: an array, or a render's ``OutputBuffer``.
protocol ByteSink: ~Copyable {
  mutating func append(_ byte: UInt8)
  mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: ByteSink where Element == UInt8 {}

/// The bytes of one render, in memory of its own: appending is a bounds check and a copy,
/// without the uniqueness checks of an array. The render hands them to the caller's array at
/// the end.
struct OutputBuffer: ~Copyable, ByteSink {
  private var start: UnsafeMutablePointer<UInt8>
  private(set) var count = 0
  private var capacity: Int
  /// The values escaped for Markdown, set aside rather than written, when the render sets
  /// them aside (nil when it does not).
  var markdownValues: MarkdownValues?
  /// What to add to an offset in this buffer for the place of a value set aside.
  var markdownBase = 0

  init(capacity: Int) {
    self.capacity = max(capacity, 64)
    start = .allocate(capacity: self.capacity)
  }

  deinit {
    start.deallocate()
  }

  /// Forgets the bytes and keeps the room.
  mutating func removeAll() {
    count = 0
  }

  /// The bytes appended so far.
  var bytes: UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: start, count: count)
  }

  @inline(__always)
  mutating func append(_ byte: UInt8) {
    if count == capacity { grow(toHold: count + 1) }
    start[count] = byte
    count += 1
  }

  @inline(__always)
  mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress else { return }
    if bytes.count > capacity - count { grow(toHold: count + bytes.count) }
    (start + count).initialize(from: source, count: bytes.count)
    count += bytes.count
  }

  @inline(never)
  private mutating func grow(toHold needed: Int) {
    let newCapacity = max(needed, capacity * 2)
    let newStart = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    newStart.initialize(from: start, count: count)
    start.deallocate()
    start = newStart
    capacity = newCapacity
  }
}
