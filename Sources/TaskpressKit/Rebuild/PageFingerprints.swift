import Foundation

/// What a page shows, as 128 bits: the keyed hash (`HashKey`, the output folder's secret) of every input its render reads — the rows and
/// values it shows, its template chain, the labels and the options — so that a rebuild renders
/// only the pages whose fingerprint changed and keeps the files of the others
/// (`OutputWriter.keep`).
///
/// A page kind is fingerprinted only where its inputs are few and known: a to-do's page, a
/// possession's page, a page of the gallery, an index page after the first, and a page of a
/// filtered list. Every other page (the first index page, the board, the changes, the contact
/// list, the contacts' pages, the 404 page, a front page that is the gallery's or the contact
/// list's) shows the whole site or the record of changes, and is rendered by every build.
///
/// What each fingerprinted kind can show is `TemplateModel.pages[kind]` with `common`; the
/// inputs below cover it (`FingerprintTests` fails when a variable is added to the model
/// without being looked at here):
/// - every page: the program, the options that reach a page, the labels, the
///   theme's files but the templates its kind cannot reach (`TemplateCheck.templateFiles`),
///   which sources the site has (its navigation and footer), and the page's own file (its links are relative to it);
/// - not the build's date, which only pages without a fingerprint show (`PageContext.showsDate`),
///   but, where the site maps due dates and the build has a date, the `overdue` state of each
///   to-do a page shows (`shownRows`);
/// - a to-do's page: its row and its neighbours' (`previous`, `next`), and the index page it is
///   listed on (`list`);
/// - a possession's page: its row and its neighbours', with their photos' files;
/// - a page of the gallery: the rows it shows, with their photos' files, its number and the
///   number of pages (its `pagination`);
/// - an index page or a list page: the rows it lists, its number, and the site's `structure`
///   (its `lists` and `pagination`): not the site's counts, which only the summary pages show
///   (the first index page, the board), so that a to-do moving between lists changes only
///   the pages it leaves and enters and the pages whose to-dos shift.
struct PageFingerprints: Sendable {
  private let plan: SitePlan
  /// Each to-do's history, whose timeline its page shows.
  private let timelines: TodoHistory?
  /// By `PageKind.rawValue`: the hash of what every page of the kind shows apart from rows.
  private let bases: [KeyedHash]
  /// The output folder's key, with which every hash here is made.
  private let key: HashKey
  /// The hash of what decides the pages there are and their links to each other: the number
  /// of index pages and of gallery pages, and each list's kind, key and number of pages.
  private let structure: KeyedHash
  /// The hash of each to-do's row, by position in index order (`rowHash`): what
  /// `TodoCopyRecord` records of it.
  let todoRows: [KeyedHash]
  /// What a page that shows the to-do at each position adds to its fingerprint, hashed once for
  /// the five or so pages that show it: its row's hash, with its `overdue` state where it can
  /// be overdue (a build with a date, a to-do with a due date); else `todoRows` itself. What
  /// `RowRecord` records, so that a to-do whose overdue state flips on a new date is found
  /// like a changed row.
  let shownRows: [KeyedHash]
  /// The hash of every input of the pages that show to-dos (a to-do's page, an index page, a
  /// page of a list) but the rows' texts and due dates: their kinds' `bases`, the `structure`, and
  /// each position's pk, priority and status, which decide the pages there are, their files
  /// and which to-dos each shows; and the possessions' ids, which decide the files of the other
  /// pages with a fingerprint. Two builds with the same layout have the same pages with a
  /// fingerprint, and the fingerprint of one that shows to-dos changes only with the rows it
  /// shows (`pages(showingChangesSince:)`).
  let todoLayout: KeyedHash

  /// The options that reach a fingerprinted page, by the name of the `BuildOptions` property,
  /// and those that do not: where the files go, how many threads, what is printed, and what
  /// only the record of changes shows (`previous`, `date`, `historyLimit`: the changes pages and
  /// the first index page, which every build renders). `IncrementalTests` checks that every
  /// property is in one of the two.
  static let optionsShown: Set<String> = [
    "baseURL", "locale", "pageSize", "boardLimit", "prettyURLs", "title", "dataCopies", "noindex",
    "csvByteOrderMark", "maxPhotoPixels", "keepPhotoMetadata", "renderPaths", "mapping",
    "templates", "galleryPageSize", "photoFormats", "search", "markdown",
  ]
  static let optionsNotShown: Set<String> = [
    "todos", "possessions", "contacts", "output", "jobs", "strict", "quiet", "report", "previous",
    "date", "historyLimit", "sitemapLimits", "photoCache", "photoCacheSize",
    "allWarnings", "host", "folderSwap", "queryTimeout", "photoFolder",
  ]

