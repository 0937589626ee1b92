import Foundation
import Testing

@testable import TaskpressKit

@Suite struct SourcesDemoTests {
  static let demo = URL(filePath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appending(path: "Demo")

  private func demoDatabase(_ name: String, in folder: FixtureFolder) throws -> String {
    let sql = try String(contentsOf: Self.demo.appending(path: "\(name).sql"), encoding: .utf8)
    return try folder.database(name, sql: sql)
  }

  @Test("the demo databases load without warnings")
  func demo() throws {
    let folder = try FixtureFolder()
    let (todos, todoWarnings) = try TodoSource(path: demoDatabase("todos", in: folder)).load()
    #expect(todos.count == 25)
    #expect(Set(todos.map(\.priority)) == [.high, .medium, .low])
    #expect(Set(todos.map(\.complete)) == [true, false])
    #expect(todoWarnings == [])

    let contactsPath = try demoDatabase("contacts", in: folder)
    let (contacts, contactWarnings) = try ContactSource(path: contactsPath).load()
    #expect(contacts.count == 10)
    #expect(contacts.last?.name == "Tom\u{E1}s D\u{ED}az")
    #expect(contactWarnings == [])

    let possessionsPath = try demoDatabase("possessions", in: folder)
    let source = try PossessionSource(path: possessionsPath)
    let (possessions, possessionWarnings) = try source.load()
    #expect(possessions.count == 8)
    #expect(possessionWarnings == [])
    let photos = possessions.compactMap(\.photo)
    #expect(photos.count == 7)
    #expect(Set(photos.map(\.format)) == [.jpeg, .png])
    #expect(photos.allSatisfy { $0.width != nil && $0.height != nil })
    #expect(photos.allSatisfy { (2000...8192).contains($0.byteCount) })

    var contents: [[UInt8]] = []
    for photo in photos {
      var bytes: [UInt8] = []
      try source.streamPhoto(photo, chunkSize: 1024) { bytes.append(contentsOf: $0) }
      contents.append(bytes)
    }
    #expect(Set(contents).count == 6, "two possessions share one photo")
  }
}
