import Foundation
import Mustache
import Testing

@testable import TaskpressCLI

/// The Mustache spec again, end to end through `taskpress render`: the template, its partials
/// and its data are files in a temporary folder.
@Suite struct RenderSpecTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var file: String
    var name: String
    var data: MustacheValue
    var dataJSON: String
    var template: String
    var partials: [String: String]
    var expected: String

    var testDescription: String { "\(file): \(name)" }
  }

  static let specFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../MustacheTests/Fixtures/mustache-spec").standardized

  static let files = [
    "comments", "delimiters", "interpolation", "inverted", "partials", "sections",
    "~inheritance", "~dynamic-names",
  ]

  static func load() throws -> [Case] {
    var cases: [Case] = []
    for file in files {
      let url = specFolder.appendingPathComponent(file + ".json")
      guard let data = try? Data(contentsOf: url) else {
        throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path])
      }
      let json = try JSONSerialization.jsonObject(with: data)
      let document = try MustacheValue(jsonBytes: [UInt8](data))
      guard let root = json as? [String: Any], let tests = root["tests"] as? [[String: Any]],
        case .object(let parsedRoot) = document,
        case .array(let parsedTests)? = parsedRoot["tests"],
        parsedTests.count == tests.count
      else { throw CocoaError(.fileReadCorruptFile) }
      for (test, parsed) in zip(tests, parsedTests) {
        guard let name = test["name"] as? String, let template = test["template"] as? String,
          let expected = test["expected"] as? String, case .object(let fields) = parsed
        else { throw CocoaError(.fileReadCorruptFile) }
        // The data is written back out as JSON text, as a user would write the file.
        let dataJSON = try JSONSerialization.data(
          withJSONObject: test["data"] ?? NSNull(), options: [.fragmentsAllowed])
        cases.append(
          Case(
            file: file, name: name, data: fields["data"] ?? .null,
            dataJSON: String(decoding: dataJSON, as: UTF8.self), template: template,
            partials: test["partials"] as? [String: String] ?? [:], expected: expected))
      }
    }
    return cases
  }

  @Test("all 184 spec cases are loaded") func count() throws {
    #expect(try Self.load().count == 184)
  }

  @Test("spec through taskpress render", arguments: try load())
  func spec(_ specCase: Case) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let templatePath = folder.path + "/test.html"
    try Data(specCase.template.utf8).write(to: URL(fileURLWithPath: templatePath))
    for (name, source) in specCase.partials {
      try Data(source.utf8).write(to: URL(fileURLWithPath: folder.path + "/" + name + ".html"))
    }
    let dataPath = folder.path + "/data.json"
    try Data(specCase.dataJSON.utf8).write(to: URL(fileURLWithPath: dataPath))
    let command = RenderCommand(template: templatePath, data: dataPath, partials: nil)
    #expect(try command.run() == specCase.expected)
  }
}

/// A fresh folder under the system's temporary directory.
struct TemporaryFolder {
  let path: String

  init() throws {
    path = NSTemporaryDirectory() + "taskpress-test-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  func remove() {
    try? FileManager.default.removeItem(atPath: path)
  }
}
