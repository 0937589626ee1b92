import CCmark

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Renders CommonMark to HTML through libcmark.
///
/// The default options are safe: raw HTML in the source becomes a comment and
/// `javascript:`, `vbscript:`, `file:` and `data:` links become empty, so text from a
/// database never reaches the page as markup.
public enum Markdown {
  /// libcmark's render options. Rendering unsafe HTML is a named, explicit option.
  public struct Options: OptionSet, Sendable {
    public let rawValue: Int32

    public init(rawValue: Int32) {
      self.rawValue = rawValue
    }

    /// Adds `data-sourcepos` attributes to block elements.
    public static let sourcePosition = Options(rawValue: CMARK_OPT_SOURCEPOS)
    /// Renders soft line breaks as hard breaks.
    public static let hardBreaks = Options(rawValue: CMARK_OPT_HARDBREAKS)
    /// Renders soft line breaks as spaces.
    public static let noBreaks = Options(rawValue: CMARK_OPT_NOBREAKS)
    /// Replaces invalid UTF-8 with U+FFFD before parsing.
    public static let validateUTF8 = Options(rawValue: CMARK_OPT_VALIDATE_UTF8)
    /// Turns straight quotes, `--` and `...` into typographic punctuation.
    public static let smart = Options(rawValue: CMARK_OPT_SMART)
    /// Lets raw HTML and dangerous link schemes through. Never use it on untrusted text.
    public static let unsafeRawHTML = Options(rawValue: CMARK_OPT_UNSAFE)

    /// The options taskpress renders with: safe, with UTF-8 validation.
    public static let `default`: Options = [.validateUTF8]
  }

  /// Renders `source` as HTML.
  ///
  /// - Parameters:
  ///   - source: CommonMark text.
  ///   - options: cmark options; safe unless ``Options/unsafeRawHTML`` is given.
  /// - Returns: The HTML, or an empty string if libcmark could not allocate its result.
  public static func html(from source: String, options: Options = .default) -> String {
    let rendered = source.utf8.withContiguousStorageIfAvailable { bytes in
      render(UnsafeRawBufferPointer(bytes), options: options)
    }
    if let rendered { return rendered }
    return Array(source.utf8).withUnsafeBytes { render($0, options: options) }
  }

  /// Renders the UTF-8 text in `source` as HTML, as UTF-8 bytes; see
  /// ``html(from:options:)``. With ``Options/validateUTF8`` (the default) the bytes
  /// are valid UTF-8 whatever `source` holds.
  public static func htmlBytes(from source: [UInt8], options: Options = .default) -> [UInt8] {
    source.withUnsafeBytes { bytes in
      render(bytes, options: options) { Array($0) } ?? []
    }
  }

  private static func render(_ bytes: UnsafeRawBufferPointer, options: Options) -> String {
    render(bytes, options: options) { String(decoding: $0, as: UTF8.self) } ?? ""
  }

  /// Renders `bytes` and hands the HTML to `body` before libcmark's memory is dropped; nil if
  /// libcmark could not allocate.
  private static func render<Result>(
    _ bytes: UnsafeRawBufferPointer, options: Options,
    _ body: (UnsafeRawBufferPointer) -> Result
  ) -> Result? {
    let rendered = withDocument(bytes, options: options) { document -> Result? in
      guard let html = cmark_render_html(document, options.rawValue) else { return nil }
      return body(UnsafeRawBufferPointer(start: html, count: strlen(html)))
    }
    return rendered ?? nil
  }

  /// Parses `source` and hands the document to `body`; nil if libcmark could not allocate.
  /// The document, and anything made from it, is dropped when `body` returns.
  static func withDocument<Result>(
    _ source: [UInt8], options: Options, _ body: (OpaquePointer) -> Result
  ) -> Result? {
    source.withUnsafeBytes { withDocument($0, options: options, body) }
  }

  private static func withDocument<Result>(
    _ bytes: UnsafeRawBufferPointer, options: Options, _ body: (OpaquePointer) -> Result
  ) -> Result? {
    // cmark reads `len` bytes and never dereferences the pointer when `len` is 0.
    let empty: StaticString = ""
    let start = bytes.baseAddress ?? UnsafeRawPointer(empty.utf8Start)
    // Everything libcmark allocates comes from this thread's arena and is dropped at once when
    // the HTML has been copied out; nothing is freed one by one.
    let arena = MarkdownArena.current
    defer { arena.reset() }
    guard let parser = cmark_parser_new_with_mem(options.rawValue, MarkdownArena.allocator) else {
      return nil
    }
    cmark_parser_feed(parser, start.assumingMemoryBound(to: CChar.self), bytes.count)
    guard let document = cmark_parser_finish(parser) else { return nil }
    return body(document)
  }

  /// The version of the libcmark linked in, e.g. `0.30.2`.
  public static var libraryVersion: String {
    guard let version = cmark_version_string() else { return "unknown" }
    return String(cString: version)
  }
}
