import Foundation
import Testing

@testable import Mustache

/// One test of the official Mustache spec (`Fixtures/mustache-spec/*.json`).
struct SpecCase: Sendable, CustomTestStringConvertible {
  var file: String
  var name: String
  var data: MustacheValue
  var template: String
  var partials: [String: String]
  var expected: String

  var testDescription: String { "\(file): \(name)" }

  /// The spec files run here: the required modules, inheritance and dynamic names. The
  /// lambdas module is out of scope (taskpress data is JSON, which has no functions).
  static let files = [
    "comments", "delimiters", "interpolation", "inverted", "partials", "sections",
    "~inheritance", "~dynamic-names",
  ]

  static let directory: URL = {
    if let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) {
      return url.appendingPathComponent("mustache-spec")
    }
    return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/mustache-spec")
  }()

  private static let loaded = Result { try load() }

  /// Every case of ``files``; throws when a fixture cannot be read, so that no test runs none.
  static var all: [SpecCase] { get throws { try loaded.get() } }

  static func load() throws -> [SpecCase] {
    var cases: [SpecCase] = []
    for file in files {
      let url = directory.appendingPathComponent(file + ".json")
      guard let data = try? Data(contentsOf: url) else {
        throw SpecError.unreadable(url.path)
      }
      let document = try MustacheValue(jsonBytes: [UInt8](data))
      guard case .object(let root) = document, case .array(let tests)? = root["tests"] else {
        throw SpecError.malformed(file)
      }
      for test in tests {
        guard case .object(let fields) = test,
          case .string(let name)? = fields["name"],
          case .string(let template)? = fields["template"],
          case .string(let expected)? = fields["expected"]
        else { throw SpecError.malformed(file) }
        var partials: [String: String] = [:]
        if case .object(let sources)? = fields["partials"] {
          for (key, value) in sources {
            guard case .string(let source) = value else { throw SpecError.malformed(file) }
            partials[key] = source
          }
        }
        cases.append(
          SpecCase(
            file: file, name: name, data: fields["data"] ?? .null, template: template,
            partials: partials, expected: expected))
      }
    }
    return cases
  }

  /// Why the fixtures could not be loaded; a thrown error of its own, not `#require`'s, so
  /// that every test that meets the kept result records it.
  enum SpecError: Error {
    case malformed(String)
    case unreadable(String)
  }
}
