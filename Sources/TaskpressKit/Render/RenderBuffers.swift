import Mustache

/// What a render thread keeps from page to page: the room for a page's body and for the values
/// its Markdown sets aside, the to-do page values it moves from page to page, and the last
/// page's templates. Used by one thread, with one `PageRenderer` (the templates it remembers
/// are that renderer's, found by chromes that renderer keeps alive).
final class RenderBuffers {
  /// The body of the page, rendered before the layout.
  @exclusivity(unchecked) var body = RenderBuffer(capacity: RenderBuffers.bodyRoom)
  /// The room kept for bodies: a larger one (the board's) is let go once it is in the page.
  static let bodyRoom = 16 << 10
  @exclusivity(unchecked) var setAside = SetAsideValues(escaping: .markdown)
  /// The page values that pages of one kind and folder share, moved from page to page.
  let values = ReusedPageValues()
  /// The templates the last page was rendered with, and for which chrome and kind: the next
  /// page of the same folder takes them without a lookup, a lock or a copy.
  @exclusivity(unchecked) var lastPair: (chrome: ObjectIdentifier, kind: PageKind, TemplatePair)?

  init() {}
}
