import Foundation
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct OutputHashTests {
  @Test("the content hash is fixed across runs and machines")
  func knownValues() {
    // Recorded once; a change here changes every photo name of every site.
    #expect(ContentHash.hex(of: []) == "a2b68888bae30e84")
    #expect(ContentHash.hex(of: []).count == 16)
    #expect(ContentHash.hex(of: Array("abc".utf8)) == "63b33dc22e56a06f")
    #expect(ContentHash.hex(of: Array(0..<100)) == "13e051394b4d68ae")
  }

  @Test("hashing in pieces equals hashing at once", arguments: [1, 3, 7, 31, 32, 33, 1000])
  func streaming(piece: Int) {
    let bytes = (0..<1234).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 3) }
    var hasher = ContentHasher()
    var start = 0
    while start < bytes.count {
      let end = min(start + piece, bytes.count)
      hasher.update(Array(bytes[start..<end]))
      start = end
    }
    #expect(hasher.finalize() == ContentHash(of: bytes))
  }

  @Test("nearby inputs hash apart")
  func distinct() {
    var seen = Set<UInt64>()
    for length in 0..<64 {
      let zeros = [UInt8](repeating: 0, count: length)
      seen.insert(ContentHash(of: zeros).value)
      for bit in 0..<(length * 8) {
        var flipped = zeros
        flipped[bit / 8] ^= 1 << UInt8(bit % 8)
        seen.insert(ContentHash(of: flipped).value)
      }
    }
    #expect(seen.count == 64 + (0..<64).reduce(0) { $0 + $1 * 8 })
  }

  @Test("hex round-trips")
  func hexRoundTrip() throws {
    let hash = ContentHash(of: Array("photo".utf8))
    #expect(ContentHash(hex: Substring(hash.hex)) == hash)
    #expect(ContentHash(hex: "xyz") == nil)
  }

  @Test("a manifest round-trips and rejects damage")
  func manifest() throws {
    var manifest = Manifest()
    manifest.files.insert(
      "a b/c d.html", .init(hash: KeyedHash(value: 42), size: 3, modified: -5))
    manifest.files.insert("a.html", .init(hash: KeyedHash(value: 1), size: 0, modified: 1))
    manifest.folders = ["a b"]
    let text = manifest.serialized()
    #expect(
      String(decoding: text, as: UTF8.self)
        == "taskpress-manifest 2\n0000000000000000000000000000002a 3 -5 a b/c d.html\n"
        + "00000000000000000000000000000001 0 1 a.html\n"
        + "folder a b\n")
    #expect(Manifest(parsing: text) == manifest)
    #expect(Manifest(parsing: Array("taskpress-manifest 2\nnonsense\n".utf8)) == nil)
    #expect(Manifest(parsing: Array("other\n".utf8)) == nil)
    #expect(
      Manifest(parsing: Array("taskpress-manifest 1\n0000000000000001 0 1 ../x\n".utf8)) == nil)
  }

  @Test("a manifest long enough to be written on two threads is every line in order")
  func longManifest() throws {
    var manifest = Manifest()
    var expected = ""
    let count = Manifest.parallelThreshold * 2 + 7
    let paths = (0..<count).map { "todos/\($0).html" }.sorted(by: OutputPath.precedes)
    for (number, path) in paths.enumerated() {
      let entry = Manifest.Entry(
        hash: KeyedHash(value: UInt64(number) &* 0x9E37_79B9_7F4A_7C15), size: number * 37,
        modified: Int64(number) * 1_000_000_007 - 5_000_000_000)
      manifest.files.insert(path, entry)
      let hex = String(entry.hash.low, radix: 16)
      expected += String(repeating: "0", count: 32 - hex.count) + hex
      expected += " \(entry.size) \(entry.modified) \(path)\n"
    }
    manifest.folders = ["todos"]
    let text = manifest.serialized()
    #expect(
      String(decoding: text, as: UTF8.self)
        == "taskpress-manifest 2\n" + expected + "folder todos\n")
    #expect(Manifest(parsing: text) == manifest)
  }

  @Test("a manifest streamed to a file is the text made in memory, byte for byte, and its hash")
  func streamedManifest() throws {
    // More lines than the stream's buffer holds, of every kind of number, so that it is
    // written out several times, and lines end at every place in it.
    var files: [(path: String, entry: Manifest.Entry)] = []
    let count = 40_000
    let paths = (0..<count).map { number in
      number % 7 == 0 ? "todos/\(number)/index.html" : "todos/\(number).html"
    }.sorted(by: OutputPath.precedes)
    for (number, path) in paths.enumerated() {
      files.append(
        (
          path,
          Manifest.Entry(
            hash: KeyedHash(value: UInt64(number) &* 0x9E37_79B9_7F4A_7C15),
            size: number % 5 == 0 ? Int.max - number : number * 37,
            modified: number % 3 == 0 ? -.max : Int64(number) * 1_000_000_007)
        ))
    }
    files.append(("é/" + String(repeating: "long-name-", count: 300) + ".html", files[0].entry))
    let folders = ["a b", "todos", "todos/7"]
    let expected = Manifest.text(files: files, folders: folders)
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let fd = open(folder.sub("manifest"), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    try #require(fd >= 0)
    let hash = try Manifest.write(
      count: files.count,
      file: { index, body in
        var path = files[index].path
        path.withUTF8 { body($0, files[index].entry) }
      }, folders: folders, to: fd)
    close(fd)
    let written = try #require(FileManager.default.contents(atPath: folder.sub("manifest")))
    #expect(written.count == expected.count)
    #expect(Array(written) == expected)
    #expect(hash == ContentHash(of: expected))
  }

  @Test("hashing at once equals hashing byte by byte, for every length of the last block")
  func tails() {
    let bytes = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    for length in 0...bytes.count {
      let prefix = Array(bytes[0..<length])
      var hasher = ContentHasher()
      for byte in prefix { hasher.update([byte]) }
      #expect(ContentHash(of: prefix) == hasher.finalize(), "\(length) bytes")
    }
  }

  @Test("the manifest holds any size and modification time")
  func manifestNumbers() throws {
    var manifest = Manifest()
    manifest.files.insert(
      "x", .init(hash: KeyedHash(value: .max), size: Int.max, modified: -.max))
    manifest.files.insert("y", .init(hash: KeyedHash(value: 0), size: 0, modified: .max))
    manifest.files.insert("z", .init(hash: KeyedHash(value: 0xAB), size: 10, modified: -1))
    let text = manifest.serialized()
    #expect(
      String(decoding: text, as: UTF8.self)
        == "taskpress-manifest 2\n"
        + "0000000000000000ffffffffffffffff 9223372036854775807 -9223372036854775807 x\n"
        + "00000000000000000000000000000000 0 9223372036854775807 y\n"
        + "000000000000000000000000000000ab 10 -1 z\n")
    #expect(Manifest(parsing: text) == manifest)
  }

  @Test("paths sort byte by byte, however long the start they share")
  func byteOrder() {
    var paths = [
      "", "a", "a.html", "a/b", "b", "todos/1.html", "todos/10.html", "todos/2.html",
      "todos/100000.html", "possessions/item-1", "possessions/item-1.html",
      "possessions/item-10.html", "possessions/item-1/index.html", "é.html", "e.html",
      "0123456789abcdef", "0123456789abcdef0", "0123456789abcde", "x\u{0}", "x",
    ]
    // And many more made of few letters, so that long shared starts are common.
    let letters = ["a", "/", ".", "é", "1", "\u{0}"]
    var seed: UInt64 = 42
    func next(_ bound: Int) -> Int {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(seed >> 33) % bound
    }
    for number in 0..<3000 {
      var path = number % 2 == 0 ? "possessions/item-" : ""
      for _ in 0..<next(30) { path += letters[next(letters.count)] }
      paths.append(path)
    }
    #expect(OutputPath.sorted(paths) == paths.sorted(by: OutputPath.precedes))
    #expect(OutputPath.sorted([String]()).isEmpty)

    // Enough to be sorted in two halves on two threads and merged, duplicates included.
    var many = paths
    while many.count <= OutputPath.parallelSortThreshold * 2 {
      many.append(paths[next(paths.count)] + (next(3) == 0 ? "" : letters[next(letters.count)]))
    }
    let order = OutputPath.byteOrder(many.count) { many[$0] }
    #expect(Set(order).count == many.count)
    #expect(order.map { many[$0] } == many.sorted(by: OutputPath.precedes))
  }

  @Test("byteOrder32 orders as a stable sort of the UTF-8 bytes, on one thread or two")
  func byteOrderAgainstPlainSort() {
    // Hostile: NULs where the keys pad with zeros, lengths about 16, long shared starts.
    let stem = "0123456789abcdef"
    var strings = [
      "", "\u{0}", "\u{0}\u{0}", stem, stem + "\u{0}", String(stem.dropLast()),
      String(stem.dropLast()) + "\u{0}", stem + "0", stem + "00", stem + "0\u{0}",
      stem + stem, stem + stem + "\u{0}", "é", "e\u{301}", "todos/1.html", "todos/1.html",
    ]
    let letters = ["a", "/", "\u{0}", "é", "0", "\u{7F}"]
    var seed: UInt64 = 7
    func next(_ bound: Int) -> Int {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(seed >> 33) % bound
    }
    for _ in 0..<(OutputPath.parallelSortThreshold * 2 + 123) {
      var string = next(4) == 0 ? "" : String(stem.prefix(next(17)))
      for _ in 0..<next(24) { string += letters[next(letters.count)] }
      strings.append(next(5) == 0 ? strings[next(strings.count)] : string)
    }
    for count in [0, 1, 17, 5000, strings.count] {
      let some = Array(strings.prefix(count))
      let bytes = some.map { Array($0.utf8) }
      // The plain twin: the numbers sorted by their bytes, ties in number order.
      let plain = some.indices.sorted { a, b in
        bytes[a] == bytes[b] ? a < b : bytes[a].lexicographicallyPrecedes(bytes[b])
      }
      let order = OutputPath.byteOrder32(some.count) { index, body in
        bytes[index].withUnsafeBufferPointer(body)
      }
      #expect(order.map { Int($0) } == plain, "\(count) strings")
      #expect(OutputPath.byteOrder(some.count) { some[$0] } == plain, "\(count) strings")
    }
  }
}

