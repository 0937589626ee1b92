import Foundation
import JSONEscaping
import Testing

/// The one JSON string writer (`JSONText`) against plain twins: the scalar-by-scalar writers it
/// replaced (the data files' and build report's, the feed's and `serve`'s script-safe one, the
/// history's), byte for byte, over every ASCII character, the line separators and random text.
@Suite struct JSONTextTests {
  /// The plain writer: each scalar escaped as the replaced writers did.
  static func plain(_ text: String, delete: Bool, script: Bool) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      // (A `where` holds for the last pattern of a list only: one pattern here.)
      case let other where script && "<>&\u{2028}\u{2029}".unicodeScalars.contains(other):
        result += unicodeEscape(scalar.value)
      case "\u{7F}" where delete: result += unicodeEscape(scalar.value)
      default:
        if scalar.value < 0x20 {
          result += unicodeEscape(scalar.value)
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result + "\""
  }

  static func unicodeEscape(_ value: UInt32) -> String {
    let hex = String(value, radix: 16, uppercase: false)
    return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
  }

  /// Every ASCII character alone and together, the separators and their near neighbours
  /// (U+2027, U+202A, U+20AC share the lead byte E2), and seeded random text of those and
  /// other scripts.
  static let samples: [String] = {
    var samples = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
    samples += [
      "", String((0..<0x80).map { Character(UnicodeScalar(UInt8($0))) }), "\u{2028}", "\u{2029}",
      "\u{2027}", "\u{202A}", "€", "a\u{2028}b\u{2029}c", "</script><!--", "ü日本語🙂", "\u{FEFF}",
      "x\u{7F}y",
    ]
    let pieces: [String] = [
      "a", "\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{1F}", "\u{7F}", "<", ">", "&", "\u{2028}",
      "\u{2029}", "€", "ü", "日", "🙂", " ", "/", "'",
    ]
    var state: UInt64 = 0x5EED
    for _ in 0..<500 {
      var text = ""
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      for _ in 0..<Int(state >> 59) {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        text += pieces[Int(state >> 33) % pieces.count]
      }
      samples.append(text)
    }
    return samples
  }()

  @Test("the same bytes as the plain writer, for each set of escapes")
  func sameAsPlain() {
    for text in Self.samples {
      #expect(JSONText.quoted(text, []) == Self.plain(text, delete: false, script: false))
      #expect(JSONText.quoted(text, .delete) == Self.plain(text, delete: true, script: false))
      #expect(JSONText.quoted(text, .script) == Self.plain(text, delete: false, script: true))
      var bytes: [UInt8] = [1]
      JSONText.appendEscaped(text, .delete, to: &bytes)
      #expect(
        bytes == [1]
          + Array(Self.plain(text, delete: true, script: false).utf8.dropFirst().dropLast()))
    }
  }

  @Test("what it writes is JSON that reads back as the text")
  func readsBack() throws {
    // (Foundation's reader drops a byte order mark even inside a string.)
    for text in Self.samples where !text.unicodeScalars.contains("\u{FEFF}") {
      for escapes: JSONText.Escapes in [[], .delete, .script] {
        let data = Data(("[" + JSONText.quoted(text, escapes) + "]").utf8)
        let read = try #require(try JSONSerialization.jsonObject(with: data) as? [String])
        #expect(read == [text])
      }
    }
  }
}
