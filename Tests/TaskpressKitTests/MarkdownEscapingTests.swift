import Foundation
import Mustache
import Testing

@testable import TaskpressKit

/// The safety property for values in templates: whatever a value holds, `{{s}}` shows exactly
/// that text and creates no markup.
@Suite struct MarkdownEscapingTests {
  static let hostile = [
    "# ", "## heading", "> ", "- ", "+ ", "* ", "1. ", "1) ", "```", "~~~", "    code", "\tcode",
    "---", "===", "***", "___", "| a | b |", "[x]: /url", "[link](javascript:alert(1))",
    "<script>alert(1)</script>", "<b>", "</p>", "<!-- c -->", "&amp;", "&lt;", "&#60;", "&",
    "\"", "'", "`code`", "*em*", "_em_", "**strong**", "\\", "\\\n", "{{tags}}", "{{{x}}}",
    "\u{202E}", "\u{200B}", "é", "日本", "😀", "\n", "\r\n", "\r", "\n\n", "  ", "   ", "\t",
    "<http://example.com>", "https://example.com", "![img](x.png)", "a  \nb", "=", "-", "0.",
    "\u{7}", "\u{1B}[31m", "\u{7F}", "\u{C}", "\u{B}", "\u{A0}", "&nbsp;", "<?php", "<![CDATA[",
    "\u{0}", "\u{85}", noncharacters,
  ]

  /// U+FDD0, U+FFFF and U+10FFFE (which a Swift literal cannot hold).
  static let noncharacters = String(
    String.UnicodeScalarView([0xFDD0, 0xFFFF, 0x10FFFE].compactMap(Unicode.Scalar.init)))

  static let punctuation = Array("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

  static func randomString(using generator: inout SeededGenerator) -> String {
    var text = ""
    for _ in 0..<Int.random(in: 1...6, using: &generator) {
      switch Int.random(in: 0..<4, using: &generator) {
      case 0:
        for _ in 0..<Int.random(in: 1...8, using: &generator) {
          let scalar = Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &generator))
          text.unicodeScalars.append(scalar)
        }
      case 1:
        text.append(punctuation.randomElement(using: &generator) ?? "#")
      default:
        text += hostile.randomElement(using: &generator) ?? "#"
      }
    }
    return text
  }

  static let strings: [String] = {
    var generator = SeededGenerator(seed: 2024)
    return hostile + [String(punctuation)] + (0..<3000).map { _ in randomString(using: &generator) }
  }()

  /// The lines of a value as the Markdown escaping keeps them: line breaks (`\r\n`, `\r`,
  /// `\n`) separate lines; line breaks at the very end are dropped.
  static func lines(of value: String) -> [String] {
    var text = value.replacingOccurrences(of: "\r\n", with: "\n")
      .replacingOccurrences(of: "\r", with: "\n")
    while text.hasSuffix("\n") { text.removeLast() }
    return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  /// `value` as a page shows it: code points HTML forbids in a document become their Control
  /// Pictures symbol (`␇`), or U+FFFD where there is none.
  static func visible(_ value: String) -> String {
    String(
      String.UnicodeScalarView(
        value.unicodeScalars.map { scalar in
          switch scalar.value {
          case 0x01...0x08, 0x0B, 0x0E...0x1F: Unicode.Scalar(0x2400 + scalar.value) ?? scalar
          case 0x7F: "\u{2421}"
          case 0x00, 0x80...0x9F, 0xFDD0...0xFDEF: "\u{FFFD}"
          case let code where code & 0xFFFE == 0xFFFE: "\u{FFFD}"
          default: scalar
          }
        }))
  }

  /// cmark's HTML escaping of text.
  static func escapeHTML(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
  }

  @Test("a value in a .md template renders as exactly its text in one paragraph")
  func markdown() throws {
    let template = try Template(source: "{{s}}", name: "todo.md")
    for value in Self.strings {
      let html = Markdown.html(from: try template.render(["s": .string(value)]))
      let lines = Self.lines(of: Self.visible(value))
      let expected =
        lines == [""]
        ? "" : "<p>" + lines.map(Self.escapeHTML).joined(separator: "<br />\n") + "</p>\n"
      #expect(html == expected, "value: \(value.debugDescription)")
      #expect(
        Self.elements(in: html).isSubset(of: ["p", "br"]), "value: \(value.debugDescription)")
      #expect(
        Self.decodeText(of: html) == lines.joined(separator: "\n") + (lines == [""] ? "" : "\n"))
    }
  }

  @Test("a value in a .md template stays in its paragraph between template text")
  func markdownInContext() throws {
    let template = try Template(source: "Task: {{s}} (done)\n\nNext", name: "todo.md")
    for value in Self.strings {
      let html = Markdown.html(from: try template.render(["s": .string(value)]))
      #expect(
        Self.elements(in: html).isSubset(of: ["p", "br"]), "value: \(value.debugDescription)")
      #expect(html.hasSuffix("<p>Next</p>\n"), "value: \(value.debugDescription)")
      #expect(html.components(separatedBy: "<p>").count == 3, "value: \(value.debugDescription)")
    }
  }

  @Test("a value in a .html template reads back as exactly its text") func html() throws {
    let template = try Template(
      source: "<p title=\"{{s}}\" data-x='{{s}}'>{{s}}</p>", name: "t.html")
    for value in Self.strings {
      let html = try template.render(["s": .string(value)])
      let escaped = Self.escapeHTML(Self.visible(value))
        .replacingOccurrences(of: "'", with: "&#39;")
      #expect(html == "<p title=\"\(escaped)\" data-x='\(escaped)'>\(escaped)</p>")
      #expect(!escaped.contains("<") && !escaped.contains("\"") && !escaped.contains("'"))
      #expect(Self.decodeEntities(escaped) == Self.visible(value))
    }
  }

  /// The names of the elements in `html`.
  static func elements(in html: String) -> Set<String> {
    var names: Set<String> = []
    var rest = html[...]
    while let open = rest.firstIndex(of: "<") {
      let after = rest[rest.index(after: open)...]
      let name = after.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter || $0.isNumber })
      names.insert(name.isEmpty ? String(after.prefix(4)) : name.lowercased())
      rest = after
    }
    return names
  }

  /// The text of `html`: tags removed, character references decoded.
  static func decodeText(of html: String) -> String {
    var text = ""
    var inTag = false
    for character in html {
      if character == "<" {
        inTag = true
      } else if character == ">" && inTag {
        inTag = false
      } else if !inTag {
        text.append(character)
      }
    }
    return decodeEntities(text)
  }

  static func decodeEntities(_ text: String) -> String {
    var output = ""
    var rest = text[...]
    while let ampersand = rest.firstIndex(of: "&") {
      output += rest[..<ampersand]
      rest = rest[ampersand...]
      guard let semicolon = rest.firstIndex(of: ";") else { break }
      let name = rest[rest.index(after: rest.startIndex)..<semicolon]
      let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "#39": "'"]
      if let decoded = named[String(name)] {
        output += decoded
      } else if name.hasPrefix("#x"), let code = UInt32(name.dropFirst(2), radix: 16),
        let scalar = Unicode.Scalar(code)
      {
        output.unicodeScalars.append(scalar)
      } else if name.hasPrefix("#"), let code = UInt32(name.dropFirst()),
        let scalar = Unicode.Scalar(code)
      {
        output.unicodeScalars.append(scalar)
      } else {
        output += "&"
        rest = rest.dropFirst()
        continue
      }
      rest = rest[rest.index(after: semicolon)...]
    }
    return output + rest
  }
}

/// A deterministic random number generator (SplitMix64), so a failing case reproduces.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}
