#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where escaping and rendering append bytes: an array, or a render's ``OutputBuffer``.
protocol ByteSink: ~Copyable {
  mutating func append(_ byte: UInt8)
  mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: ByteSink where Element == UInt8 {}

/// Bytes in memory of their own, appended with a bounds check and a copy, without the
/// uniqueness and capacity checks an array makes on every append: for writers of many small
/// pieces, such as a render (see ``RenderBuffer``) or a data export.
public struct ByteBuffer: ~Copyable {
  @usableFromInline var start: UnsafeMutablePointer<UInt8>
  @usableFromInline var capacity: Int
  @usableFromInline var used = 0

  /// An empty buffer with room for `capacity` bytes (at least 64); it grows as needed.
  public init(capacity: Int) {
    self.capacity = max(capacity, 64)
    guard let memory = malloc(self.capacity) else { fatalError("out of memory") }
    start = memory.assumingMemoryBound(to: UInt8.self)
  }

  deinit {
    free(start)
  }

  /// The number of bytes appended.
  public var count: Int { used }

  /// The bytes appended so far, valid until the buffer next changes.
  public var bytes: UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: start, count: used)
  }

  /// Forgets the bytes and keeps the room.
  public mutating func removeAll() {
    used = 0
  }

  @inlinable @inline(__always)
  public mutating func append(_ byte: UInt8) {
    if used == capacity { grow(toHold: used + 1) }
    start[used] = byte
    used += 1
  }

  @inlinable @inline(__always)
  public mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress else { return }
    if bytes.count > capacity - used { grow(toHold: used + bytes.count) }
    (start + used).initialize(from: source, count: bytes.count)
    used += bytes.count
  }

  /// Grows with `realloc`: a large buffer (one the C library maps on its own) is moved by the
  /// kernel without copying its bytes or touching its pages again, so a render or a data
  /// export of many megabytes touches its memory once, not twice over as it doubles.
  @usableFromInline @inline(never)
  mutating func grow(toHold needed: Int) {
    let newCapacity = max(needed, capacity * 2)
    guard let memory = realloc(start, newCapacity) else { fatalError("out of memory") }
    start = memory.assumingMemoryBound(to: UInt8.self)
    capacity = newCapacity
  }
}

/// The bytes of one render, and what a render that sets values aside needs beside them. The
/// render hands the bytes to the caller at the end.
struct OutputBuffer: ~Copyable, ByteSink {
  private var storage: ByteBuffer
  /// The values of one escaping, set aside rather than written, when the render sets them
  /// aside (nil when it does not).
  private(set) var setAside: SetAsideValues?
  /// `setAside?.escaping`, kept apart: every interpolation compares its escaping with it, and
  /// reading it from `setAside` would copy the values.
  private(set) var setAsideEscaping: Escaping?

  /// Sets aside the values of `values.escaping` into `values` from now on, each at its place
  /// plus `base`.
  mutating func startSettingAside(_ values: consuming SetAsideValues, base: Int) {
    setAsideEscaping = values.escaping
    setAside = values
    setAsideBase = base
  }

  /// The values set aside; the buffer sets none aside from now on.
  mutating func takeSetAside() -> SetAsideValues? {
    setAsideEscaping = nil
    return setAside.take()
  }

  /// Notes a value set aside, whose text is `bytes`, at the place the output has reached.
  mutating func noteSetAside(_ bytes: UnsafeBufferPointer<UInt8>) {
    let place = setAsideBase + count
    setAside?.append(bytes, at: place)
  }
  /// What to add to an offset in this buffer for the place of a value set aside.
  var setAsideBase = 0

  init(capacity: Int) {
    storage = ByteBuffer(capacity: capacity)
  }

  /// The number of bytes appended.
  var count: Int { storage.count }

  /// Forgets the bytes and keeps the room.
  mutating func removeAll() {
    storage.removeAll()
  }

  /// The bytes appended so far.
  var bytes: UnsafeBufferPointer<UInt8> { storage.bytes }

  @inline(__always)
  mutating func append(_ byte: UInt8) {
    storage.append(byte)
  }

  @inline(__always)
  mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
    storage.append(contentsOf: bytes)
  }
}
