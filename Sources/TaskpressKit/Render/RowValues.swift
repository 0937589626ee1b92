import Mustache

// The rows templates see, as computed objects: a page of 100,000 to-dos (the board) or 100,000
// pages of one to-do each never build a dictionary per row, and a field is made only when a
// template reads it. Each row's keys are written once, as its `Field` cases (see `TemplateRow`);
// `Templates/README.md` documents them.

/// A to-do as templates see it, with links relative to the page it is on.
///
/// Two words, so a `MustacheValue` holds it without a box of its own.
struct TodoValue: TemplateRow {
  let links: TodoLinks
  let position: Int

  enum Field: String, TemplateField {
    case pk, text, title, priority, complete, status, check, url, due, dueDate, overdue
    case textHTML, titleHTML, titleMarkdown
    static let table = FieldTable(Self.self)
  }

  /// `due` and `dueDate` only when the to-do has a due date.
  func has(_ field: Field) -> Bool {
    switch field {
    case .due, .dueDate: links.todos.hasDue(position)
    case .titleMarkdown: links.strings.todoMarkdown && !links.texts.isEmpty(position)
    default: true
    }
  }

  func answer<Sink: FieldSink>(_ field: Field, to sink: Sink, _ body: TextBody) -> Sink.Result {
    // Each field is read from the packed rows in place: no `Todo` (and no `String` of its
    // text) is made for a lookup. The text is handed from the plan's block of texts.
    let todos = links.todos
    let strings = links.strings
    switch field {
    case .pk:
      guard todos.hasTextKey(position) else { return sink.number(todos.pk(position), body) }
      return sink.text(todos.keyText(position), body)
    case .url:
      return sink.text(
        { links.link(at: position) }, bytes: { links.withLink(at: position, body) }
      )
    case .text:
      return sink.text({ todos.text(position) }, bytes: { links.texts.withText(position, body) })
    case .title:
      guard !links.texts.isEmpty(position) else {
        return sink.text("\(strings.task) \(todos.keyText(position))", body)
      }
      return sink.text({ todos.text(position) }, bytes: { links.texts.withText(position, body) })
    case .textHTML:
      return sink.text(strings.todoHTML(todos.text(position), links: true), body)
    case .titleHTML:
      guard !links.texts.isEmpty(position) else {
        return sink.text(RowStrings.escaped("\(strings.task) \(todos.keyText(position))"), body)
      }
      return sink.text(strings.todoHTML(todos.text(position), links: false), body)
    case .titleMarkdown:
      guard strings.todoMarkdown, !links.texts.isEmpty(position) else { return sink.missing }
      return sink.text(InlineMarkdown.markdown(todos.text(position)), body)
    case .check:
      return sink.text(todos.isComplete(position) ? "☑" : "☐", body)
    case .status:
      return sink.text(todos.isComplete(position) ? strings.complete : strings.inProgress, body)
    case .priority:
      return sink.value { strings.priority(todos.priority(position)) }
    case .complete:
      return sink.value { .bool(todos.isComplete(position)) }
    case .due:
      return todos.due(position).map { sink.text($0, body) } ?? sink.missing
    case .dueDate:
      return strings.dueDate(todos[position]).map { sink.text($0, body) } ?? sink.missing
    case .overdue:
      return sink.value { .bool(strings.isOverdue(todos[position])) }
    }
  }
}

/// A possession as templates see it; `photo` only when it has one in the site.
struct PossessionValue: TemplateRow {
  let possession: Possession
  let photo: PageContext.PhotoFile?
  let links: PossessionLinks

  enum Field: String, TemplateField {
    case id, name, title, text, description, url, photo, descriptionHTML
    static let table = FieldTable(Self.self)
  }

  func has(_ field: Field) -> Bool { field != .photo || photo != nil }