  init(
    plan: SitePlan, theme: Theme, labels: Labels, options: BuildOptions, generated: String?,
    sourceDateEpoch: String?, key: HashKey, timelines: TodoHistory? = nil,
    startsTodoHistories: Bool = false, socialCard: Bool = false
  ) {
    self.plan = plan
    self.key = key
    self.timelines = timelines
    var common = FingerprintHasher(key: key)
    common.add("taskpress \(taskpressVersion)")
    common.add(Build.programIdentity())
    common.add(options.baseURL ?? "-")
    common.add(options.locale.rawValue)
    common.add(options.pageSize)
    common.add(options.boardLimit)
    common.add(options.galleryPageSize)
    common.add(options.prettyURLs)
    common.add(options.title ?? "-")
    common.add(options.dataCopies.map(\.rawValue).sorted().joined(separator: ","))
    common.add(options.noindex)
    common.add(options.search)
    common.add(options.markdown.map(\.rawValue).sorted().joined(separator: ","))
    common.add(options.csvByteOrderMark)
    common.add(options.maxPhotoPixels)
    common.add(options.keepPhotoMetadata)
    // Only when not the default, so that a site built before the option keeps its fingerprints.
    if options.photoFormats != [.webp] {
      common.add("photo-formats " + options.photoFormats.map(\.rawValue).joined(separator: ","))
    }
    // Only with a social card (the board points at it), so that other sites keep their
    // fingerprints.
    if socialCard { common.add("social-card") }
    // Without `carryOver`, `dependents`, `earlyFileCheck`, `recordedCopy` and `recordedCard`,
    // which decide how kept files are kept and found and how the previous build is read, not
    // any page's bytes: a site can be rebuilt with them or without them as the same site
    // (`IncrementalTests` does each).
    common.add(
      options.renderPaths.subtracting([
        .carryOver, .dependents, .earlyFileCheck, .recordedCopy, .recordedCard,
      ]).rawValue)
    common.add(options.mapping.todos.key)
    common.add(options.mapping.possessions.key)
    common.add(options.mapping.contacts.key)
    // Not the build's date (`generated`, `sourceDateEpoch`): only the pages every build
    // renders show it; a to-do's `overdue` state is in `shownRows`.
    for (key, text) in labels.texts.sorted(by: { $0.key < $1.key }) {
      common.add(key)
      common.add(text)
    }
    // Which sources the site has: the navigation, the footer's data links, the home link.
    for flag in [plan.hasTodos, plan.hasPossessions, plan.hasContacts, plan.hasDueDates] {
      common.add(flag)
    }
    let templates = Set(theme.templatePaths)
    let reads = TemplateCheck.templateFiles(theme)
    bases = PageKind.allCases.map { kind in
      var hasher = common
      hasher.add(kind.name)
      for (path, file) in theme.files.sorted(by: { $0.key < $1.key }) {
        // A template this kind's pages cannot reach is left out; one they may reach, or any
        // when their set is not known (`reads` nil), and every other file are in.
        if templates.contains(path), let read = reads[kind.rawValue], !read.contains(path) {
          continue
        }
        hasher.add(path)
        file.contents.withUnsafeBytes { hasher.add($0) }
      }
      return hasher.value
    }
    var structure = FingerprintHasher(key: key)
    structure.add(plan.pageCount)
    structure.add(plan.galleryPageCount)
    for (index, list) in plan.lists.enumerated() {
      structure.add(list.kind.rawValue)
      structure.add(list.key)
      structure.add(plan.pageCount(ofList: index))
      Self.add(list.priority, to: &structure)
    }
    self.structure = structure.value
    let todos = plan.todos
    todoRows = todos.indices.map { Self.rowHash(todos, at: $0, key: key) }
    if let today = generated, plan.hasDueDates {
      shownRows = todos.indices.map { [todoRows] position in
        guard todos.hasDue(position), !todos.isComplete(position) else {
          return todoRows[position]
        }
        var hasher = FingerprintHasher(key: key)
        hasher.add(todoRows[position])
        hasher.add(todos[position].isOverdue(today: today))
        return hasher.value
      }
    } else {
      shownRows = todoRows
    }
    var layout = FingerprintHasher(key: key)
    for kind in [PageKind.todo, .index, .list] {
      layout.add(bases[kind.rawValue])
    }
    layout.add(self.structure)
    // A to-do's timeline changes with its row, but for the build that starts the to-dos'
    // histories: that build's layout is not the recorded one (every page is fingerprinted).
    layout.add(startsTodoHistories)
    for position in todos.indices {
      layout.add(todos.pk(position))
      Self.add(todos.priority(position), to: &layout)
      layout.add(todos.isComplete(position))
    }
    // With the to-dos', the possessions' ids decide the files of every page with a
    // fingerprint.
    for possession in plan.possessions {
      layout.add(possession.id)
    }
    todoLayout = layout.value
  }