@Suite struct RecordTableTests {
  @Test("the record table gives back each record as it was added or last set")
  func againstArray() {
    var table = OutputWriter.RecordTable()
    var expected: [OutputWriter.Record] = []
    let entry = { (n: Int) in
      Manifest.Entry(hash: KeyedHash(value: UInt64(n) &* 31), size: n * 3, modified: -Int64(n))
    }
    for number in 0..<500 {
      let path = number % 3 == 0 ? "" : "todos/\(number)/é \(number).html"
      let index = expected.count
      var record = OutputWriter.Record(path: path, plan: number % 4, staged: .pending)
      table.append(record)
      switch index % 4 {
      case 0: break
      case 1: record.staged = .unchanged(entry(number))
      case 2: record.staged = .written(entry(number), stagingName: .flat(number * 1000))
      default: record.staged = .written(entry(number), stagingName: .inFolderCopy)
      }
      record.plan = number % 5
      table.set(index, staged: record.staged, plan: record.plan)
      expected.append(record)
      if number % 50 == 49 {
        table.removeLast(7)
        expected.removeLast(7)
      }
    }
    #expect(table.count == expected.count)
    for index in expected.indices {
      let record = table[index]
      #expect(record.path == expected[index].path)
      #expect(record.plan == expected[index].plan)
      #expect("\(record.staged)" == "\(expected[index].staged)")
      #expect(table.hasPath(index, expected[index].path))
      #expect(!table.hasPath(index, expected[index].path + "x"))
      #expect(table.isPending(index) == (index % 4 == 0))
      #expect(table.isWritten(index) == (index % 4 >= 2))
    }
  }
}

@Suite struct PathTableTests {
  @Test("the path table finds what was added and forgets what was removed, as a dictionary")
  func againstDictionary() {
    var table = PathTable()
    var expected: [String: Int] = [:]
    var records = OutputWriter.RecordTable()
    var seed: UInt64 = 7
    func next(_ bound: Int) -> Int {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(seed >> 33) % bound
    }
    // Few distinct paths, so that adds of present paths and removals are frequent; enough of
    // them that the table grows several times.
    for _ in 0..<40_000 {
      let path = "todos/\(next(6000)).html"
      let hash = PathTable.hash(of: path)
      if next(4) == 0 {
        table.remove(path, hash: hash, records: records)
        expected[path] = nil
      } else {
        let number = records.count
        records.append(OutputWriter.Record(path: path, plan: 0, staged: .pending))
        let earlier = table.insert(path, hash: hash, number: number, records: records)
        #expect(earlier == expected[path])
        if earlier == nil { expected[path] = number }
      }
    }
    #expect(table.count == expected.count)
    for number in 0..<6000 {
      let path = "todos/\(number).html"
      #expect(
        table.number(of: path, hash: PathTable.hash(of: path), records: records) == expected[path])
    }
  }
}
