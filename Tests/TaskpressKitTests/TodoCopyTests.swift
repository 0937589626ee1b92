import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

/// `TodoCopy` (`RenderPaths.recordedCopy`) against its plain twin, the whole copy read: the rows
/// it finds by pk are those the whole copy has, and the rows that differ from the record give
/// the changes comparing every row gives.
@Suite struct TodoCopyTests {
  /// The hostile to-dos of `PreviousReaderTests` (one per pk: the smallest and largest pks, a
  /// text of 10,000 bytes, one that looks like an object's start), among 2,000 plain ones, in pk
  /// order: the copy spans many of the finder's windows.
  static var todos: [Todo] {
    var byPK: [Int64: Todo] = [:]
    for todo in PreviousReaderTests.hostileTodos where byPK[todo.pk] == nil {
      byPK[todo.pk] = todo
    }
    for pk in Int64(2000)..<4000 {
      byPK[pk] = Todo(
        pk: pk, text: "Plain to-do \(pk)", priority: pk % 3 == 0 ? .high : .low,
        complete: pk % 5 == 0, due: pk % 7 == 0 ? "2026-12-0\(pk % 9 + 1)" : nil)
    }
    return byPK.values.sorted { $0.pk < $1.pk }
  }

  /// Writes the copy of `todos` (in pk order) to `folder` and records it as a build does.
  static func copy(_ todos: [Todo], dueDates: Bool, in folder: TemporaryFolder) throws
    -> TodoCopy
  {
    let path = folder.path + "/todos.json"
    try Data(PreviousReaderTests.todosCopy(todos, dueDates: dueDates)).write(
      to: URL(fileURLWithPath: path))
    let rows = TodoRows(todos)
    let identity = try #require(TodoCopyRecord.identity(ofFile: path))
    let record = TodoCopyRecord(
      identity: identity, pks: todos.map(\.pk),
      hashes: rows.indices.map { PageFingerprints.rowHash(rows, at: $0, key: .test) })
    return try #require(TodoCopy(path: path, record: record))
  }

