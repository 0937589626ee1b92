import Foundation
@_spi(Testing) import SQLite
import TaskpressCLI
import TestFixtures
import Testing

/// Seeded mutants of valid databases, built as a user would: each build exits 0 or 1, a failure
/// names the input, the input's folder is left as it was, and a failed build leaves no site.
/// (`Scripts/fuzz-databases` runs thousands of them through the binary, twice each.)
@Suite struct DatabaseFuzzTests {
  /// SplitMix64: the same cases on every run and machine.
  struct Generator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var value = state
      value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
      value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
      return value ^ (value >> 31)
    }
  }

  struct Seed: Sendable {
    var option: String
    var sql: String
  }

  static let seeds: [Seed] = {
    var todos = "PRAGMA page_size = 1024;"
    todos += "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete);"
    for key in 1...150 {
      let text = String(repeating: "task \(key) ", count: key % 9 + 1)
      todos += "INSERT INTO todo VALUES (\(key), '\(text)', \(key % 4), \(key % 2));"
    }
    var possessions = "PRAGMA page_size = 1024;"
    possessions += "CREATE TABLE possessions(id INTEGER PRIMARY KEY, name, description, photo);"
    for key in 1...30 {
      let png = "89504E470D0A1A0A0000000D4948445200000003000000020802000000"
      let noise = String(repeating: String(format: "%02X", key), count: key * 40)
      possessions +=
        "INSERT INTO possessions VALUES (\(key), 'thing \(key)', 'note', X'\(png)\(noise)');"
    }
    // Photos stored as paths, hostile ones: a mutant may turn them into any other path.
    for (key, path) in ["../db.sqlite", "/etc/passwd", "db.sqlite", ".", "a/../../b.png"]
      .enumerated()
    {
      possessions += "INSERT INTO possessions VALUES (\(31 + key), 'path', 'note', '\(path)');"
    }
    var contacts = "PRAGMA page_size = 1024;"
    contacts += "CREATE TABLE contacts(id INTEGER PRIMARY KEY, name, address, phone);"
    for key in 1...120 {
      contacts += "INSERT INTO contacts VALUES (\(key), 'Person \(key)', 'Street \(key)', NULL);"
    }
    return [
      Seed(option: "--todos", sql: todos),
      Seed(option: "--todos", sql: "PRAGMA journal_mode = WAL;" + todos),
      Seed(option: "--possessions", sql: possessions),
      Seed(option: "--contacts", sql: contacts),
    ]
  }()

  /// One damage, chosen by `random`, to a database image of 1 KB pages.
  static func mutate(_ bytes: inout [UInt8], _ random: inout Generator) -> String {
    let size = 1024
    let pages = max(1, bytes.count / size)
    let page = Int.random(in: 0..<pages, using: &random)
    let start = page * size
    let header = start + (page == 0 ? 100 : 0)
    switch Int.random(in: 0..<8, using: &random) {
    case 0:
      for _ in 0..<Int.random(in: 1...8, using: &random) {
        bytes[start + Int.random(in: 0..<size, using: &random)] = .random(
          in: 0...255, using: &random)
      }
      return "flip bytes"
    case 1:
      let cells = Int(bytes[header + 3]) << 8 | Int(bytes[header + 4])
      let first = bytes[header] == 5 || bytes[header] == 2 ? 12 : 8
      guard cells > 0, header + first + 2 * cells <= start + size else { return "no cells" }
      let slot = header + first + 2 * Int.random(in: 0..<cells, using: &random)
      let value =
        [size + 10, size - 2, Int.random(in: 0..<65536, using: &random)].randomElement(
          using: &random) ?? 0
      bytes[slot] = UInt8((value >> 8) & 0xFF)
      bytes[slot + 1] = UInt8(value & 0xFF)
      return "cell pointer"
    case 2:
      bytes.replaceSubrange(start..<(start + size), with: [UInt8](repeating: 0, count: size))
      return "zero page"
    case 3:
      let other = Int.random(in: 0..<pages, using: &random) * size
      let copy = Array(bytes[start..<(start + size)])
      bytes.replaceSubrange(other..<(other + size), with: copy)
      return "duplicate page"
    case 4:
      bytes.removeSubrange(Int.random(in: 1..<bytes.count, using: &random)...)
      return "truncate"
    case 5:
      bytes[
        [16, 17, 18, 19, 20, 21, 28, 32, 36, 44, 48, 52, 56].randomElement(using: &random) ?? 28] =
        .random(in: 0...255, using: &random)
      return "header field"
    case 6:
      let offset = Int.random(in: 0..<bytes.count, using: &random)
      bytes[offset] ^= 1 << UInt8.random(in: 0..<8, using: &random)
      return "flip bit"
    default:
      bytes[header + Int.random(in: 0..<12, using: &random)] = .random(in: 0...255, using: &random)
      return "page header"
    }
  }

  /// 300 mutants with `TASKPRESS_LONG_TESTS=1`, else 60.
  @Test("seeded mutants each build or fail naming the input, leaving nothing beside it")
  func mutants() throws {
    let count = TestEnvironment.size(long: 300, short: 60)
    let root = FileManager.default.temporaryDirectory
      .appending(path: "taskpress-fuzz-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: root) }
    var images: [[UInt8]] = []
    for (index, seed) in Self.seeds.enumerated() {
      let path = "\(root)/seed-\(index).sqlite"
      try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
      try Database.createForTesting(at: path, sql: seed.sql)
      images.append([UInt8](try Data(contentsOf: URL(filePath: path))))
    }
    var random = Generator(state: 16)
    var outcomes: [Int32: Int] = [:]
    for index in 0..<count {
      let seed = index % Self.seeds.count
      var bytes = images[seed]
      let damage = Self.mutate(&bytes, &random)
      let folder = "\(root)/case-\(index)"
      let input = "\(folder)/input"
      try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
      let path = "\(input)/db.sqlite"
      try Data(bytes).write(to: URL(filePath: path))
      let io = CapturedIO(environment: [:], currentDirectory: folder)
      let status = TaskpressCLI.run(
        arguments: ["build", Self.seeds[seed].option, path, "--output", "\(folder)/site"], io: io)
      outcomes[status, default: 0] += 1
      let what = "case \(index) (\(damage)): exit \(status), \(io.stderr)"
      #expect(status == 0 || status == 1, "\(what)")
      if status == 1 {
        let error = io.stderr.split(separator: "\n").first { $0.hasPrefix("error: ") }
        #expect(error?.hasPrefix("error: \(path): ") == true, "\(what)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/site"), "\(what)")
      }
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: input) == ["db.sqlite"], "\(what)")
      #expect([UInt8](try Data(contentsOf: URL(filePath: path))) == bytes, "\(what)")
      try? FileManager.default.removeItem(atPath: folder)
    }
    // Both outcomes happen: the mutants are neither all harmless nor all fatal.
    #expect(
      outcomes[0, default: 0] > count / 10 && outcomes[1, default: 0] > count / 10, "\(outcomes)")
  }
}
