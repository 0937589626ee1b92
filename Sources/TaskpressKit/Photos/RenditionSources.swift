/// Which photo made the renditions a build published: for each rendition key
/// (`PhotoPublisher.renditionKey`, named by the photo's unkeyed `ContentHash` and its size), the
/// keyed hash (`HashKey`, the output folder's secret) of the bytes of the photo they were made
/// from. Recorded in the state folder beside the manifest; a rebuild keeps a photo's renditions
/// only when its own bytes have the recorded keyed hash, so a photo crafted to have another's
/// `ContentHash` and size never gets that photo's renditions.
struct RenditionSources: Equatable {
  static let fileName = "renditions"
  private static let header = "taskpress-renditions 1\n"

  var sources: [String: KeyedHash]

  init(_ sources: [String: KeyedHash]) {
    self.sources = sources
  }

  /// The record as it is stored: a header line, then `KEY HASH` a line, sorted by key.
  var bytes: [UInt8] {
    var text = Self.header
    for (key, hash) in sources.sorted(by: { $0.key < $1.key }) {
      text += "\(key) \(hash.hex)\n"
    }
    return Array(text.utf8)
  }

  /// Reads a stored record; nil when `bytes` are not one (a record that does not parse is
  /// ignored: the photos are decoded again).
  init?(bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard text.hasPrefix(Self.header), text.hasSuffix("\n") else { return nil }
    var sources: [String: KeyedHash] = [:]
    for line in text.dropFirst(Self.header.utf8.count).split(separator: "\n") {
      let parts = line.split(separator: " ")
      guard parts.count == 2, parts[0].utf8.count == 16, let hash = KeyedHash(hex: parts[1]),
        sources.updateValue(hash, forKey: String(parts[0])) == nil
      else { return nil }
    }
    self.sources = sources
  }
}
