import CCmark
import Mustache

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A database text declared Markdown (`BuildOptions.markdown`), rendered inline: emphasis,
/// strong emphasis, code spans and links, nothing else.
///
/// libcmark parses the text (safe options) and the tree is written here, so that only what is
/// listed can become markup:
/// - a text that is not one paragraph (a heading, a list, a quote, a code block, a thematic
///   break, raw HTML as a block) is written as text, whole;
/// - raw inline HTML is written as text; an image is written as its description;
/// - a link is a link only to `http:`, `https:` or `mailto:`, with `rel="nofollow noopener"`;
///   another destination (`javascript:`, `data:`, a relative one) leaves its text alone;
/// - hard and soft line breaks are spaces.
///
/// Every text is HTML-escaped as `{{value}}` escapes it (`Escaping.html`).
enum InlineMarkdown {
  /// `source` as inline HTML; without links (their text only) when `links` is false, for a
  /// place inside a link of the template (a to-do's title on a list).
  static func html(_ source: String, links: Bool = true) -> String {
    let bytes = Array(source.utf8)
    let rendered = Markdown.withDocument(bytes, options: .default) { document -> [UInt8]? in
      guard let paragraph = cmark_node_first_child(document),
        cmark_node_get_type(paragraph) == CMARK_NODE_PARAGRAPH,
        cmark_node_next(paragraph) == nil
      else { return nil }
      var out: [UInt8] = []
      out.reserveCapacity(bytes.count + 16)
      writeChildren(of: paragraph, links: links, into: &out)
      return out
    }
    guard let rendered = rendered ?? nil else {
      // Empty, or blocks: the text as it is.
      var out: [UInt8] = []
      escape(bytes[...], into: &out)
      return String(decoding: out, as: UTF8.self)
    }
    return String(decoding: rendered, as: UTF8.self)
  }

  /// `source` as Markdown that cmark renders as `html(source, links: false)` renders it (for a
  /// Markdown template, whose raw HTML cmark would drop): every text escaped
  /// (`Escaping.markdown`), emphasis as `*` and `**`, code spans with a fence longer than any
  /// run of backticks in them, links and images as their text; a text that is not one
  /// paragraph escaped whole, as `{{value}}` escapes it in a `.md` template.
  static func markdown(_ source: String) -> String {
    let written = Markdown.withDocument(Array(source.utf8), options: .default) {
      document -> String? in
      guard let paragraph = cmark_node_first_child(document),
        cmark_node_get_type(paragraph) == CMARK_NODE_PARAGRAPH,
        cmark_node_next(paragraph) == nil
      else { return nil }
      var out = ""
      writeMarkdownChildren(of: paragraph, into: &out)
      return out
    }
    return (written ?? nil) ?? Escaping.markdown.escape(source)
  }

  private static func writeMarkdownChildren(of node: OpaquePointer, into out: inout String) {
    var child = cmark_node_first_child(node)
    while let current = child {
      writeMarkdown(current, into: &out)
      child = cmark_node_next(current)
    }
  }

  private static func writeMarkdown(_ node: OpaquePointer, into out: inout String) {
    switch cmark_node_get_type(node) {
    case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK:
      if !isAtEdge(node) { out += " " }
    case CMARK_NODE_CODE:
      let code = visible(String(decoding: literal(node), as: UTF8.self))
      var longest = 0
      var run = 0
      for character in code.utf8 {
        run = character == UInt8(ascii: "`") ? run + 1 : 0
        longest = max(longest, run)
      }
      let fence = String(repeating: "`", count: longest + 1)
      // cmark drops one space at each end when both ends have one and the code is not all
      // spaces: a space at each end keeps a backtick or a space at either end.
      let pad =
        !code.allSatisfy { $0 == " " }
        && (code.hasPrefix("`") || code.hasSuffix("`")
          || (code.hasPrefix(" ") && code.hasSuffix(" ")))
      out += fence + (pad ? " " : "") + code + (pad ? " " : "") + fence
    case CMARK_NODE_EMPH:
      out += "*"
      writeMarkdownChildren(of: node, into: &out)
      out += "*"
    case CMARK_NODE_STRONG:
      out += "**"
      writeMarkdownChildren(of: node, into: &out)
      out += "**"
    case CMARK_NODE_LINK:
      writeMarkdownChildren(of: node, into: &out)
    case CMARK_NODE_IMAGE:
      var text: [UInt8] = []
      plainText(of: node, into: &text)
      out += Escaping.markdown.escape(String(decoding: text, as: UTF8.self))
    default:
      // Text, raw HTML, and anything else as its text.
      out += Escaping.markdown.escape(String(decoding: literal(node), as: UTF8.self))
      writeMarkdownChildren(of: node, into: &out)
    }
  }

