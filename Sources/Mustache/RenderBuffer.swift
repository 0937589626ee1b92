/// Bytes that renders append to, kept from one render to the next: a program that renders many
/// pages one after another reuses one buffer instead of allocating (and copying out of) a new
/// one for each.
///
/// ```swift
/// let buffer = RenderBuffer()
/// for row in rows {
///   buffer.removeAll()
///   try template.render(row, appendingTo: buffer)
///   try write(buffer.bytes)
/// }
/// ```
///
/// Not for use by two threads at once.
public final class RenderBuffer {
  /// Used by one thread, one render at a time: no run-time check of exclusive access.
  @exclusivity(unchecked) var output: OutputBuffer

  /// An empty buffer with room for `capacity` bytes; it grows as needed.
  public init(capacity: Int = 4096) {
    output = OutputBuffer(capacity: capacity)
  }

  /// The bytes rendered so far, valid until the buffer next changes.
  public var bytes: UnsafeBufferPointer<UInt8> { output.bytes }

  /// The number of bytes rendered so far.
  public var count: Int { output.count }

  /// Empties the buffer and keeps its room.
  public func removeAll() {
    output.removeAll()
  }

  /// Appends `bytes` as they are.
  public func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
    output.append(contentsOf: bytes)
  }
}

extension Template {
  /// Renders the template with `value` as the root of the context stack, appending to
  /// `buffer`; see ``render(_:into:partials:missingPartials:asksObjectsForText:)``.
  public func render(
    _ value: MustacheValue, appendingTo buffer: RenderBuffer,
    partials: (any PartialResolver)? = nil, missingPartials: MissingPartialPolicy = .renderEmpty,
    asksObjectsForText: Bool = true
  ) throws {
    var renderer = Renderer(resolver: partials, policy: missingPartials, root: value)
    renderer.asksObjectsForText = asksObjectsForText
    try renderer.render(program, into: &buffer.output)
  }

  /// Renders the template like ``render(_:appendingTo:partials:missingPartials:asksObjectsForText:)``,
  /// but sets values aside in `setAside`, as
  /// ``render(_:into:settingAside:partials:missingPartials:asksObjectsForText:)`` does; the
  /// places are offsets in `buffer`, which should be empty.
  public func render(
    _ value: MustacheValue, appendingTo buffer: RenderBuffer,
    settingAside setAside: inout SetAsideValues, partials: (any PartialResolver)? = nil,
    missingPartials: MissingPartialPolicy = .renderEmpty, asksObjectsForText: Bool = true
  ) throws {
    var renderer = Renderer(resolver: partials, policy: missingPartials, root: value)
    renderer.asksObjectsForText = asksObjectsForText
    // The values are moved into the buffer and back, not copied.
    let escaping = setAside.escaping
    buffer.output.startSettingAside(
      exchange(&setAside, with: SetAsideValues(escaping: escaping, reservingCapacity: false)),
      base: 0)
    defer {
      if let values = buffer.output.takeSetAside() { setAside = values }
    }
    try renderer.render(program, into: &buffer.output)
  }
}