  /// The fingerprint of `page`, whose file is `file`; nil for a page every build renders.
  /// `photoFiles` are the photos' files by possession id, for a possession's page.
  func fingerprint(
    of page: SitePlan.Page, file: String, photoFiles: [Int64: PageContext.PhotoFile]
  ) -> KeyedHash? {
    var hasher = FingerprintHasher(key: key)
    hasher.add(bases[PageKind(page).rawValue])
    hasher.add(file)
    switch page {
    case .todo(let position):
      let count = plan.todos.count
      hasher.add(plan.indexPage(ofTodoAt: position))
      hasher.add(position > 0)
      hasher.add(position + 1 < count)
      for neighbour in max(0, position - 1)...min(count - 1, position + 1) {
        add(todoAt: neighbour, to: &hasher)
      }
      addTimeline(ofTodoAt: position, to: &hasher)
    case .index(let number) where number > 1:
      hasher.add(structure)
      hasher.add(number)
      for position in plan.todoPositions(onIndexPage: number) {
        add(todoAt: position, to: &hasher)
      }
    case .list(let list, let number):
      hasher.add(structure)
      hasher.add(list)
      hasher.add(number)
      let todos = plan.lists[list]
      let start = min((number - 1) * plan.pageSize, todos.count)
      for index in start..<min(start + plan.pageSize, todos.count) {
        add(todoAt: todos.position(index), to: &hasher)
      }
    case .possessions(let number):
      hasher.add(structure)
      hasher.add(number)
      hasher.add(plan.galleryPageCount)
      for position in plan.possessionPositions(onGalleryPage: number) {
        add(possessionAt: position, photoFiles: photoFiles, to: &hasher)
      }
    case .possession(let position):
      let count = plan.possessions.count
      hasher.add(position > 0)
      hasher.add(position + 1 < count)
      for neighbour in max(0, position - 1)...min(count - 1, position + 1) {
        add(possessionAt: neighbour, photoFiles: photoFiles, to: &hasher)
      }
    default:
      return nil
    }
    return hasher.value
  }

  /// Whether `fingerprint(of:file:photoFiles:)` makes a fingerprint of `page`.
  static func hasFingerprint(_ page: SitePlan.Page) -> Bool {
    switch page {
    case .todo, .list, .possessions, .possession: true
    case .index(let number): number > 1
    default: false
    }
  }

  /// Whether `page`'s fingerprint is made of the `todoLayout` and the rows it shows alone: a
  /// to-do's page, an index page after the first, a page of a list.
  static func showsTodoRowsOnly(_ page: SitePlan.Page) -> Bool {
    switch page {
    case .todo, .list: true
    case .index(let number): number > 1
    default: false
    }
  }

  /// The pages of `showsTodoRowsOnly(_:)` whose fingerprints may differ from those of the build
  /// that made `record`: the pages that show a to-do whose row is not the recorded one (its page
  /// and its neighbours', its index page, its page of each list it is on). Nil when the layout
  /// is not the recorded one: then any such page may have changed.
  func pages(showingChangesSince record: RowRecord) -> Set<SitePlan.Page>? {
    guard record.layout == todoLayout, record.rows.count == shownRows.count else { return nil }
    var pages = Set<SitePlan.Page>()
    for position in shownRows.indices where shownRows[position] != record.rows[position] {
      pages.formUnion(self.pages(showingTodoAt: position))
    }
    return pages
  }

