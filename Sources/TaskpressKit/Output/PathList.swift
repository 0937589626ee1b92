/// Paths one after the other in one block of bytes: the files a commit wrote, a million of them
/// for a large site, without a `String` of its own for each (16 bytes and an allocation of
/// 32 or more a path, where this takes 4 and the path's bytes). A path is made a `String`
/// when it is read.
public struct PathList: RandomAccessCollection, Sendable, Equatable, ExpressibleByArrayLiteral,
  CustomStringConvertible
{
  private var bytes: [UInt8] = []
  /// Where each path ends in `bytes`.
  private var ends: [UInt32] = []

  public init() {}

  public init(_ paths: some Sequence<String>) {
    for path in paths { append(path) }
  }

  public init(arrayLiteral paths: String...) {
    self.init(paths)
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { ends.count }

  public subscript(index: Int) -> String {
    withPath(index) { String(decoding: $0, as: UTF8.self) }
  }

  /// Hands the UTF-8 bytes of the path at `index` to `body`, read in place.
  public func withPath<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows
    -> R
  {
    let start = index == 0 ? 0 : Int(ends[index - 1])
    return try bytes.withUnsafeBufferPointer {
      try body(UnsafeBufferPointer(rebasing: $0[start..<Int(ends[index])]))
    }
  }

  public mutating func append(_ path: String) {
    var path = path
    path.withUTF8 { append(utf8: $0) }
  }

  /// Makes room for `count` paths of `bytes` bytes in all, so that the list does not grow by
  /// copying itself (twice its size for a moment).
  mutating func reserveCapacity(_ count: Int, bytes byteCount: Int) {
    bytes.reserveCapacity(byteCount)
    ends.reserveCapacity(count)
  }

  /// Adds the path whose UTF-8 bytes are `utf8`.
  mutating func append(utf8: UnsafeBufferPointer<UInt8>) {
    bytes.append(contentsOf: utf8)
    precondition(bytes.count <= Int(UInt32.max), "more than 4 GB of paths in one list")
    ends.append(UInt32(bytes.count))
  }

  public var description: String { Array(self).description }
}