  /// `text` with the code points HTML forbids as visible symbols, as `Escaping` shows them
  /// (code spans are not escaped).
  static func visible(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isForbidden) else { return text }
    return String(
      String.UnicodeScalarView(
        text.unicodeScalars.map { scalar in
          guard isForbidden(scalar) else { return scalar }
          switch scalar.value {
          case 0x01...0x08, 0x0B, 0x0E...0x1F:
            return Unicode.Scalar(0x2400 + scalar.value) ?? scalar
          case 0x7F: return "\u{2421}"
          default: return "\u{FFFD}"
          }
        }))
  }

  private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x08, 0x0B, 0x0E...0x1F, 0x7F...0x9F, 0xFDD0...0xFDEF: true
    case let code where code & 0xFFFE == 0xFFFE: true
    default: false
    }
  }

  /// The schemes a link may have, lowercased.
  static let schemes = ["http:", "https:", "mailto:"]

  /// Whether `url` (as cmark gives it: character references and escapes resolved) is a link
  /// taskpress writes.
  static func isAllowed(_ url: [UInt8]) -> Bool {
    let lowered = url.prefix(8).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    return schemes.contains { lowered.starts(with: $0.utf8) && url.count > $0.utf8.count }
  }

  private static func writeChildren(of node: OpaquePointer, links: Bool, into out: inout [UInt8]) {
    var child = cmark_node_first_child(node)
    while let current = child {
      write(current, links: links, into: &out)
      child = cmark_node_next(current)
    }
  }

  private static func write(_ node: OpaquePointer, links: Bool, into out: inout [UInt8]) {
    switch cmark_node_get_type(node) {
    case CMARK_NODE_TEXT, CMARK_NODE_HTML_INLINE:
      escape(literal(node)[...], into: &out)
    case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK:
      if !isAtEdge(node) { out.append(0x20) }
    case CMARK_NODE_CODE:
      out += Array("<code>".utf8)
      escape(literal(node)[...], into: &out)
      out += Array("</code>".utf8)
    case CMARK_NODE_EMPH:
      out += Array("<em>".utf8)
      writeChildren(of: node, links: links, into: &out)
      out += Array("</em>".utf8)
    case CMARK_NODE_STRONG:
      out += Array("<strong>".utf8)
      writeChildren(of: node, links: links, into: &out)
      out += Array("</strong>".utf8)
    case CMARK_NODE_LINK:
      let url = cString(cmark_node_get_url(node))
      guard links, isAllowed(url) else {
        writeChildren(of: node, links: links, into: &out)
        return
      }
      out += Array("<a href=\"".utf8)
      escapeURL(url, into: &out)
      out += Array("\" rel=\"nofollow noopener\">".utf8)
      // No link inside a link (cmark makes none, but an autolink's text is its URL).
      writeChildren(of: node, links: false, into: &out)
      out += Array("</a>".utf8)
    case CMARK_NODE_IMAGE:
      var text: [UInt8] = []
      plainText(of: node, into: &text)
      escape(text[...], into: &out)
    default:
      // Blocks do not come inside a paragraph; anything else is written as its text.
      escape(literal(node)[...], into: &out)
      writeChildren(of: node, links: links, into: &out)
    }
  }

  /// Whether a line break is the first or last thing of the paragraph (a backslash at the end
  /// of the text's first line): it is written as nothing, as cmark drops a paragraph's spaces
  /// at its ends.
  private static func isAtEdge(_ node: OpaquePointer) -> Bool {
    guard let parent = cmark_node_parent(node),
      cmark_node_get_type(parent) == CMARK_NODE_PARAGRAPH
    else { return false }
    return cmark_node_previous(node) == nil || cmark_node_next(node) == nil
  }

  /// The text of `node`'s descendants, unescaped: an image's description.
  private static func plainText(of node: OpaquePointer, into out: inout [UInt8]) {
    var child = cmark_node_first_child(node)
    while let current = child {
      switch cmark_node_get_type(current) {
      case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK: out.append(0x20)
      default:
        out += literal(current)
        plainText(of: current, into: &out)
      }
      child = cmark_node_next(current)
    }
  }

  private static func literal(_ node: OpaquePointer) -> [UInt8] {
    cString(cmark_node_get_literal(node))
  }

  private static func cString(_ pointer: UnsafePointer<CChar>?) -> [UInt8] {
    guard let pointer else { return [] }
    return Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
  }

  /// `text` escaped as `{{value}}` escapes it in an HTML template (`Escaping.html`): `&`, `<`,
  /// `>`, `"`, `'` as character references, control characters as visible symbols.
  static func escape(_ text: ArraySlice<UInt8>, into out: inout [UInt8]) {
    Escaping.html.append(String(decoding: text, as: UTF8.self), to: &out)
  }

  /// A URL for an `href`: bytes outside the URL characters percent-encoded (as cmark's HTML
  /// writer does), `&` and `'` as character references.
  static func escapeURL(_ url: [UInt8], into out: inout [UInt8]) {
    let hex = Array("0123456789ABCDEF".utf8)
    let safe = Set("-_.+!*(),%#@?=;:/$~".utf8)
    for byte in url {
      if byte == UInt8(ascii: "&") {
        out += Array("&amp;".utf8)
      } else if byte == UInt8(ascii: "'") {
        out += Array("&#39;".utf8)
      } else if (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
        || (0x61...0x7A).contains(byte) || safe.contains(byte)
      {
        out.append(byte)
      } else {
        out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
      }
    }
  }
}