  func answer<Sink: FieldSink>(_ field: Field, to sink: Sink, _ body: TextBody) -> Sink.Result {
    switch field {
    case .title, .text:
      possession.name.isEmpty
        ? sink.text("\(links.strings.possessions) \(possession.id)", body)
        : sink.text(possession.name, body)
    case .url:
      sink.text(
        { links.rows.link(possession.id) }, bytes: { links.rows.withLink(possession.id, body) })
    case .photo:
      photo.map { photo in
        sink.value {
          .computed(
            PhotoValue(links: links, id: possession.id, name: possession.name, photo: photo))
        }
      } ?? sink.missing
    case .name: sink.text(possession.name, body)
    case .description: sink.text(possession.description, body)
    case .descriptionHTML:
      sink.text(
        links.strings.descriptionMarkdown
          ? InlineMarkdown.html(possession.description)
          : RowStrings.escaped(possession.description), body)
    case .id: sink.number(possession.id, body)
    }
  }
}

/// A possession's photo as templates see it: each field is made when a template reads it (a
/// gallery reads four of the six).
struct PhotoValue: TemplateRow {
  let links: PossessionLinks
  /// The possession's id and name, for `alt`.
  let id: Int64
  let name: String
  let photo: PageContext.PhotoFile

  enum Field: String, TemplateField {
    case url, alt, width, height, thumbWidth, thumbHeight, thumbUrl, srcset, avifSrcset
    static let table = FieldTable(Self.self)
  }

  /// `avifSrcset` only when the photo has AVIF files (`--photo-formats webp,avif`).
  func has(_ field: Field) -> Bool { field != .avifSrcset || !photo.avif.isEmpty }

  /// The AVIF twin of every rendition with its width, for a `<source type="image/avif">`.
  private var avifSrcset: String {
    zip(photo.avif, photo.renditions).map { "\(links.photo($0)) \($1.width)w" }.joined(
      separator: ", ")
  }

  /// Every file of the photo with its width, for `srcset`: `../photos/a-320.webp 320w, ...`.
  private var srcset: String {
    guard !photo.renditions.isEmpty else { return links.photo(photo.path) }
    return photo.renditions.map { "\(links.photo($0.path)) \($0.width)w" }.joined(separator: ", ")
  }

  /// The narrowest file of the photo, for the gallery.
  private var thumbnailPath: String { photo.renditions.first?.path ?? photo.path }

  /// The size of the largest side of a thumbnail.
  static let thumbnailSide = 320

  private var width: Int { photo.width ?? Self.thumbnailSide }
  private var height: Int { photo.height ?? Self.thumbnailSide }

  /// `side` scaled as the photo is to fit a thumbnail: never up, and at least one pixel.
  private func thumbnail(_ side: Int) -> Int64 {
    let scale = min(1, Double(Self.thumbnailSide) / Double(max(width, height, 1)))
    return Int64(max(1, (Double(side) * scale).rounded()))
  }

  func answer<Sink: FieldSink>(_ field: Field, to sink: Sink, _ body: TextBody) -> Sink.Result {
    switch field {
    case .url:
      sink.text({ links.photo(photo.path) }, bytes: { _ = links.photo(photo.path, body) })
    case .alt:
      sink.text(
        name.isEmpty
          ? "\(links.strings.photo) \(id)" : Labels.fill(links.strings.photoOf, ["name": name]),
        body)
    case .width: sink.number(Int64(width), body)
    case .height: sink.number(Int64(height), body)
    case .thumbWidth: sink.number(thumbnail(width), body)
    case .thumbHeight: sink.number(thumbnail(height), body)
    case .thumbUrl:
      sink.text({ links.photo(thumbnailPath) }, bytes: { _ = links.photo(thumbnailPath, body) })
    case .srcset: sink.text(srcset, body)
    case .avifSrcset: sink.text(avifSrcset, body)
    }
  }
}

/// A contact as templates see it.
struct ContactValue: TemplateRow {
  let contact: Contact
  let links: RowLinks
  let strings: RowStrings

