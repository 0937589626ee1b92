/// The photos a build published, recorded in the state folder beside its manifest: each
/// possession's photo files, the warnings of the photos that could not be published, and the
/// libvips version that made their renditions. A
/// rebuild whose photos key (`Build.photosKey`: this program, the possessions database's
/// identity, the photo settings) is the recorded one, and which finds every recorded file as
/// the writer left it, publishes these photos without reading a photo from the database.
struct PhotoRecord: Equatable {
  static let fileName = "photos"
  private static let header = "taskpress-photos 1"

  var key: String
  /// The version of libvips that made the photos' renditions; nil when none has one (every
  /// photo is published as stored, and libvips was not loaded).
  var vipsVersion: String?
  /// Each possession's photo, by possession id.
  var photos: [Int64: PublishedPhoto]
  var warnings: [BuildWarning]

  init(
    key: String, vipsVersion: String?, photos: [Int64: PublishedPhoto], warnings: [BuildWarning]
  ) {
    self.key = key
    self.vipsVersion = vipsVersion
    self.photos = photos
    self.warnings = warnings
  }

  /// The record of `photos`, with the libvips version when one of them has renditions.
  init(key: String, photos: [Int64: PublishedPhoto], warnings: [BuildWarning]) {
    let renditions = photos.values.contains {
      $0.renditions.contains { PhotoPublisher.isRendition($0.path) }
    }
    self.init(
      key: key, vipsVersion: renditions ? Vips.version : nil, photos: photos, warnings: warnings)
  }

  /// Every file of the recorded photos, each once, sorted.
  var paths: [String] {
    Set(photos.values.flatMap { $0.renditions.map(\.path) + $0.avif }).sorted()
  }

  /// The record as it is stored: a header, the key, `vips VERSION` (`vips -` for none),
  /// `photos N` and a line per possession (its
  /// id, then a tab and `PATH WIDTH HEIGHT` per file), `warnings N` and a line per warning (as
  /// `InputsRecord` writes them).
  var bytes: [UInt8] {
    var bytes = Array(
      "\(Self.header)\n\(key)\nvips \(vipsVersion ?? "-")\nphotos \(photos.count)\n".utf8)
    bytes.reserveCapacity(photos.count * 48)
    for (id, photo) in photos.sorted(by: { $0.key < $1.key }) {
      bytes += String(id).utf8
      for file in photo.renditions {
        bytes += "\t\(file.path) \(file.width) \(file.height)".utf8
      }
      // An AVIF twin as `PATH.avif 0 0`: its size is its rendition's.
      for path in photo.avif {
        bytes += "\t\(path) 0 0".utf8
      }
      bytes.append(UInt8(ascii: "\n"))
    }
    bytes += "warnings \(warnings.count)\n".utf8
    for warning in warnings {
      bytes += (InputsRecord.line(warning) + "\n").utf8
    }
    return bytes
  }

  /// Reads a stored record; nil when `bytes` are not one (another version, cut short, a file
  /// outside `photos/`).
  init?(bytes: [UInt8]) {
    let lines = bytes.split(separator: Self.newline, omittingEmptySubsequences: false)
    guard lines.count >= 5, lines[0].elementsEqual(Self.header.utf8),
      lines[2].starts(with: "vips ".utf8),
      let photoCount = Self.number(after: "photos ", in: lines[3]), lines.count >= 5 + photoCount
    else { return nil }
    key = String(decoding: lines[1], as: UTF8.self)
    let version = String(decoding: lines[2].dropFirst(5), as: UTF8.self)
    vipsVersion = version == "-" ? nil : version
    photos = [:]
    photos.reserveCapacity(photoCount)
    for line in lines[4..<(4 + photoCount)] {
      let fields = line.split(separator: Self.tab, omittingEmptySubsequences: false)
      guard fields.count >= 2, let id = Self.integer(fields[0]), photos[id] == nil else {
        return nil
      }
      var renditions: [PublishedPhoto.Rendition] = []
      var avif: [String] = []
      for field in fields.dropFirst() {
        let parts = field.split(separator: Self.space, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].starts(with: "photos/".utf8),
          !parts[0].contains(UInt8(ascii: "\\")), let width = Self.integer(parts[1]),
          let height = Self.integer(parts[2])
        else { return nil }
        let path = String(decoding: parts[0], as: UTF8.self)
        guard !path.split(separator: "/").contains("..") else { return nil }
        if path.hasSuffix(".avif"), width == 0, height == 0 {
          avif.append(path)
          continue
        }
        guard width > 0, height > 0 else { return nil }
        renditions.append(.init(path: path, width: Int(width), height: Int(height)))
      }
      guard avif.isEmpty || avif.count == renditions.count else { return nil }
      photos[id] = PublishedPhoto(renditions: renditions, avif: avif)
    }
    guard let warningCount = Self.number(after: "warnings ", in: lines[4 + photoCount]),
      lines.count == 5 + photoCount + warningCount + 1, lines.last?.isEmpty == true
    else { return nil }
    warnings = []
    for line in lines[(5 + photoCount)..<(5 + photoCount + warningCount)] {
      guard let warning = InputsRecord.warning(Substring(String(decoding: line, as: UTF8.self)))
      else { return nil }
      warnings.append(warning)
    }
  }

  private static let newline = UInt8(ascii: "\n")
  private static let tab = UInt8(ascii: "\t")
  private static let space = UInt8(ascii: " ")

  /// The decimal digits of `bytes` (an optional leading `-`) as a number; nil when they are
  /// not one.
  private static func integer(_ bytes: ArraySlice<UInt8>) -> Int64? {
    guard bytes.count <= 20 else { return nil }
    return Int64(String(decoding: bytes, as: UTF8.self))
  }

  /// The count after `prefix` in `line` (`photos 12`); nil when it is not there.
  private static func number(after prefix: String, in line: ArraySlice<UInt8>) -> Int? {
    guard line.starts(with: prefix.utf8),
      let count = integer(line.dropFirst(prefix.utf8.count)), count >= 0, count < 1 << 40
    else { return nil }
    return Int(count)
  }
}
