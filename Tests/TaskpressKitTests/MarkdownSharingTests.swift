import Mustache
import Testing

@testable import TaskpressKit

/// Pages rendered through kept shapes are byte for byte what cmark renders from their text.
@Suite struct MarkdownSharingTests {
  /// A Markdown template's render with its values set aside, as a page makes it.
  struct Page {
    var text: [UInt8] = []
    var values = SetAsideValues(escaping: .markdown)
    /// What a plain render writes: the values escaped for Markdown in their places.
    var source: [UInt8] = []

    /// `texts` with `values` between them; an empty value is not noted, as in a render.
    init(_ texts: [String], _ values: [String]) {
      for (index, piece) in texts.enumerated() {
        text.append(contentsOf: piece.utf8)
        source.append(contentsOf: piece.utf8)
        guard index < values.count else { continue }
        var value = values[index]
        let place = text.count
        value.withUTF8 { if !$0.isEmpty { self.values.append($0, at: place) } }
        Escaping.markdown.append(value, to: &source)
      }
    }

    var cmark: [UInt8] { Markdown.htmlBytes(from: source) }

    func rendered(by shapes: MarkdownSharing) -> [UInt8] {
      shapes.htmlBytes(from: text, values: values)
    }
  }

  /// Values of every kind: words, punctuation, digits, UTF-8 letters and symbols, spaces and
  /// line breaks at the ends, things that look like markup.
  static let specialValues = [
    "Buy milk", "Call Dad about the holiday plans *urgent*", "re: Saturday", "Install eggs #work",
    "1", "12", "2024", "a", "Søren", "日本語", "🙂", "☐", "…", "«quoted»", "x—y", "*", "_", "\\",
    "&amp;", "&", "<b>bold</b>", "http://example.com", "javascript:alert(1)", "../todos/5.html",
    "todos/5.html", "a b", " a", "a ", "a  b", "a\tb", "line\nbreak", "`code`", "[link](x)",
    "![image](x)", "# heading", "- item", "1. item", "> quote", "---", "===", "a_b_c", "**",
    "x\u{00A0}", "\u{00A0}x", "ǅ", "Ⅻ", "\u{0301}", "%20", "a?b=c#d", "~tilde~", "+plus+",
    "a\"b", "'single'", "a;b", "\u{7}", "\u{FFFE}",
  ]

  static func randomValue(_ generator: inout SeededGenerator) -> String {
    if Int.random(in: 0..<3, using: &generator) == 0 {
      return specialValues[Int.random(in: 0..<specialValues.count, using: &generator)]
    }
    let alphabet = Array(
      "abcXYZ0189 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~éß日…—☐🙂\u{00A0}\t\n")
    let length = Int.random(in: 1...10, using: &generator)
    return String(
      (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
  }

  /// Templates that put values everywhere a template can: text, emphasis, links, headings,
  /// lists, code, raw HTML, references, beside each other.
  static let templates: [[String]] = [
    [
      "", "\n===\n\n- Priority: **", "**\n- Status: ", " ", "\n\n[← Previous: ", "](",
      ") · [Next: ",
      " →](", ")\n",
    ],
    ["*", "*"], ["**", "**"], ["_", "_"], ["foo_", "_bar"], ["\\", "x"], ["x", "\\"],
    ["", ". x"], ["", ") x"], ["1", ". x"], ["# ", ""], ["# ", " #"], ["", "\n---\n"],
    ["> ", ""], ["- ", ""], ["* a\n* ", ""], ["[", "](", ")"], ["![", "](", ")"],
    ["[x](", " \"", "\")"], ["`", "`"], ["    ", ""], ["```\n", "\n```"], ["``` ", "\n```"],
    ["<span>", "</span>"], ["&", ";"], ["[", "]: /url\n\n[", "]"], ["", ""], ["*", "", "*"],
    ["<", ">"], ["[x](<", ">)"], ["[x](", "/y)"], ["[x](", ":alert)"], ["[x](java", ")"],
    ["a", "b"], ["[", "][]"], ["[", "]"], ["", "\n\n", "\n"], ["***", "***"], ["__", "__"],
    ["a*", "*b"], ["*", " *"], ["[", "](", " '", "')"], ["", "  \nx"], ["x  \n", ""],
    ["1) ", ""], ["10", ")"], ["", "\n\n    code"], ["!", ""], ["", "!"], ["[a](b)", "(c)"],
  ]

  @Test("templates with values everywhere render as cmark renders their text")
  func templatesMatchCmark() {
    var generator = SeededGenerator(seed: 0x5EED_5A9E)
    for texts in Self.templates {
      let shapes = MarkdownSharing()
      for _ in 0..<60 {
        let values = (1..<texts.count).map { _ in Self.randomValue(&generator) }
        let page = Page(texts, values)
        #expect(
          page.rendered(by: shapes) == page.cmark,
          "template \(texts) values \(values)")
      }
    }
  }

  @Test("every CommonMark example with a value put in renders as cmark renders it")
  func specExamplesMatchCmark() {
    var generator = SeededGenerator(seed: 0xC0DE)
    var reused = 0
    for example in CommonMarkExample.all {
      let text = Array(example.markdown.unicodeScalars)
      // At the start, in the middle and at the end, and at a place chosen at random.
      for cut in Set([
        0, text.count / 2, text.count, Int.random(in: 0...text.count, using: &generator),
      ]) {
        let texts = [
          String(String.UnicodeScalarView(text[..<cut])),
          String(String.UnicodeScalarView(text[cut...])),
        ]
        let shapes = MarkdownSharing()
        for _ in 0..<8 {
          let page = Page(texts, [Self.randomValue(&generator)])
          #expect(
            page.rendered(by: shapes) == page.cmark,
            "\(example), value at \(cut): \(String(decoding: page.source, as: UTF8.self))")
        }
        reused += shapes.counts.reused
      }
    }
    // The shapes are used, not only tried.
    #expect(reused > 1000)
  }