  /// The pages of `showsTodoRowsOnly(_:)` whose fingerprint adds the row of the to-do at
  /// `position` (see `fingerprint(of:file:photoFiles:)`).
  func pages(showingTodoAt position: Int) -> [SitePlan.Page] {
    let count = plan.todos.count
    var pages = (max(0, position - 1)...min(count - 1, position + 1)).map(SitePlan.Page.todo)
    let indexPage = plan.indexPage(ofTodoAt: position)
    if indexPage > 1 { pages.append(.index(indexPage)) }
    for (list, todos) in plan.lists.enumerated() {
      guard let index = todos.index(ofPosition: position) else { continue }
      pages.append(.list(list, index / plan.pageSize + 1))
    }
    return pages
  }

  private func add(
    possessionAt position: Int, photoFiles: [Int64: PageContext.PhotoFile],
    to hasher: inout FingerprintHasher
  ) {
    let possession = plan.possessions[position]
    hasher.add(possession.id)
    hasher.add(possession.name)
    hasher.add(possession.description)
    if let photo = possession.photo {
      hasher.add(photo.format.rawValue)
      hasher.add(photo.width ?? -1)
      hasher.add(photo.height ?? -1)
      hasher.add(photo.byteCount)
      hasher.add(photo.row)
    } else {
      hasher.add("-")
    }
    Self.add(photoFiles[possession.id], to: &hasher)
  }

  /// The to-do's timeline: its first build, its events and their builds' dates.
  private func addTimeline(ofTodoAt position: Int, to hasher: inout FingerprintHasher) {
    guard let timelines, let index = timelines.index(ofPK: plan.todos.pk(position)) else {
      return hasher.add(-1)
    }
    hasher.add(timelines.first(index))
    hasher.add(timelines.date(ofBuild: timelines.first(index)) ?? "-")
    for event in timelines.events(index) {
      hasher.add(event.build)
      hasher.add(Int(event.kind.rawValue))
      hasher.add(timelines.date(ofBuild: event.build) ?? "-")
    }
  }

  private func add(todoAt position: Int, to hasher: inout FingerprintHasher) {
    hasher.add(shownRows[position])
  }

  /// The hash of the row of the to-do at `position` of `todos`: what a page that shows it adds
  /// to its fingerprint, and what `TodoCopyRecord` records of it.
  static func rowHash(_ todos: TodoRows, at position: Int, key: HashKey) -> KeyedHash {
    var hasher = FingerprintHasher(key: key)
    add(todoAt: position, of: todos, to: &hasher)
    return hasher.value
  }

  private static func add(
    todoAt position: Int, of todos: TodoRows, to hasher: inout FingerprintHasher
  ) {
    // Field by field from the packed rows, the texts as their bytes: `plan.todos[position]`
    // would make a `Todo` and a `String` of each text.
    hasher.add(todos.pk(position))
    todos.texts.withText(position) { hasher.add(UnsafeRawBufferPointer($0)) }
    Self.add(todos.priority(position), to: &hasher)
    hasher.add(todos.isComplete(position))
    if todos.hasDue(position) {
      hasher.add(true)
      todos.dues.withText(position) { hasher.add(UnsafeRawBufferPointer($0)) }
    } else {
      hasher.add(false)
    }
    // A text key is shown on its page: its number (a hash of it) is not enough.
    if todos.hasTextKey(position) {
      todos.keys.withText(position) { hasher.add(UnsafeRawBufferPointer($0)) }
    }
  }

  private static func add(_ priority: Priority?, to hasher: inout FingerprintHasher) {
    guard let priority else { return hasher.add(0) }
    switch priority {
    case .high: hasher.add(1)
    case .medium: hasher.add(2)
    case .low: hasher.add(3)
    case .other(let number):
      hasher.add(4)
      hasher.add(number)
    case .none: hasher.add(5)
    }
  }

  private static func add(_ photo: PageContext.PhotoFile?, to hasher: inout FingerprintHasher) {
    guard let photo else { return hasher.add("-") }
    hasher.add(photo.path)
    hasher.add(photo.width ?? -1)
    hasher.add(photo.height ?? -1)
    hasher.add(photo.renditions.count)
    for rendition in photo.renditions {
      hasher.add(rendition.path)
      hasher.add(rendition.width)
      hasher.add(rendition.height)
    }
    hasher.add(photo.avif.count)
    for path in photo.avif { hasher.add(path) }
  }
}

