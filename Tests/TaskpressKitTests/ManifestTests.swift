import Testing

@testable import TaskpressKit

/// `Manifest.Files`, the packed table of a manifest's files, against a `[String: Entry]` given
/// the same paths: its plain twin.
@Suite struct ManifestTests {
  typealias Entry = Manifest.Entry

  /// A seeded run of inserts (a third of them to paths already there), with paths that share
  /// prefixes, differ in one byte, are empty-foldered, long, and not ASCII.
  static func inserts(_ count: Int, seed: UInt64) -> [(path: String, entry: Entry)] {
    var state = seed
    func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state >> 33
    }
    let folders = ["", "todos/", "todos/1/", "päge/", String(repeating: "deep/", count: 30)]
    var made: [String] = []
    var out: [(path: String, entry: Entry)] = []
    for index in 0..<count {
      let path: String
      if !made.isEmpty, next() % 3 == 0 {
        path = made[Int(next() % UInt64(made.count))]
      } else {
        path = folders[Int(next() % UInt64(folders.count))] + "\(next() % 5000).html"
        made.append(path)
      }
      let entry = Entry(
        hash: KeyedHash(value: next() << 20 | UInt64(index)), size: Int(next() % 100_000),
        modified: Int64(next()) - 1 << 30)
      out.append((path, entry))
    }
    return out
  }

  @Test(
    "the packed table holds what a dictionary holds", arguments: [0, 1, 11, 12, 13, 500, 20_000])
  func asDictionary(count: Int) {
    var files = Manifest.Files()
    var model: [String: Entry] = [:]
    for (path, entry) in Self.inserts(count, seed: UInt64(count) + 7) {
      files.insert(path, entry)
      model[path] = entry
    }
    #expect(files.count == model.count)
    #expect(files.isEmpty == model.isEmpty)
    #expect(Set(files.paths) == Set(model.keys))
    #expect(files.paths.count == model.count)
    for (path, entry) in model {
      #expect(files[path] == entry, "\(path)")
    }
    for index in files.indices {
      #expect(model[files.path(index)] == files.entry(index))
      let cPath = files.withCPath(index) { String(cString: $0) }
      #expect(cPath == files.path(index))
    }
    for missing in ["", "todos/", "todos/1.htm", "todos/1.html/", "x/0.html", "päge/5000.html"] {
      #expect(files[missing] == model[missing], "\(missing)")
    }
  }

  @Test("reserving room first gives the same table")
  func reserved() {
    let inserts = Self.inserts(3000, seed: 99)
    var plain = Manifest.Files()
    var reserved = Manifest.Files()
    reserved.reserveCapacity(inserts.count, pathBytes: 40 * inserts.count)
    for (path, entry) in inserts {
      plain.insert(path, entry)
      reserved.insert(path, entry)
    }
    #expect(plain == reserved)
    #expect(plain.paths == reserved.paths)
  }

  @Test("equal tables are equal in any order; a changed or missing entry is not")
  func equality() throws {
    let inserts = Self.inserts(400, seed: 3)
    var forward = Manifest.Files()
    var backward = Manifest.Files()
    for (path, entry) in inserts { forward.insert(path, entry) }
    var model: [String: Entry] = [:]
    for (path, entry) in inserts { model[path] = entry }
    for (path, entry) in model.sorted(by: { $0.key > $1.key }) { backward.insert(path, entry) }
    #expect(forward == backward)

    var changed = backward
    let (path, entry) = try #require(model.first)
    changed.insert(path, Entry(hash: entry.hash, size: entry.size + 1, modified: entry.modified))
    #expect(forward != changed)

    var fewer = Manifest.Files()
    for (other, entry) in model where other != path { fewer.insert(other, entry) }
    #expect(forward != fewer)
    #expect(fewer != forward)
  }

  @Test("merging keeps the other table's entry where both have a path")
  func merging() {
    let first = Self.inserts(300, seed: 5)
    let second = Self.inserts(300, seed: 6)
    var files = Manifest.Files()
    var other = Manifest.Files()
    var model: [String: Entry] = [:]
    for (path, entry) in first {
      files.insert(path, entry)
      model[path] = entry
    }
    for (path, entry) in second {
      other.insert(path, entry)
    }
    var otherModel: [String: Entry] = [:]
    for (path, entry) in second { otherModel[path] = entry }
    model.merge(otherModel) { _, new in new }
    files.merge(other)
    #expect(files.count == model.count)
    for (path, entry) in model {
      #expect(files[path] == entry, "\(path)")
    }
  }

  @Test("a parsed manifest holds every line's file, and serializes back to the same text")
  func parsedLines() throws {
    var manifest = Manifest()
    for (path, entry) in Self.inserts(2000, seed: 11) {
      manifest.files.insert(path, entry)
    }
    manifest.folders = ["todos", "todos/1"]
    let text = manifest.serialized()
    let parsed = try #require(Manifest(parsing: text))
    #expect(parsed == manifest)
    #expect(parsed.serialized() == text)
    // Lines in the manifest's order: the table numbers them so.
    let lines = String(decoding: text, as: UTF8.self).split(separator: "\n").dropFirst()
      .filter { !$0.hasPrefix("folder ") }
    #expect(parsed.files.paths == lines.map { String($0.split(separator: " ", maxSplits: 3)[3]) })
  }
}