  @Test(
    "every to-do of a copy is found by its pk as the whole copy has it; a pk it lacks is not",
    arguments: [false, true])
  func findsEachRow(dueDates: Bool) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let copy = try Self.copy(Self.todos, dueDates: dueDates, in: folder)
    let whole = try #require(try PreviousBuild.readTodos(copy, copyReader: false))
    #expect(whole.count == Self.todos.count)
    for index in whole.indices {
      let found = try #require(copy.read([whole.pk(index)]), "pk \(whole.pk(index))")
      #expect(found.count == 1)
      #expect(found.pk(0) == whole.pk(index))
      #expect(found.text(0) == whole.text(index), "pk \(whole.pk(index))")
      #expect(found.priority(0) == whole.priority(index))
      #expect(found.isComplete(0) == whole.isComplete(index))
    }
    let all = try #require(copy.read(Array(whole.indices.map(whole.pk))))
    #expect(all == whole)
    for missing: Int64 in [-2, 2, 1500, 4000, .max - 2] {
      #expect(copy.read([missing]) == nil, "pk \(missing)")
    }
  }

  /// A seeded generator, so that a failure is the same every run.
  struct Seeded: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state ^ (state >> 29)
    }
  }

  @Test("the rows that differ from the recorded copy's give the changes every row gives")
  func differingRowsGiveTheSameChanges() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let old = Self.todos
    let copy = try Self.copy(old, dueDates: true, in: folder)
    let whole = try #require(try PreviousBuild.readTodos(copy, copyReader: true))
    let labels = Labels.builtIn(.en)
    var random = Seeded(state: 22)
    for round in 0..<60 {
      var new = old
      for _ in 0..<(round % 8 + 1) {
        let index = Int.random(in: new.indices, using: &random)
        switch Int.random(in: 0..<6, using: &random) {
        case 0: new[index].text += " (edited)"
        case 1: new[index].priority = new[index].priority == .high ? .medium : .high
        case 2: new[index].complete.toggle()
        case 3: new[index].due = "2027-01-01"
        case 4: new.remove(at: index)
        default:
          let pk = Int64.random(in: 4000..<5000, using: &random)
          if !new.contains(where: { $0.pk == pk }) {
            new.append(Todo(pk: pk, text: "New \(pk)", priority: .low, complete: false))
          }
        }
      }
      new.sort { $0.pk < $1.pk }
      let rows = TodoRows(new)
      let expected = ChangeDiff.todos(whole, rows, at: rows.indices, labels: labels)
      let found = try #require(copy.differingRows(rows, key: .test), "round \(round)")
      #expect(found.old.count <= round % 8 + 1)
      let actual = ChangeDiff.todos(found.old, rows, at: found.positions, labels: labels)
      #expect(actual.sorted(by: <) == expected.sorted(by: <), "round \(round)")
    }
    // No row changed: nothing read, nothing compared.
    let same = try #require(copy.differingRows(TodoRows(old), key: .test))
    #expect(same.old.isEmpty && same.positions.isEmpty)
  }

  @Test("more changed rows than the limit, or a copy written since, and the copy is read whole")
  func limitsAndIdentity() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let old = Self.todos
    let copy = try Self.copy(old, dueDates: false, in: folder)
    var many = old
    for index in many.indices.prefix(TodoCopy.rowLimit + 1) { many[index].text += "!" }
    #expect(copy.differingRows(TodoRows(many), key: .test) == nil)
    var few = old
    for index in few.indices.prefix(TodoCopy.rowLimit) { few[index].text += "!" }
    #expect(copy.differingRows(TodoRows(few), key: .test)?.old.count == TodoCopy.rowLimit)
    // A copy with a pk twice is paired as a whole, as the plain way pairs it.
    var twice = copy.record
    twice.pks[1] = twice.pks[0]
    #expect(
      try #require(TodoCopy(path: copy.path, record: twice)).differingRows(
        TodoRows(old), key: .test) == nil)
    // The same bytes written again: another file, not the one recorded.
    let bytes = try Data(contentsOf: URL(fileURLWithPath: copy.path))
    try bytes.write(to: URL(fileURLWithPath: copy.path))
    #expect(TodoCopy(path: copy.path, record: copy.record) == nil)
  }

  @Test("the record reads back as written; a record cut short or of another version does not")
  func recordBytes() throws {
    let record = TodoCopyRecord(
      identity: [1, 2, 3, 4, 5], pks: [.min, -1, 0, 7, .max],
      hashes: [9, 8, 7, 6, 5].map { KeyedHash(low: $0, high: ~$0) })
    #expect(TodoCopyRecord(bytes: record.bytes) == record)
    #expect(TodoCopyRecord(bytes: Array(record.bytes.dropLast(8))) == nil)
    #expect(TodoCopyRecord(bytes: Array(record.bytes.dropLast())) == nil)
    var other = record.bytes
    other[other.firstIndex(of: UInt8(ascii: "3"))!] = UInt8(ascii: "4")
    #expect(TodoCopyRecord(bytes: other) == nil)
    let empty = TodoCopyRecord(identity: [0, 0, 0, 0, 0], pks: [], hashes: [])
    #expect(TodoCopyRecord(bytes: empty.bytes) == empty)
    // Any cut, and any byte more, is not a record.
    for cut in 1..<record.bytes.count - 22 {
      #expect(TodoCopyRecord(bytes: Array(record.bytes.dropLast(cut))) == nil)
    }
    #expect(TodoCopyRecord(bytes: record.bytes + [0]) == nil)
  }

  @Test("the rows' record is its header, then the layout and each row, 16 bytes each")
  func rowRecordBytes() {
    let rows = (0..<100).map { KeyedHash(low: UInt64($0) &* 0x9E37, high: ~UInt64($0)) }
    let record = RowRecord(layout: KeyedHash(low: 1, high: 2), rows: rows)
    // The plain twin: every hash's two words, little endian, one after the other.
    var plain = Array("taskpress-rows 2\n".utf8)
    for hash in [record.layout] + rows {
      for word in [hash.low, hash.high] {
        for shift in stride(from: 0, to: 64, by: 8) {
          plain.append(UInt8(truncatingIfNeeded: word >> shift))
        }
      }
    }
    #expect(record.bytes == plain)
    #expect(RowRecord(bytes: plain) == record)
  }

  @Test("the record's pks, stored as differences, read back for any pks; 17 bytes a row in a run")
  func recordPKs() throws {
    var seed: UInt64 = 3
    func next() -> UInt64 {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return seed
    }
    var pks: [Int64] = [.min, .max, 0, -1, 1, 63, 64, -64, -65, 1 << 40]
    for _ in 0..<2000 {
      let shift = next() % 64
      pks.append(Int64(bitPattern: next() >> shift) &* (next() % 2 == 0 ? 1 : -1))
    }
    let hashes = pks.indices.map { KeyedHash(low: UInt64($0), high: next()) }
    let record = TodoCopyRecord(identity: [5, 4, 3, 2, 1], pks: pks, hashes: hashes)
    #expect(TodoCopyRecord(bytes: record.bytes) == record)
    let run = TodoCopyRecord(
      identity: [1, 1, 1, 1, 1], pks: Array(1...1000), hashes: Array(repeating: .zero, count: 1000))
    #expect(TodoCopyRecord(bytes: run.bytes) == run)
    let empty = TodoCopyRecord(identity: [1, 1, 1, 1, 1], pks: [], hashes: [])
    #expect(run.bytes.count - empty.bytes.count == 17 * 1000)
    // Made by `bytes(count:rows:)` with zeros, then given the identity without a copy.
    var made = TodoCopyRecord.bytes(count: pks.count, rows: zip(pks, hashes).map { ($0, $1) })
    var parts: [UInt8] = []
    TodoCopyRecord.withIdentity([5, 4, 3, 2, 1], of: made) { parts += $0 }
    TodoCopyRecord.setIdentity([5, 4, 3, 2, 1], in: &made)
    #expect(parts == made)
    #expect(made == record.bytes)
  }

  @Test("a build records its copy of the to-dos so that the next build finds it as recorded")
  func buildRecordsItsCopy() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    var inputs = try IncrementalTests.Inputs(folder)
    _ = try IncrementalTests.build(inputs.options)
    let state = folder.sub(".site.taskpress/" + TodoCopyRecord.fileName)
    let bytes = try #require(FileManager.default.contents(atPath: state))
    // Under the header of the records in force (`StateRecords`).
    let index = FileManager.default.contents(
      atPath: folder.sub(".site.taskpress/" + StateRecords.indexName))
    let body = try #require(StateRecords.body(Array(bytes), header: index.map(Array.init)))
    let record = try #require(TodoCopyRecord(bytes: body))
    #expect(record.pks == Array(1...30))
    let copy = try #require(TodoCopy(path: folder.sub("site/data/todos.json"), record: record))
    #expect(
      copy.differingRows(
        TodoRows([]), key: try #require(HashKey.of(stateFolder: folder.sub(".site.taskpress")))
      ).map { $0.old.count } == 30)
    // Without the copy published, no record is left behind.
    inputs.options.dataCopies.remove(.todos)
    _ = try IncrementalTests.build(inputs.options)
    #expect(!FileManager.default.fileExists(atPath: state))
  }
}
