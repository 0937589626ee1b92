import CCmark
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import TaskpressKit

/// One example of the CommonMark spec files kept in `Fixtures/commonmark/` (cmark 0.30.2's).
struct CommonMarkExample: Sendable, CustomStringConvertible {
  var file: String
  var number: Int
  var markdown: String
  var html: String

  var description: String { "\(file) example \(number)" }

  /// The examples of `file`: fenced by 32 backticks and `example`, input and output split by a
  /// line that is a single `.`, `→` standing for a tab. A missing or empty file is an error,
  /// so that no test loops over nothing and passes.
  static func load(_ file: String) throws -> [CommonMarkExample] {
    let url = FixtureFolder.fixtures.appending(path: "commonmark/\(file)")
    guard let text = try? String(contentsOf: url, encoding: .utf8) else {
      throw FixtureError("cannot read the fixture \(url.path)")
    }
    let fence = String(repeating: "`", count: 32)
    var examples: [CommonMarkExample] = []
    var markdown: [Substring]?
    var html: [Substring]?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line == fence + " example" {
        markdown = []
      } else if markdown != nil, html == nil, line == "." {
        html = []
      } else if let input = markdown, let output = html, line == fence {
        func joined(_ lines: [Substring]) -> String {
          lines.map { $0 + "\n" }.joined().replacingOccurrences(of: "→", with: "\t")
        }
        examples.append(
          CommonMarkExample(
            file: file, number: examples.count + 1, markdown: joined(input), html: joined(output)))
        markdown = nil
        html = nil
      } else if html != nil {
        html?.append(line)
      } else if markdown != nil {
        markdown?.append(line)
      }
    }
    guard !examples.isEmpty else { throw FixtureError("no examples in the fixture \(url.path)") }
    return examples
  }

  private static let loaded = Result { try load("spec.txt") + load("regression.txt") }
  private static let loadedSmart = Result { try load("smart_punct.txt") }

  /// The examples of the spec and of cmark's regression file; throws when a file is missing.
  static var all: [CommonMarkExample] { get throws { try loaded.get() } }
  /// The smart punctuation examples; throws when the file is missing.
  static var smart: [CommonMarkExample] { get throws { try loadedSmart.get() } }
}

/// A fixture that cannot be loaded. (Not `#require`: the loaded result is kept, and an error
/// of `#require` is recorded only by the first test that meets it; this one by each.)
struct FixtureError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// libcmark allocating from taskpress's arena renders exactly as with its own allocator.
@Suite struct CommonMarkSpecTests {
  @Test("all 652 + 16 + 16 examples are loaded")
  func loaded() throws {
    #expect(try CommonMarkExample.load("spec.txt").count == 652)
    #expect(try CommonMarkExample.load("regression.txt").count == 16)
    #expect(try CommonMarkExample.smart.count == 16)
  }

  @Test("every example renders as the spec says (unsafe, as cmark's own tests run)")
  func spec() throws {
    for example in try CommonMarkExample.all {
      #expect(
        Markdown.html(from: example.markdown, options: [.unsafeRawHTML]) == example.html,
        "\(example)")
    }
    for example in try CommonMarkExample.smart {
      #expect(
        Markdown.html(from: example.markdown, options: [.unsafeRawHTML, .smart]) == example.html,
        "\(example)")
    }
  }

  /// What libcmark renders with the C library's allocator.
  static func reference(_ markdown: String, _ options: Markdown.Options) -> String {
    let bytes = Array(markdown.utf8)
    guard
      let html = cmark_markdown_to_html(
        bytes.map { CChar(bitPattern: $0) }, bytes.count, options.rawValue)
    else { return "<nil>" }
    defer { free(html) }
    return String(cString: html)
  }

  @Test("with the default, safe options every example renders as libcmark alone does")
  func safeOptions() throws {
    for example in try CommonMarkExample.all + CommonMarkExample.smart {
      for options: Markdown.Options in [.default, [.default, .sourcePosition, .smart]] {
        #expect(
          Markdown.html(from: example.markdown, options: options)
            == Self.reference(example.markdown, options), "\(example)")
      }
    }
  }

  @Test("documents far larger than an arena chunk, and many threads at once")
  func largeAndConcurrent() throws {
    let big = (0..<20_000).map { "- item **\($0)** with [a link](u\($0))\n" }.joined()
    #expect(Markdown.html(from: big) == Self.reference(big, .default))
    let examples = try CommonMarkExample.all
    let mismatches = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for example in examples.shuffled() {
        if Markdown.html(from: example.markdown) != Self.reference(example.markdown, .default) {
          mismatches.add(1, ordering: .relaxed)
        }
      }
    }
    #expect(mismatches.load(ordering: .relaxed) == 0)
  }
}