  enum Field: String, TemplateField {
    case id, name, title, text, address, phone, tel, url
    static let table = FieldTable(Self.self)
  }

  func has(_ field: Field) -> Bool {
    field != .tel || Self.tel(contact.phone) != nil
  }

  /// The number of `phone` for a `tel:` link: its digits (any script's decimal digits, as
  /// ASCII), with a `+` when one comes before the first digit. Only a phone made of digits,
  /// spaces, `+`, `.`, `/`, dashes and brackets (in any width) is a number; an extension after
  /// it (the first letter after a digit: `ext. 12`, `x12`) is left out. Nil for anything else
  /// and for fewer than three digits.
  static func tel(_ phone: String) -> String? {
    var number = ""
    var digits = 0
    var plus = false
    for scalar in phone.unicodeScalars {
      let properties = scalar.properties
      if properties.numericType == .decimal, let value = properties.numericValue,
        (0...9).contains(value)
      {
        if digits == 0, plus { number = "+" }
        number += String(Int(value))
        digits += 1
        continue
      }
      switch scalar {
      case "+", "\u{FF0B}":
        plus = plus || digits == 0
        continue
      case ".", "/", "\u{FF0E}", "\u{FF0F}", "\u{2212}", "\u{30FC}":
        continue
      default: break
      }
      switch properties.generalCategory {
      case .spaceSeparator, .dashPunctuation, .openPunctuation, .closePunctuation: continue
      default: break
      }
      if properties.isAlphabetic || scalar == "#" || scalar == ";", digits > 0 { break }
      return nil
    }
    return digits >= 3 ? number : nil
  }

  func answer<Sink: FieldSink>(_ field: Field, to sink: Sink, _ body: TextBody) -> Sink.Result {
    switch field {
    case .tel: Self.tel(contact.phone).map { sink.text($0, body) } ?? sink.missing
    case .title, .text:
      contact.name.isEmpty
        ? sink.text("\(strings.contacts) \(contact.id)", body) : sink.text(contact.name, body)
    case .url: sink.text({ links.link(contact.id) }, bytes: { links.withLink(contact.id, body) })
    case .name: sink.text(contact.name, body)
    case .address: sink.text(contact.address, body)
    case .phone: sink.text(contact.phone, body)
    case .id: sink.number(contact.id, body)
    }
  }
}

/// What a page says of itself: `page.title`, `page.kind`, `page.file`, and `page.canonical`,
/// `page.script`, `page.ogImage` and `page.ogDescription` when it has them.
struct PageInfo: TemplateRow {
  var title: String
  let kind: String
  var file: String
  var canonical: String?
  var script: String?
  /// The social card's absolute URL and what it says, on the pages that show it.
  var ogImage: String?
  var ogDescription: String?

  init(title: String, kind: String, file: String) {
    self.title = title
    self.kind = kind
    self.file = file
  }

  enum Field: String, TemplateField {
    case title, kind, file, canonical, script, ogImage, ogDescription
    static let table = FieldTable(Self.self)
  }

  func has(_ field: Field) -> Bool {
    switch field {
    case .canonical: canonical != nil
    case .script: script != nil
    case .ogImage: ogImage != nil
    case .ogDescription: ogDescription != nil
    default: true
    }
  }

  func answer<Sink: FieldSink>(_ field: Field, to sink: Sink, _ body: TextBody) -> Sink.Result {
    switch field {
    case .title: sink.text(title, body)
    case .kind: sink.text(kind, body)
    case .file: sink.text(file, body)
    case .canonical: canonical.map { sink.text($0, body) } ?? sink.missing
    case .script: script.map { sink.text($0, body) } ?? sink.missing
    case .ogImage: ogImage.map { sink.text($0, body) } ?? sink.missing
    case .ogDescription: ogDescription.map { sink.text($0, body) } ?? sink.missing
    }
  }
}
