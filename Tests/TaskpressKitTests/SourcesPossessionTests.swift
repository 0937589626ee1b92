import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

@Suite struct SourcesPossessionTests {
  @Test("photos are sniffed by their first bytes; anything else is no photo")
  func photos() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("photos")
    let (possessions, warnings) = try PossessionSource(path: path).load()
    let photos = Dictionary(uniqueKeysWithValues: possessions.map { ($0.id, $0.photo) })

    func expectPhoto(
      _ id: Int64, _ format: ImageFormat, _ width: Int?, _ height: Int?,
      sourceLocation: SourceLocation = #_sourceLocation
    ) {
      let photo = photos[id] ?? nil
      #expect(photo?.format == format, sourceLocation: sourceLocation)
      #expect(photo?.width == width, sourceLocation: sourceLocation)
      #expect(photo?.height == height, sourceLocation: sourceLocation)
      #expect(photo?.row == id, sourceLocation: sourceLocation)
    }
    expectPhoto(1, .png, 3, 2)
    expectPhoto(2, .jpeg, 5, 4)
    expectPhoto(3, .jpeg, 12, 7)
    expectPhoto(4, .gif, 7, 6)
    expectPhoto(5, .webp, 9, 8)
    expectPhoto(6, .webp, 10, 11)
    expectPhoto(7, .webp, 13, 12)
    expectPhoto(8, .bmp, 4, 3)
    expectPhoto(9, .tiff, 6, 5)
    expectPhoto(10, .avif, 16, 14)
    expectPhoto(11, .heic, 640, 480)
    expectPhoto(12, .png, nil, nil)
    for id: Int64 in 13...19 {
      #expect(photos[id] == .some(nil), "possession \(id) has no photo")
    }
    #expect((photos[3] ?? nil)?.byteCount ?? 0 > 20_000)
    #expect(possessions.map(\.id) == Array(1...19))
    #expect(
      warnings.map(\.description) == [
        "\(path): possessions id=13: photo is not a recognized image (starts with 3c 3f 78 6d)",
        // Text is a path to a photo file.
        "\(path): possessions id=14: photo '<svg xmlns=\"http://www.w3.org/2000/svg\"><script/>"
          + "</svg>' is not in the photo folder; not published",
        "\(path): possessions id=17: photo is a number, not an image",
        "\(path): possessions id=18: photo is not a recognized image (starts with 42 4d 57 20)",
        "\(path): possessions id=19: photo is not a recognized image (starts with 01 02)",
      ])
  }

  @Test("a photo streams in chunks and equals the stored bytes")
  func streaming() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("photos")
    let source = try PossessionSource(path: path)
    let (possessions, _) = try source.load()
    let photo = try #require(possessions.first { $0.id == 3 }?.photo)

    var streamed: [UInt8] = []
    var chunkSizes: [Int] = []
    try source.streamPhoto(photo, chunkSize: 4096) { chunk in
      chunkSizes.append(chunk.count)
      streamed.append(contentsOf: chunk)
    }
    #expect(chunkSizes.dropLast().allSatisfy { $0 == 4096 })
    #expect(Int64(streamed.count) == photo.byteCount)

    let database = try Database(path: path)
    let statement = try database.prepare("SELECT photo FROM possessions WHERE id = 3")
    let stored = try #require(try statement.step()?.bytes(at: 0))
    #expect(streamed == stored)
  }

  @Test("photos read one after another, in any order, are each their own stored bytes")
  func readingManyPhotos() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("photos")
    let source = try PossessionSource(path: path)
    let photos = try source.load().possessions.compactMap(\.photo)
    #expect(photos.count == 12)
    let database = try Database(path: path)
    let statement = try database.prepare("SELECT rowid, photo FROM possessions")
    var stored: [Int64: [UInt8]] = [:]
    while let row = try statement.step() {
      stored[row.int64(at: 0) ?? -1] = row.bytes(at: 1)
    }
    // One reader is moved from row to row: back and forth, whole and streamed.
    for photo in photos.reversed() + photos + [photos[3], photos[0], photos[3]] {
      #expect(try source.readPhoto(photo) == stored[photo.row], "row \(photo.row)")
      var streamed: [UInt8] = []
      try source.streamPhoto(photo, chunkSize: 1000) { streamed.append(contentsOf: $0) }
      #expect(streamed == stored[photo.row], "row \(photo.row)")
    }
  }

  @Test("without an id column the rowid is the id; names match in any case")
  func rowidAsID() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("possessions-no-id")
    let (possessions, warnings) = try PossessionSource(path: path).load()
    #expect(
      possessions == [
        Possession(id: 3, name: "Kettle", description: "", photo: nil),
        Possession(id: 5, name: "Bicycle", description: "Blue, with a basket", photo: nil),
      ])
    #expect(warnings.map(\.description) == ["\(path): possessions id=3: description is NULL"])
  }

  @Test("a missing photo column is an error")
  func missingPhoto() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("possessions-missing-photo")
    let error = sourceError { _ = try PossessionSource(path: path) }
    #expect(
      error?.description
        == "\(path): table 'possessions' has no column 'photo' (found: id, name, description)")
  }

  @Test("streaming after close is an error, not a crash")
  func closed() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("photos")
    let source = try PossessionSource(path: path)
    let photo = try #require(try source.load().possessions.first?.photo)
    source.close()
    let error = sourceError { try source.streamPhoto(photo, chunkSize: 10) { _ in } }
    #expect(error?.description == "\(path): the source was closed before it was read")
  }

  @Test("image formats name their files and media types")
  func formats() {
    #expect(ImageFormat.jpeg.fileExtension == "jpg")
    #expect(ImageFormat.png.fileExtension == "png")
    #expect(ImageFormat.jpeg.mimeType == "image/jpeg")
    #expect(ImageFormat.avif.mimeType == "image/avif")
  }
}
