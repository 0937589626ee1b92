import Mustache

/// Links from one page to the pages of a section's rows (`todos/7.html`, `possessions/12/`):
/// the same for every id but for the id itself, so each is the page's prefix, the id and the
/// suffix, written straight into one string.
struct RowLinks: Sendable {
  let prefix: [UInt8]
  let suffix: [UInt8]
  /// The link of the page's own row, when the page is one: with pretty URLs it is `./`.
  let own: (id: Int64, link: String)?

  /// Makes the links to the rows of `section` (`todos`) from the page in `file`.
  init(
    section: String, routes: Routes, fromFile file: String, ownID: Int64?,
    ownName: String? = nil
  ) {
    own = ownID.map { ($0, routes.link(to: "\(section)/\(ownName ?? String($0))", fromFile: file)) }
    // Make the link to `section/x` and keep what is around the `x`.
    (prefix, suffix) = Self.split(routes.link(to: section + "/x", fromFile: file))
  }

  /// Makes the links to the files of the folder `folder` (`photos/`) from the page in `file`;
  /// `link` is not used with them, `withFile(named:_:)` is.
  init(assetsIn folder: String, routes: Routes, fromFile file: String) {
    own = nil
    (prefix, suffix) = Self.split(routes.asset(folder + "x", fromFile: file))
  }

  private static func split(_ sample: String) -> ([UInt8], [UInt8]) {
    let bytes = Array(sample.utf8)
    let end = bytes.lastIndex(of: UInt8(ascii: "x")) ?? bytes.endIndex
    return (Array(bytes[..<end]), end < bytes.endIndex ? Array(bytes[(end + 1)...]) : [])
  }

  /// The link to the page of the row with id `id`.
  func link(_ id: Int64) -> String {
    if let own, own.id == id { return own.link }
    var link = ""
    withLink(id) { link = String(decoding: $0, as: UTF8.self) }
    return link
  }

  /// Hands `body` the link to the page of the row with id `id`, written on the stack.
  func withLink(_ id: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    if let own, own.id == id {
      _ = MustacheTextLookup.hand(own.link, to: body)
      return
    }
    let capacity = prefix.count + DecimalText.maximumLength + suffix.count
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
      var index = Self.copy(prefix, into: buffer, at: 0)
      index = DecimalText.write(id, into: buffer, at: index)
      index = Self.copy(suffix, into: buffer, at: index)
      body(UnsafeBufferPointer(rebasing: buffer[..<index]))
    }
  }

  /// Copies `bytes` into `buffer` from `index` in one piece; returns the index after them.
  @inline(__always)
  private static func copy(
    _ bytes: [UInt8], into buffer: UnsafeMutableBufferPointer<UInt8>, at index: Int
  ) -> Int {
    bytes.withUnsafeBufferPointer { source in
      guard let from = source.baseAddress, let to = buffer.baseAddress else { return index }
      (to + index).update(from: from, count: source.count)
      return index + source.count
    }
  }

  /// Hands `body` the link to the file `name` of the folder these links were made for,
  /// written on the stack.
  func withFile(named name: Substring.UTF8View, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    let capacity = prefix.count + name.count + suffix.count
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
      var index = Self.copy(prefix, into: buffer, at: 0)
      for byte in name {
        buffer[index] = byte
        index += 1
      }
      index = Self.copy(suffix, into: buffer, at: index)
      body(UnsafeBufferPointer(rebasing: buffer[..<index]))
    }
  }
}

/// What the to-dos on one page share: the rows, the texts, and the links from this page to the
/// to-dos' pages.
final class TodoLinks: Sendable {
  let todos: TodoRows
  /// The texts of `todos`.
  let texts: TodoTexts
  let strings: RowStrings
  let rows: RowLinks

  /// Makes the links of the to-dos in `todos` from the page in `file`.
  ///
  /// - Parameters:
  ///   - todos: the to-dos, in index order.
  ///   - texts: their texts (`SitePlan.todoTexts`).
  ///   - strings: the labels and routes.
  ///   - file: the page the links are on.
  ///   - ownPosition: the position of the to-do whose page `file` is, if it is one.
  init(
    todos: TodoRows, texts: TodoTexts, strings: RowStrings, fromFile file: String,
    ownPosition: Int?
  ) {
    precondition(texts.count == todos.count, "the texts of other to-dos")
    self.todos = todos
    self.texts = texts
    self.strings = strings
    rows = RowLinks(
      section: "todos", routes: strings.routes, fromFile: file,
      ownID: ownPosition.map(todos.pk), ownName: ownPosition.map(todos.pageName))
  }

  /// The link to the page of the to-do at `position` of `todos`.
  func link(at position: Int) -> String {
    guard todos.hasTextKey(position) else { return rows.link(todos.pk(position)) }
    if let own = rows.own, own.id == todos.pk(position) { return own.link }
    return String(
      decoding: rows.prefix + Array(todos.pageName(position).utf8) + rows.suffix, as: UTF8.self)
  }

  /// Hands `body` the link to the page of the to-do at `position` of `todos`.
  func withLink(at position: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    guard todos.hasTextKey(position) else { return rows.withLink(todos.pk(position), body) }
    _ = MustacheTextLookup.hand(link(at: position), to: body)
  }
}

/// What the possessions on one page share: the links from this page to their pages and to
/// their photos.
final class PossessionLinks: Sendable {
  let strings: RowStrings
  let rows: RowLinks
  let photos: RowLinks
  let file: String

  init(strings: RowStrings, fromFile file: String, ownID: Int64?) {
    self.strings = strings
    self.file = file
    rows = RowLinks(section: "possessions", routes: strings.routes, fromFile: file, ownID: ownID)
    photos = RowLinks(assetsIn: "photos/", routes: strings.routes, fromFile: file)
  }

  /// Hands `body` the link to a photo of the site, `photos/NAME`, written on the stack.
  func photo(_ path: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> MustacheTextLookup {
    // Compared as bytes: `hasPrefix` on strings compares characters, several times slower.
    let folder = "photos/".utf8
    let bytes = path.utf8
    guard bytes.starts(with: folder), !bytes.dropFirst(folder.count).contains(UInt8(ascii: "/"))
    else {
      return .hand(strings.routes.asset(path, fromFile: file), to: body)
    }
    photos.withFile(named: path.utf8.dropFirst(folder.count), body)
    return .handed
  }

  /// The link to a photo of the site, `photos/NAME`.
  func photo(_ path: String) -> String {
    var link = ""
    _ = photo(path) { link = String(decoding: $0, as: UTF8.self) }
    return link
  }
}
