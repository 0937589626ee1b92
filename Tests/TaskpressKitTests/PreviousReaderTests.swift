import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

/// `DataCopyReader` (`RenderPaths.copyReader`) against its plain twin, `JSONDecoder`: the same
/// previous sites, read both ways, give the same rows or the same error.
@Suite struct PreviousReaderTests {
  /// What reading a previous site gave: the build it read, or the error's message.
  enum Outcome: Equatable, CustomStringConvertible {
    case read(PreviousBuild)
    case failed(String)

    var description: String {
      switch self {
      case .read(let previous):
        "read \(previous.todos?.count ?? -1) to-dos, \(previous.possessions?.count ?? -1) "
          + "possessions, \(previous.contacts?.count ?? -1) contacts, "
          + "\(previous.warnings.count) warnings"
      case .failed(let message): "failed: \(message)"
      }
    }
  }

  static func read(_ site: String, copyReader: Bool) -> Outcome {
    do {
      return .read(
        try PreviousBuild.read(
          site: site, state: OutputWriter.stateFolder(ofOutput: site),
          sources: Set(Change.Source.allCases), explicit: false, copyReader: copyReader))
    } catch {
      return .failed("\(error)")
    }
  }

  /// Reads `site` both ways; expects the same outcome, and returns it.
  @discardableResult
  static func expectSameReading(_ site: String, _ what: String) -> Outcome {
    let plain = read(site, copyReader: false)
    let fast = read(site, copyReader: true)
    #expect(fast == plain, "\(what): the copy reader \(fast), JSONDecoder \(plain)")
    // Equal strings may still differ in their bytes (Unicode equivalence): compare those too.
    if case .read(let fast) = fast, case .read(let plain) = plain {
      #expect(
        fast.todos?.map { Array($0.text.utf8) } == plain.todos?.map { Array($0.text.utf8) },
        "\(what): the to-dos' texts differ in their bytes")
    }
    return plain
  }

  /// A site folder in `folder` whose data folder holds `files`.
  static func site(_ folder: TemporaryFolder, _ name: String, _ files: [String: [UInt8]]) throws
    -> String
  {
    let site = folder.sub(name)
    try FileManager.default.createDirectory(
      atPath: site + "/data", withIntermediateDirectories: true)
    for (file, bytes) in files {
      try write(site + "/data/" + file, bytes)
    }
    return site
  }

  /// Writes `bytes` to a new file `path`, in place of any there (neither `fsync`ed, as
  /// `Data.write` does, nor truncated, which ext4 flushes on close: a test writes hundreds).
  static func write(_ path: String, _ bytes: [UInt8]) throws {
    unlink(path)
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
    try #require(fd >= 0)
    defer { close(fd) }
    try FileSystem.writeAll(fd, bytes)
  }

  // MARK: - Rows that are hard to write

  static let hostileTexts: [String] = [
    "", "plain", "quote \" and backslash \\ and slash /", "\\\"\\\\\"", "line\nbreak\r\nand\ttab",
    "every control: " + String((0..<32).map { Character(Unicode.Scalar(UInt8($0))) }) + "\u{7F}",
    "nul \u{0} inside", "é (one), e\u{301} (two), Å, ﬁ", "日本語のテキスト", "emoji 😀 👩‍👩‍👧‍👦 🏳️‍🌈",
    "right-to-left \u{202E}txet\u{202C}", "separators \u{2028} \u{2029}", "bom \u{FEFF} inside",
    "noncharacters \u{FFFF} \u{10FFFF}", "</script><script>alert(1)</script>", "{\"pk\": 1}",
    "\u{5C}u0041 is not A", String(repeating: "long ", count: 2_000),
  ]

  static let strings = RowStrings(routes: Routes(prettyURLs: false), labels: .builtIn(.en))

  static var hostileTodos: [Todo] {
    let priorities: [Priority] = [.high, .medium, .low, .none, .other(0), .other(-7), .other(.max)]
    let keys: [Int64] = [.min, -1, 0, 1, 7, 10, 99, 100, .max - 1, .max]
    return hostileTexts.enumerated().map { index, text in
      Todo(
        pk: index < keys.count ? keys[index] : Int64(1000 + index), text: text,
        priority: priorities[index % priorities.count], complete: index % 3 == 0,
        due: index % 4 == 0 ? nil : "2026-12-0\(index % 9 + 1)T06:00:00Z \(text.prefix(8))")
    } + [Todo(pk: 5, text: "the same key again", priority: .low, complete: false)]
  }

  static var hostilePossessions: [Possession] {
    hostileTexts.enumerated().map { index, text in
      Possession(
        id: Int64(index) - 3, name: text, description: Array(hostileTexts.reversed())[index],
        photo: index % 2 == 0
          ? nil
          : PhotoInfo(
            format: .png, width: index % 3 == 0 ? nil : index * 10, height: index * 5,
            byteCount: 100, row: Int64(index)))
    }
  }

  static var hostileContacts: [Contact] {
    hostileTexts.enumerated().map { index, text in
      Contact(
        id: Int64(index * 7) - 20, name: text, address: Array(hostileTexts.reversed())[index],
        phone: index % 2 == 0 ? "" : "+1 555 \(index)")
    }
  }

  static func todosCopy(_ todos: [Todo], dueDates: Bool = false) -> [UInt8] {
    DataExport.todosJSON(todos, strings: strings, dueDates: dueDates).array
  }

  static func possessionsCopy(_ possessions: [Possession]) -> [UInt8] {
    var files: [Int64: PageContext.PhotoFile] = [:]
    for possession in possessions where possession.photo != nil {
      files[possession.id] = PageContext.PhotoFile(
        path: "photos/\(possession.id)-\(possession.name.prefix(4)).png",
        width: possession.photo?.width, height: possession.photo?.height)
    }
    return DataExport.possessionsJSON(possessions, photoFiles: files).array
  }

  static func contactsCopy(_ contacts: [Contact]) -> [UInt8] {
    DataExport.contactsJSON(contacts).array
  }

  // MARK: - Tests

  @Test("a text with escapes is kept while the strings after it in its row are read")
  func escapesAfterText() throws {
    let texts = ["a \"quoted\" \\ text\n", "plain", "tab\there", ""]
    let todos = texts.enumerated().map { index, text in
      Todo(pk: Int64(index + 1), text: text, priority: .high, complete: index % 2 == 0)
    }
    // Labels with escapes of their own, as custom labels may have, after each text.
    var copy = String(decoding: Self.todosCopy(todos), as: UTF8.self)
    copy = copy.replacingOccurrences(of: #""High""#, with: #""H\"i\\gh\n""#)
    copy = copy.replacingOccurrences(of: #""Complete""#, with: #""Com\tpl\"ete""#)
    let bytes = Array(copy.utf8)
    let read = try #require(bytes.withUnsafeBytes(DataCopyReader.todos))
    #expect(read.map(\.text) == texts)
    let decoded = try JSONDecoder().decode(PreviousTodos.self, from: Data(bytes))
    #expect(read == decoded)
    #expect(Self.readRows(bytes, as: "todos.json", pieceSize: 5) == "\(decoded)")
  }

  @Test("the copies taskpress writes are read by the copy reader, as JSONDecoder reads them")
  func writtenCopies() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    for dueDates in [false, true] {
      let todos = Self.todosCopy(Self.hostileTodos, dueDates: dueDates)
      let possessions = Self.possessionsCopy(Self.hostilePossessions)
      let contacts = Self.contactsCopy(Self.hostileContacts)
      // Not a fallback: the reader itself reads each copy, to the rows that were written.
      let read = try #require(todos.withUnsafeBytes(DataCopyReader.todos))
      #expect(
        read
          == PreviousTodos(
            Self.hostileTodos.map {
              // The due dates too, when the copy has them (they are compared then).
              PreviousBuild.Todo(
                pk: $0.pk, text: $0.text, priority: $0.priority.number, complete: $0.complete,
                due: dueDates ? $0.due : nil, hasDueField: dueDates)
            }))
      #expect(read.map { Array($0.text.utf8) } == Self.hostileTodos.map { Array($0.text.utf8) })
      #expect(possessions.withUnsafeBytes(DataCopyReader.possessions)?.count == 18)
      #expect(contacts.withUnsafeBytes(DataCopyReader.contacts)?.count == 18)
      let site = try Self.site(
        folder, "site-\(dueDates)",
        ["todos.json": todos, "possessions.json": possessions, "contacts.json": contacts])
      let outcome = Self.expectSameReading(site, "written copies, due dates \(dueDates)")
      guard case .read(let previous) = outcome else {
        Issue.record("the written copies were not read: \(outcome)")
        continue
      }
      #expect(previous.possessions?.map(\.description) == Self.hostileTexts.reversed().map { $0 })
      #expect(previous.contacts?.map(\.phone)[1] == "+1 555 1")
    }
    // No rows at all.
    let empty = Self.todosCopy([])
    #expect(empty.withUnsafeBytes(DataCopyReader.todos) == [])
    Self.expectSameReading(try Self.site(folder, "empty", ["todos.json": empty]), "no rows")
  }

  @Test("the snapshot in the state folder is read both ways alike")
  func stateSnapshot() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let site = try Self.site(folder, "site", [:])
    let state = try #require(OutputWriter.stateFolder(ofOutput: site))
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    // A record of the state folder: its header line, the same as its index's (`StateRecords`).
    let header = StateRecords.header(manifest: ContentHash(of: [UInt8]()), generation: 1)
    try Self.write(state + "/" + StateRecords.indexName, header)
    try Self.write(
      state + "/" + PreviousBuild.snapshotName(.todos), header + Self.todosCopy(Self.hostileTodos))
    let outcome = Self.expectSameReading(site, "snapshot in the state folder")
    guard case .read(let previous) = outcome else {
      Issue.record("the snapshot was not read: \(outcome)")
      return
    }
    #expect(previous.todos?.count == Self.hostileTodos.count)
  }

  /// Copies taskpress does not write, each read both ways: the copy reader leaves them to
  /// JSONDecoder, which reads them or says what is wrong.
  static let foreignTodoCopies: [(String, String)] = [
    ("compact", #"[{"pk":1,"text":"a","priority":2,"complete":true}]"#),
    (
      "no label or status",
      "[\n  {\n    \"pk\": 1,\n    \"text\": \"a\",\n    \"priority\": 2,\n    \"complete\": true\n  }\n]\n"
    ),
    ("missing priority", #"[{"pk": 1, "text": "a", "complete": false}]"#),
    ("missing text", #"[{"pk": 1, "complete": false}]"#),
    ("keys in another order", #"[{"text": "a", "pk": 1, "complete": false, "priority": null}]"#),
    (
      "escapes JSONWriter does not write",
      #"[{"pk": 1, "text": "\u00e9\u00C9\/\b\f\ud83d\ude00 \u0041", "complete": false}]"#
    ),
    ("a lone surrogate", #"[{"pk": 1, "text": "\ud800", "complete": false}]"#),
    ("numbers as other forms", #"[{"pk": 1.0, "text": "a", "priority": 2e0, "complete": false}]"#),
    ("minus zero", #"[{"pk": -0, "text": "a", "complete": false}]"#),
    ("too large", #"[{"pk": 9223372036854775808, "text": "a", "complete": false}]"#),
    ("too small", #"[{"pk": -9223372036854775809, "text": "a", "complete": false}]"#),
    ("a string for a number", #"[{"pk": "1", "text": "a", "complete": false}]"#),
    ("a number for a bool", #"[{"pk": 1, "text": "a", "complete": 1}]"#),
    ("null text", #"[{"pk": 1, "text": null, "complete": false}]"#),
    ("an object", #"{"todos": []}"#),
    ("null", "null"),
    ("empty", ""),
    ("white space", " \n\t "),
    ("not JSON", "todos"),
    ("an array of numbers", "[1, 2]"),
    ("an empty array without a line end", "[]"),
    ("an empty array with spaces", "[ ]\n"),
  ]

  @Test("copies that taskpress does not write give JSONDecoder's rows or errors")
  func foreignCopies() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let written = Self.todosCopy(Array(Self.hostileTodos.prefix(6)))
    var cases = Self.foreignTodoCopies.map { ($0.0, Array($0.1.utf8)) }
    cases += [
      ("a byte order mark", DataExport.byteOrderMark + written),
      ("UTF-16", [0xFF, 0xFE] + Array("[]".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })),
      (
        "CRLF line ends",
        Array(String(decoding: written, as: UTF8.self).replacing("\n", with: "\r\n").utf8)
      ),
      ("no line end", Array(written.dropLast())),
      ("two line ends", written + [0x0A]),
      ("something after", written + Array("[]\n".utf8)),
      (
        "a tab for spaces",
        Array(
          String(decoding: written, as: UTF8.self).replacing("    \"text\"", with: "\t\"text\"")
            .utf8)
      ),
      (
        "an extra key",
        Array(
          String(decoding: written, as: UTF8.self).replacing(
            "\"status\"", with: "\"extra\": [1, {}],\n    \"status\""
          ).utf8)
      ),
      (
        "upper-case hex",
        Array(String(decoding: written, as: UTF8.self).replacing("\\u001f", with: "\\u001F").utf8)
      ),
      (
        "a raw DEL",
        Array(String(decoding: written, as: UTF8.self).replacing("\\u007f", with: "\u{7F}").utf8)
      ),
    ]
    // Bytes that are not UTF-8, in a string the reader keeps and in one it only checks.
    let text = try #require(written.firstRange(of: Array("plain".utf8)))
    let label = try #require(written.firstRange(of: Array("High".utf8)))
    for (name, bad) in [
      ("0xFF", [0xFF] as [UInt8]), ("an overlong NUL", [0xC0, 0x80]),
      ("a cut sequence", [0xE2, 0x82]),
      ("an encoded surrogate", [0xED, 0xA0, 0x80]), ("a raw line break", [0x0A]),
      ("a raw NUL", [0x00]),
    ] {
      var inText = written
      inText.replaceSubrange(text.prefix(2), with: bad)
      var inLabel = written
      inLabel.replaceSubrange(label.prefix(2), with: bad)
      cases += [("\(name) in a text", inText), ("\(name) in a label", inLabel)]
    }
    for (index, (name, bytes)) in cases.enumerated() {
      let site = try Self.site(folder, "site-\(index)", ["todos.json": bytes])
      Self.expectSameReading(site, name)
    }
    // Those the copy reader leaves alone, for JSONDecoder.
    for name in ["a byte order mark", "CRLF line ends", "0xFF in a text", "a raw NUL in a label"] {
      let bytes = try #require(cases.first { $0.0 == name }?.1)
      #expect(bytes.withUnsafeBytes(DataCopyReader.todos) == nil, "\(name)")
    }
    // The error, as JSONDecoder's reading gives it.
    let missing = try Self.site(folder, "missing", ["todos.json": Array(#"[{"pk": 1}]"#.utf8)])
    #expect(
      Self.read(missing, copyReader: true)
        == .failed(
          "\(missing)/data/todos.json: not the previous build's data as taskpress writes it "
            + "('[0]' has no 'text'); delete it to start the record of changes afresh, or give "
            + "--previous a copy of the last published site"))
  }

  /// The rows of `bytes` as the copy `file`, read with the copy reader or without, or the
  /// error's message.
  static func decode(_ bytes: [UInt8], as file: String, copyReader: Bool) -> String {
    func decode<Rows: Decodable>(_ reader: @escaping (UnsafeRawBufferPointer) -> Rows?) -> String {
      do {
        let rows = try PreviousBuild.decode(
          Rows.self, from: Data(bytes), at: "site/data/" + file, "data",
          copyReader ? reader : nil)
        return "\(rows)"
      } catch {
        return "error: \(error)"
      }
    }
    switch file {
    case "todos.json": return decode(DataCopyReader.todos)
    case "possessions.json": return decode(DataCopyReader.possessions)
    default: return decode(DataCopyReader.contacts)
    }
  }

  /// Copies of each kind cut short anywhere, or with a byte changed, removed or doubled: the
  /// copy's file name, what was done and the bytes.
  static func damagedCases() -> [(file: String, what: String, bytes: [UInt8])] {
    let copies: [(String, [UInt8])] = [
      (
        "todos.json", Self.todosCopy([2, 4, 5, 7, 9].map { Self.hostileTodos[$0] }, dueDates: true)
      ),
      ("possessions.json", Self.possessionsCopy([1, 4, 9].map { Self.hostilePossessions[$0] })),
      ("contacts.json", Self.contactsCopy([0, 5, 8].map { Self.hostileContacts[$0] })),
    ]
    var generator = SplitMix(state: 2026)
    let interesting = Array("\"\\,:{}[]0123456789-nultrfe \n\t".utf8) + [0x00, 0x7F, 0xC3, 0xFF]
    var cases: [(file: String, what: String, bytes: [UInt8])] = []
    for (file, copy) in copies {
      cases += (0...copy.count).map { (file, "cut to \($0) bytes", Array(copy.prefix($0))) }
      for round in 0..<200 {
        var bytes = copy
        let position = Int(generator.next() % UInt64(bytes.count))
        switch round % 3 {
        case 0: bytes[position] = interesting[Int(generator.next() % UInt64(interesting.count))]
        case 1: bytes.remove(at: position)
        default: bytes.insert(bytes[position], at: position)
        }
        cases.append((file, "changed at \(position) (round \(round))", bytes))
      }
    }
    return cases
  }

  @Test("a copy cut short anywhere, or with any byte changed, reads the same both ways")
  func damagedCopies() throws {
    var read = 0
    for (file, what, bytes) in Self.damagedCases() {
      let plain = Self.decode(bytes, as: file, copyReader: false)
      let fast = Self.decode(bytes, as: file, copyReader: true)
      #expect(fast == plain, "\(file) \(what)")
      if !plain.hasPrefix("error: ") { read += 1 }
    }
    // Some of the changed copies are still copies (a changed letter of a text, say).
    #expect(read > 3)
  }

  /// The rows the copy reader reads from `bytes` as the copy `file`, "nil" when it reads
  /// none: from the whole, or piece by piece (`pieceSize` bytes a read; `failAfter` reads,
  /// and then an error).
  static func readRows(
    _ bytes: [UInt8], as file: String, pieceSize: Int? = nil, failAfter: Int? = nil
  ) -> String {
    guard let pieceSize else {
      return bytes.withUnsafeBytes { raw in
        switch file {
        case "todos.json": DataCopyReader.todos(raw).map { "\($0)" } ?? "nil"
        case "possessions.json": DataCopyReader.possessions(raw).map { "\($0)" } ?? "nil"
        default: DataCopyReader.contacts(raw).map { "\($0)" } ?? "nil"
        }
      }
    }
    var offset = 0
    var reads = 0
    var pieces = DataCopyReader.Pieces(pieceSize: pieceSize) { buffer in
      reads += 1
      if let failAfter, reads > failAfter { return -1 }
      let count = min(buffer.count, bytes.count - offset)
      bytes.withUnsafeBytes {
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count]))
      }
      offset += count
      return count
    }
    switch file {
    case "todos.json": return DataCopyReader.todos(&pieces).map { "\($0)" } ?? "nil"
    case "possessions.json": return DataCopyReader.possessions(&pieces).map { "\($0)" } ?? "nil"
    default: return DataCopyReader.contacts(&pieces).map { "\($0)" } ?? "nil"
    }
  }

  @Test("a copy read piece by piece reads as it does whole, whatever the size of the pieces")
  func piecesReadAsWhole() throws {
    // Whole copies of each kind at many sizes of pieces; damaged ones (every changed one, and
    // one cut in 5) at a few: each piece is a call, and a cut is made at every byte.
    let copies = [
      ("todos.json", Self.todosCopy(Self.hostileTodos, dueDates: true)),
      ("todos.json", Self.todosCopy(Self.hostileTodos, dueDates: false)),
      ("possessions.json", Self.possessionsCopy(Self.hostilePossessions)),
      ("contacts.json", Self.contactsCopy(Self.hostileContacts)),
    ]
    for (file, bytes) in copies {
      let whole = Self.readRows(bytes, as: file)
      #expect(whole != "nil", "\(file)")
      for pieceSize in [1, 2, 3, 4, 5, 7, 16, 4096, 1 << 20] {
        #expect(
          Self.readRows(bytes, as: file, pieceSize: pieceSize) == whole,
          "\(file), pieces of \(pieceSize)")
      }
    }
    var read = 0
    for (index, (file, what, bytes)) in Self.damagedCases().enumerated()
    where what.hasPrefix("changed") || index % 5 == 0 {
      let whole = Self.readRows(bytes, as: file)
      for pieceSize in [1, 3, 64] {
        #expect(
          Self.readRows(bytes, as: file, pieceSize: pieceSize) == whole,
          "\(file) \(what), pieces of \(pieceSize)")
      }
      if whole != "nil" { read += 1 }
    }
    // Some of the changed copies are still copies.
    #expect(read > 3)
    // A read that fails gives no rows, wherever it fails.
    let copy = Self.todosCopy(Array(Self.hostileTodos.prefix(4)), dueDates: false)
    #expect(Self.readRows(copy, as: "todos.json") != "nil")
    for failAfter in [0, 1, 5, copy.count / 7] {
      #expect(
        Self.readRows(copy, as: "todos.json", pieceSize: 7, failAfter: failAfter) == "nil",
        "failing after \(failAfter) reads")
    }
  }

  @Test("a source's error comes before a damaged previous build's")
  func sourceErrorFirst() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let database = folder.sub("todo.sqlite")
    try Database.createForTesting(at: database, sql: ChangesTests.todoSchema)
    var options = BuildOptions()
    options.todos = database
    options.output = folder.sub("site")
    _ = try ChangesTests.build(options)
    try Self.write(options.output + "/data/todos.json", Array("[{".utf8))
    // The previous build alone: its error.
    try ChangesTests.change(database, "UPDATE todo SET text = 'Buy oat milk' WHERE pk = 1")
    let previousError = #expect(throws: BuildError.self) { _ = try ChangesTests.build(options) }
    #expect(
      previousError?.description
        == "\(options.output)/data/todos.json: not the previous build's data as taskpress writes it"
        + " (not valid JSON); delete it to start the record of changes afresh, or give"
        + " --previous a copy of the last published site")
    // And a to-do table that is not there: the database's error, as before.
    try ChangesTests.change(database, "ALTER TABLE todo RENAME TO other")
    do {
      _ = try ChangesTests.build(options)
      Issue.record("the build did not fail")
    } catch let error as SourceError {
      #expect(error.file == database)
    }
  }
}