/// Fingerprints of a build's pages, by the hash of their file's path, as the next build reads
/// them: recorded in the state folder beside the manifest (`fingerprints`).
struct FingerprintRecord: Sendable, Equatable {
  /// Sorted, with `values` in the same order.
  private(set) var keys: [UInt64] = []
  private(set) var values: [KeyedHash] = []

  static let fileName = "fingerprints"
  private static let header = Array("taskpress-fingerprints 2\n".utf8)

  init() {}

  /// The record of `entries` (path hash, fingerprint); for a path given twice, the last.
  ///
  /// `entries` are sorted in place (the sort is stable: a path given twice keeps its order), not
  /// copied with their offsets: a million pages' entries are 16 MB, and the copy with offsets
  /// and its sort took 38 MB more at the end of the build's rendering.
  init(_ entries: consuming [(key: UInt64, value: KeyedHash)]) {
    entries.sort { $0.key < $1.key }
    keys.reserveCapacity(entries.count)
    values.reserveCapacity(entries.count)
    for entry in entries {
      if keys.last == entry.key {
        values[values.count - 1] = entry.value
      } else {
        keys.append(entry.key)
        values.append(entry.value)
      }
    }
  }

  /// This record with the fingerprints of `entries` (path hash, fingerprint) in place of the
  /// recorded ones, and those of paths it lacks added; for a path given twice, the last.
  func updating(_ entries: [(key: UInt64, value: KeyedHash)]) -> FingerprintRecord {
    var updated = self
    var added: [(key: UInt64, value: KeyedHash)] = []
    for entry in entries {
      let position = Self.lowerBound(of: entry.key, in: keys)
      if position < keys.count, keys[position] == entry.key {
        updated.values[position] = entry.value
      } else {
        added.append(entry)
      }
    }
    guard !added.isEmpty else { return updated }
    return FingerprintRecord(zip(keys, updated.values).map { (key: $0, value: $1) } + added)
  }

  /// The key of a page's file.
  static func key(_ file: String) -> UInt64 {
    var hasher = PathKeyHasher()
    hasher.add(file)
    return hasher.value
  }

  /// The key of the file whose path's UTF-8 bytes are `path`: `key(_:)` of that path.
  static func key(bytes path: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var hasher = PathKeyHasher()
    hasher.add(UnsafeRawBufferPointer(path))
    return hasher.value
  }

  /// The recorded fingerprint of `file`.
  subscript(file: String) -> KeyedHash? { self[key: Self.key(file)] }

  /// The recorded fingerprint of the file whose `key(_:)` is `key`.
  subscript(key key: UInt64) -> KeyedHash? {
    let low = Self.lowerBound(of: key, in: keys)
    return low < keys.count && keys[low] == key ? values[low] : nil
  }

  /// The position in `keys` (sorted) of the first that is not below `key`: a binary search.
  static func lowerBound(of key: UInt64, in keys: [UInt64]) -> Int {
    var low = 0
    var high = keys.count
    while low < high {
      let middle = (low + high) / 2
      if keys[middle] < key { low = middle + 1 } else { high = middle }
    }
    return low
  }

  var count: Int { keys.count }

  /// The record as it is stored: a header line, then each key (8 bytes) and value (16 bytes,
  /// `low` first), little endian.
  var bytes: [UInt8] {
    var bytes = Self.header
    bytes.reserveCapacity(bytes.count + keys.count * 24)
    for (key, value) in zip(keys, values) {
      withUnsafeBytes(of: key.littleEndian) { bytes += $0 }
      withUnsafeBytes(of: value.low.littleEndian) { bytes += $0 }
      withUnsafeBytes(of: value.high.littleEndian) { bytes += $0 }
    }
    return bytes
  }