  @Test("pages of one template share a shape")
  func reuse() throws {
    let shapes = MarkdownSharing()
    let texts = Self.templates[0]
    for number in 0..<100 {
      let values = [
        "Task \(number)", "High", "☐", "In progress", "Task \(number - 1)",
        "../todos/\(number - 1).html", "Task \(number + 1)", "../todos/\(number + 1).html",
      ]
      let page = Page(texts, values)
      #expect(page.rendered(by: shapes) == page.cmark)
    }
    #expect(shapes.counts == MarkdownSharing.Counts(reused: 99, learned: 1, direct: 0))
    // A value the shape cannot stand for goes to cmark, and the shape stays.
    let odd = Page(texts, ["`code`", "High", "☐", "Done", "a", "b", "c", "d"])
    #expect(odd.rendered(by: shapes) == odd.cmark)
    #expect(shapes.counts.direct == 1)
    let page = Page(texts, ["Task", "Low", "☑", "Done", "a", "b", "c", "d"])
    #expect(page.rendered(by: shapes) == page.cmark)
    #expect(shapes.counts.reused == 100)
  }

  @Test("beside emphasis a value must start and end like a word; else cmark renders it")
  func edgeRules() {
    let shapes = MarkdownSharing()
    let texts = ["Priority: **", "**"]
    for value in ["High", "High!", "«High»", "Høj", "!High", "高", "9"] {
      let page = Page(texts, [value])
      #expect(page.rendered(by: shapes) == page.cmark, "\(value)")
    }
    #expect(shapes.counts == MarkdownSharing.Counts(reused: 3, learned: 1, direct: 3))
  }

  @Test("raw HTML, character references, references and code keep a template out")
  func templatesKeptOut() {
    for texts in [
      ["<em>", "</em>"], ["&copy; ", ""], ["[", "]\n\n[a]: /url"], ["`", "`"], ["    ", ""],
      ["[x](y \"", "\")"],
    ] {
      let shapes = MarkdownSharing()
      for value in ["one", "two", "three"] {
        let page = Page(texts, [value])
        #expect(page.rendered(by: shapes) == page.cmark)
      }
      #expect(shapes.counts.reused == 0, "\(texts)")
    }
  }

  @Test("a template whose pages all differ stops looking for shapes")
  func stopsWhenNotReused() {
    let shapes = MarkdownSharing()
    for number in 0..<(MarkdownSharing.trial + 10) {
      // The number is template text here (as an unescaped value would be).
      let page = Page(["Page \(number): ", ""], ["value"])
      #expect(page.rendered(by: shapes) == page.cmark)
    }
    #expect(shapes.counts.learned == MarkdownSharing.trial)
    #expect(shapes.counts.direct == 10)
  }

  @Test("the byte sets are the characters they name")
  func byteSets() {
    func members(_ set: MarkdownSharing.ASCIISet) -> String {
      String(decoding: (0..<128).map(UInt8.init).filter(set.contains), as: UTF8.self)
    }
    let digits = "0123456789"
    let upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    let lower = "abcdefghijklmnopqrstuvwxyz"
    #expect(members(.letterOrDigit) == digits + upper + lower)
    #expect(
      members(.textAsIs) == " !#$%'()*+,-./" + digits + ":;=?@" + upper + "[\\]^_" + lower + "{|}~")
    #expect(members(.destination) == "#%+-./" + digits + "=?" + upper + "_" + lower + "~")
    #expect(!MarkdownSharing.ASCIISet.textAsIs.contains(0xC3))
  }

  @Test("eight bytes are taken at once exactly when each byte is one text shows as it is")
  func wordsAsIs() {
    var generator = SeededGenerator(seed: 3)
    // Bytes next to the edges of the set, and the set's own.
    let interesting: [UInt8] = [
      0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x25, 0x26, 0x27, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x5F,
      0x60, 0x61, 0x7E, 0x7F, 0x80, 0xC3, 0xFF, 0x41, 0x7A,
    ]
    for _ in 0..<50_000 {
      let bytes = (0..<8).map { _ in
        Bool.random(using: &generator)
          ? interesting[Int.random(in: 0..<interesting.count, using: &generator)]
          : UInt8.random(in: 0x20...0x7E, using: &generator)
      }
      let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
      #expect(
        Shape.isTextAsIs(word) == bytes.allSatisfy(MarkdownSharing.ASCIISet.textAsIs.contains),
        "\(bytes)")
    }
  }

  @Test("values set aside, escaped back, are what a plain render writes")
  func escapedBack() {
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<500 {
      let texts = ["# ", " and ", "\n\n- ", ""]
      let page = Page(texts, (0..<3).map { _ in Self.randomValue(&generator) })
      #expect(page.values.escaped(into: page.text) == page.source)
    }
  }

  @Test("cmark writes the destination characters as they are, and escapes these in text")
  func cmarkEscaping() {
    for byte in "#%+-./=?_~".utf8 {
      let character = String(UnicodeScalar(byte))
      let html = Markdown.html(from: "[x](a\\\(character)b)")
      #expect(html == "<p><a href=\"a\(character)b\">x</a></p>\n", "\(character)")
    }
    for (character, reference) in [("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\"", "&quot;")] {
      #expect(Markdown.html(from: "a\\\(character)b") == "<p>a\(reference)b</p>\n")
    }
    #expect(Markdown.html(from: "a\\'b") == "<p>a'b</p>\n")
  }
}
