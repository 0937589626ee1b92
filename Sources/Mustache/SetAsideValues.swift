/// The values a render set aside instead of escaping them into its output: their text,
/// unescaped, and where each goes (see ``Template/render(_:appendingTo:settingAside:partials:missingPartials:asksObjectsForText:)``).
///
/// A render sets aside the values of one escaping (`escaping`): the interpolations of templates
/// with another escaping, and values inserted unescaped, are written as usual. The output with
/// each value escaped at its place is what a plain render gives: ``escaped(into:)`` makes it.
/// A caller that treats the template's own text apart from the data (to cache work done on the
/// text, say) finds the text in the output and the data here.
public struct SetAsideValues: Sendable, Equatable {
  /// The escaping whose values are set aside.
  public let escaping: Escaping
  /// The values' text, one after another, as the data gave it (not escaped).
  public private(set) var text: [UInt8] = []
  /// Where each value ends in `text`.
  public private(set) var ends: [Int] = []
  /// Where each value goes in the output: the offset of the output byte before which it stands.
  public private(set) var places: [Int] = []

  /// No values, with room for a page's.
  public init(escaping: Escaping) {
    self.init(escaping: escaping, reservingCapacity: true)
  }

  init(escaping: Escaping, reservingCapacity: Bool) {
    self.escaping = escaping
    guard reservingCapacity else { return }
    ends.reserveCapacity(32)
    places.reserveCapacity(32)
    text.reserveCapacity(512)
  }

  /// The number of values.
  public var count: Int { ends.count }

  /// Forgets every value and keeps the room, for the next render.
  public mutating func removeAll() {
    text.removeAll(keepingCapacity: true)
    ends.removeAll(keepingCapacity: true)
    places.removeAll(keepingCapacity: true)
  }

  /// The text of value `index`.
  public func value(_ index: Int) -> ArraySlice<UInt8> {
    text[(index == 0 ? 0 : ends[index - 1])..<ends[index]]
  }

  /// Adds a value whose text is `bytes`, to go at `place`.
  public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, at place: Int) {
    text.append(contentsOf: bytes)
    ends.append(text.count)
    places.append(place)
  }

  /// `output` (a render's output with these values set aside) with each value escaped at its
  /// place: what the render would have written.
  public func escaped(into output: [UInt8]) -> [UInt8] {
    var source: [UInt8] = []
    source.reserveCapacity(output.count + 2 * text.count)
    var copied = 0
    text.withUnsafeBufferPointer { text in
      for index in 0..<count {
        source.append(contentsOf: output[copied..<places[index]])
        copied = places[index]
        let start = index == 0 ? 0 : ends[index - 1]
        escaping.append(UnsafeBufferPointer(rebasing: text[start..<ends[index]]), to: &source)
      }
    }
    source.append(contentsOf: output[copied...])
    return source
  }
}