  /// Reads a stored record; nil when `bytes` are not one (another version, cut short, keys out
  /// of order).
  init?(bytes: [UInt8]) {
    guard bytes.starts(with: Self.header), (bytes.count - Self.header.count) % 24 == 0 else {
      return nil
    }
    let count = (bytes.count - Self.header.count) / 24
    keys.reserveCapacity(count)
    values.reserveCapacity(count)
    let ok = bytes.withUnsafeBytes { raw -> Bool in
      var offset = Self.header.count
      for _ in 0..<count {
        let key = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        let value = KeyedHash(
          low: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)),
          high: UInt64(
            littleEndian: raw.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)))
        if let last = keys.last, last >= key { return false }
        keys.append(key)
        values.append(value)
        offset += 24
      }
      return true
    }
    guard ok else { return nil }
  }
}

/// The keyed 128-bit hash (SipHash-2-4-128, `SipHasher`) of a sequence of values, each fed with
/// its length or a fixed size, so that two different sequences never feed the same words: what
/// a page's fingerprint, a to-do's row hash and the layout of the to-dos are made with. Its key
/// is the output folder's (`HashKey`), so no input can be chosen to collide with another.
struct FingerprintHasher {
  private var hasher: SipHasher

  init(key: HashKey) {
    hasher = SipHasher(key: key)
  }

  var value: KeyedHash { hasher.finalize() }

  mutating func add(_ number: Int) { hasher.add(word: UInt64(bitPattern: Int64(number))) }

  mutating func add(_ number: Int64) { hasher.add(word: UInt64(bitPattern: number)) }

  mutating func add(_ number: UInt64) { hasher.add(word: number) }

  mutating func add(_ hash: KeyedHash) {
    hasher.add(word: hash.low)
    hasher.add(word: hash.high)
  }

  mutating func add(_ flag: Bool) { hasher.add(word: flag ? 1 : 0) }

  mutating func add(_ text: String) {
    if let done: Void = text.utf8.withContiguousStorageIfAvailable({
      add(UnsafeRawBufferPointer($0))
    }) {
      return done
    }
    var text = text
    text.withUTF8 { add(UnsafeRawBufferPointer($0)) }
  }

  /// Adds the count of `bytes`, then the bytes as little-endian words, the last padded with
  /// zeros.
  mutating func add(_ bytes: UnsafeRawBufferPointer) {
    add(bytes.count)
    var offset = 0
    while offset + 8 <= bytes.count {
      hasher.add(
        word: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
      offset += 8
    }
    if offset < bytes.count {
      var tail: UInt64 = 0
      for (shift, byte) in bytes[offset...].enumerated() {
        tail |= UInt64(byte) << (8 * UInt64(shift))
      }
      hasher.add(word: tail)
    }
  }
}

/// A 64-bit unkeyed hash of a page's path, the key of its fingerprint in `FingerprintRecord`:
/// each 8-byte word is multiplied into the state, rotated and multiplied again, and the result
/// avalanched. Not for adversaries, and nothing trusts it to mean "unchanged": two paths with
/// one key share a slot of the record, and a page's fingerprint (keyed, with its path in it) is
/// then another page's, which can only make it render.
struct PathKeyHasher {
  private var state: UInt64 = 0x243F_6A88_85A3_08D3

  var value: UInt64 {
    var x = state
    x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
    x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
    return x ^ (x >> 31)
  }

  private mutating func mix(_ word: UInt64) {
    let mixed = state ^ (word &* 0x9E37_79B9_7F4A_7C15)
    state = ((mixed << 29) | (mixed >> 35)) &* 0xFF51_AFD7_ED55_8CCD
  }

  mutating func add(_ number: Int) { mix(UInt64(bitPattern: Int64(number))) }

  mutating func add(_ number: Int64) { mix(UInt64(bitPattern: number)) }

  mutating func add(_ number: UInt64) { mix(number) }

  mutating func add(_ flag: Bool) { mix(flag ? 1 : 0) }

  mutating func add(_ text: String) {
    if let done: Void = text.utf8.withContiguousStorageIfAvailable({
      add(UnsafeRawBufferPointer($0))
    }) {
      return done
    }
    var text = text
    text.withUTF8 { add(UnsafeRawBufferPointer($0)) }
  }

  mutating func add(_ bytes: UnsafeRawBufferPointer) {
    add(bytes.count)
    var offset = 0
    while offset + 8 <= bytes.count {
      mix(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
      offset += 8
    }
    if offset < bytes.count {
      var tail: UInt64 = 0
      for (shift, byte) in bytes[offset...].enumerated() {
        tail |= UInt64(byte) << (8 * UInt64(shift))
      }
      mix(tail)
    }
  }
}
