import Foundation
import Synchronization
import TestFixtures
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A differential harness of rebuilds: seeded random chains of edits to a small site, each
/// rebuild in place compared byte for byte (the site, and the public part of the state folder:
/// the snapshots) with a cold build of the same inputs into a fresh folder, which compares with
/// a copy of the site the rebuild replaced (`--previous`), as the rebuild compares with the site
/// it replaces. Every rebuild switch of `RenderPaths` is on or off at random in each rebuild.
///
/// `TASKPRESS_HARNESS_SEED` gives the seed (else a random one), `TASKPRESS_HARNESS_REBUILDS`
/// the number of rebuilds (by default 200 with `TASKPRESS_LONG_TESTS=1`, as in CI, else 25: one
/// chain); both are printed, and the seed is in every failure.
@Suite("RebuildHarnessTests")
struct RebuildHarnessTests {
  /// The switches that decide what a rebuild keeps and how it reads the last build.
  static let switches: [RenderPaths] = [
    .incremental, .carryOver, .dependents, .earlyFileCheck, .recordedCopy, .recordedPhotos,
    .recordedWarnings, .earlyTodoDiff, .copyReader, .keyOrderDiff, .batches, .streamedData,
    .recordedSearch,
  ]

  static let index =
    "<h1>{{labels.tasks}}</h1>\n{{$body}}<p>{{counts.summary}}</p>{{/body}}\n<footer>F</footer>"
  static let parentList =
    "{{<index}}{{$body}}<ul>{{#todos}}{{> todo-item}}{{/todos}}</ul>{{/body}}{{/index}}"
  static let dynamicList =
    "<h1>{{list.title}}</h1>{{>*list.kind}}<ul>{{#todos}}{{> todo-item}}{{/todos}}</ul>"

  static func index(_ mark: String) -> String {
    index.replacingOccurrences(of: "<footer>F", with: "<footer>F" + mark)
  }

  struct Chain {
    var random: SplitMix
    let seed: UInt64
    var inputs: IncrementalTests.Inputs
    let folder: TemporaryFolder
    var step = 0
    var nextPK: Int64 = 100
    var pks: [Int64] = Array(1...30)
    var log: [String] = []

    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }

    mutating func text() -> String {
      let pieces = [
        "a", "*b*", "_c_", "`d`", "<e>", "&", "# f", "[g](h)", "ü", "  ", "x\\y", "</script>",
        "\u{2028}", "Ｆｕｌｌ", "ガソリン", "ΣΟΦΟΣ", "\"q\"",
      ]
      return (0..<int(1..<5)).map { _ in pieces[int(0..<pieces.count)] }.joined(separator: " ")
        + " \(step)"
    }

    /// One random edit of the inputs; returns what it was.
    mutating func edit() throws -> String {
      step += 1
      switch int(0..<14) {
      case 0, 1:
        let pk = pks[int(0..<pks.count)]
        let text = self.text().replacingOccurrences(of: "'", with: "''")
        try inputs.change("todo.sqlite", "UPDATE todo SET text = '\(text)' WHERE pk = \(pk)")
        return "text of \(pk)"
      case 2:
        // Now and then in another search shard (1,000 keys each), or below zero.
        var pk = nextPK
        if chance(40) {
          let base: Int64 = [1, 999, 1000, 2500, 7001][int(0..<5)]
          pk = chance(30) ? -base - Int64(step) * 10_000 : base + Int64(step) * 10_000
        } else {
          nextPK += 1
        }
        guard !pks.contains(pk) else { return try edit() }
        pks.append(pk)
        try inputs.change(
          "todo.sqlite", "INSERT INTO todo VALUES (\(pk), 'New \(step)', \(int(0..<4)), 0)")
        return "added \(pk)"
      case 3 where pks.count > 3:
        let pk = pks.remove(at: int(0..<pks.count))
        try inputs.change("todo.sqlite", "DELETE FROM todo WHERE pk = \(pk)")
        return "removed \(pk)"
      case 4:
        let pk = pks[int(0..<pks.count)]
        try inputs.change("todo.sqlite", "UPDATE todo SET complete = 1 - complete WHERE pk = \(pk)")
        return "completion of \(pk)"
      case 5:
        let pk = pks[int(0..<pks.count)]
        let priority = ["1", "2", "3", "NULL", "9"][int(0..<5)]
        try inputs.change(
          "todo.sqlite",
          "UPDATE todo SET priority = \(priority), text = text || '.' WHERE pk = \(pk)")
        return "priority of \(pk)"
      case 6:
        // A text forged against the old, unkeyed row hash of the text before it.
        let pk = pks[int(0..<pks.count)]
        let original = "Pay the rent to Alice by Friday!"
        try inputs.change("todo.sqlite", "UPDATE todo SET text = '\(original)' WHERE pk = \(pk)")
        return "forge \(pk)"
      case 7:
        // Templates: a partial, a body, a parent, a dynamic name, the layout's partial.
        let mark = " \(step)"
        switch int(0..<6) {
        case 0:
          try inputs.writeTemplate(
            "todo-item.html",
            "<li>{{title}} {{#complete}}done{{/complete}}</li>" + mark)
          return "template todo-item.html"
        case 1:
          try inputs.writeTemplate("index.html", RebuildHarnessTests.index(mark))
          return "template index.html"
        case 2:
          try inputs.writeTemplate("index.html", RebuildHarnessTests.index(mark))
          try inputs.writeTemplate("list.html", RebuildHarnessTests.parentList)
          return "template list.html with index.html as its parent"
        case 3:
          try inputs.writeTemplate("status.html", "<p>status</p>" + mark)
          try inputs.writeTemplate("priority.html", "<p>priority</p>" + mark)
          try inputs.writeTemplate("list.html", RebuildHarnessTests.dynamicList)
          return "template list.html with a dynamic partial"
        case 4:
          let path = inputs.folder.sub("templates/priority.html")
          guard FileManager.default.fileExists(atPath: path) else { return try edit() }
          try inputs.writeTemplate("priority.html", "<p>priority</p>" + mark)
          return "template priority.html"
        default:
          try inputs.writeTemplate("nav.html", "<nav>{{labels.tasks}}</nav>" + mark)
          return "template nav.html"
        }
      case 8:
        let path = inputs.folder.sub("templates")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        guard let name = names.sorted().first(where: { $0 != "labels.json" }) else {
          return try edit()
        }
        try FileManager.default.removeItem(atPath: path + "/" + name)
        // A list.html whose parent or partial is gone would fail the check: out with it.
        for dependent in ["list.html", "status.html", "priority.html", "index.html"] {
          try? FileManager.default.removeItem(atPath: path + "/" + dependent)
        }
        return "templates removed"
      case 9:
        try inputs.writeTemplate(
          "labels.json", #"{"en": {"task": "Chore \#(step)"}}"#)
        return "labels"
      case 10:
        switch int(0..<3) {
        case 0: inputs.options.title = "Site \(step)"
        case 1: inputs.options.pageSize = inputs.options.pageSize == 3 ? 4 : 3
        default: inputs.options.prettyURLs.toggle()
        }
        return "options"
      case 11:
        inputs.options.date = "2026-12-\(10 + step % 18)"
        let pk = pks[int(0..<pks.count)]
        try inputs.change("todo.sqlite", "UPDATE todo SET text = text || '+' WHERE pk = \(pk)")
        return "date \(inputs.options.date ?? "")"
      case 12:
        let id = int(1..<3)
        try inputs.change(
          "possessions.sqlite",
          "UPDATE possessions SET name = 'Thing \(step)', photo = X'\(TestPNG.hex(TestPNG.make(seed: step + 10)))' WHERE id = \(id)"
        )
        return "photo of \(id)"
      default:
        let id = int(1..<3)
        try inputs.change(
          "possessions.sqlite",
          "UPDATE possessions SET description = 'About \(step)' WHERE id = \(id)")
        return "possession \(id)"
      }
    }
  }

  /// The snapshots in the state folder of `output`: the public part of the state. Each as the
  /// next build reads it: the records in force (`StateRecords`) without their header line, which
  /// names the manifest and the commit; the others not at all.
  static func publicState(_ output: String) -> [String: [UInt8]] {
    guard let state = OutputWriter.stateFolder(ofOutput: output) else { return [:] }
    let header = StateRecords.indexHeader(statePath: state)
    var result: [String: [UInt8]] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: state)) ?? []
    where name.hasPrefix("snapshot-") {
      result[name] = readFile(state + "/" + name).flatMap { StateRecords.body($0, header: header) }
    }
    return result
  }

  static func environment(_ name: String) -> String? {
    ProcessInfo.processInfo.environment[name]
  }

  @Test("seeded chains of edits: every rebuild gives a cold build's bytes")
  func chains() throws {
    let seed =
      Self.environment("TASKPRESS_HARNESS_SEED").flatMap { UInt64($0) }
      ?? UInt64.random(in: 0...UInt64(UInt32.max))
    let total =
      Self.environment("TASKPRESS_HARNESS_REBUILDS").flatMap { Int($0) }
      ?? TestEnvironment.size(long: 200, short: 25)
    print("RebuildHarnessTests: TASKPRESS_HARNESS_SEED=\(seed) TASKPRESS_HARNESS_REBUILDS=\(total)")
    var random = SplitMix(state: seed)
    var rebuilds = 0
    var chainNumber = 0
    while rebuilds < total {
      chainNumber += 1
      let folder = try TemporaryFolder()
      defer { folder.cleanUp() }
      var chain = Chain(
        random: SplitMix(state: random.next()), seed: seed,
        inputs: try IncrementalTests.Inputs(folder), folder: folder)
      // Small, so that 200 rebuilds and their cold twins take seconds: 8 to-dos (3 to a page),
      // 2 possessions, 2 contacts.
      chain.inputs.options.pageSize = 3
      chain.inputs.options.jobs = 1
      try chain.inputs.change("todo.sqlite", "DELETE FROM todo WHERE pk > 8")
      try chain.inputs.change("possessions.sqlite", "DELETE FROM possessions WHERE id > 2")
      try chain.inputs.change("contacts.sqlite", "DELETE FROM contacts WHERE id > 2")
      chain.pks = Array(1...8)
      if chainNumber % 2 == 0 {
        // Text keys (`TodoKey`), read through a view over the table the edits change: named
        // ones, hashed ones (capitals, hostile text), and whole numbers beside them.
        try chain.inputs.change(
          "todo.sqlite",
          """
          CREATE VIEW tasks AS SELECT CASE pk % 4 WHEN 0 THEN 'u-' || pk \
          WHEN 1 THEN 'K' || pk || '/../<script>' WHEN 2 THEN pk ELSE 'x' || pk END AS id, \
          text, priority, complete FROM todo
          """)
        chain.inputs.options.mapping.todos = SourceMapping(table: "tasks", columns: ["pk": "id"])
        chain.log.append("text keys")
      }
      _ = try IncrementalTests.build(chain.inputs.options)
      let length = min(total - rebuilds, total < 100 ? 12 : 25)
      for _ in 0..<length {
        let what = try chain.edit()
        chain.log.append(what)
        let failed = try Self.rebuildAndCompare(&chain, what: what, chainNumber: chainNumber)
        rebuilds += 1
        if failed { return }
        if what.hasPrefix("forge "), let pk = Int64(what.dropFirst(6)) {
          let forged = KeyedHashTests.forged(against: "Pay the rent to Alice by Friday!", pk: pk)
          try chain.inputs.change(
            "todo.sqlite",
            "UPDATE todo SET text = '\(forged.replacingOccurrences(of: "'", with: "''"))' WHERE pk = \(pk)"
          )
          chain.log.append("forged \(pk)")
          if try Self.rebuildAndCompare(&chain, what: "forged \(pk)", chainNumber: chainNumber) {
            return
          }
          rebuilds += 1
        }
      }
    }
    print("RebuildHarnessTests: \(rebuilds) rebuilds in \(chainNumber) chains, seed \(seed)")
  }

  /// Rebuilds the chain's site in place (killed once at random first, or two builds at once),
  /// builds the same inputs cold, compares; returns whether they differed.
  static func rebuildAndCompare(_ chain: inout Chain, what: String, chainNumber: Int) throws
    -> Bool
  {
    var options = chain.inputs.options
    var paths = RenderPaths.all
    for flag in switches where chain.chance(25) { paths.subtract(flag) }
    options.renderPaths = paths
    let site = options.output
    let before = chain.folder.sub("before-\(chain.step)")
    let mode = chain.int(0..<10)
    if mode == 0 {
      // A build killed during its commit, then the rebuild.
      let limit = chain.int(1..<12)
      _ = try? Build.run(
        options, interrupt: InterruptFlag(), reporter: Build.Reporter { _ in },
        commitStepLimit: limit)
      chain.log.append("killed after \(limit) steps")
    }
    if mode == 1 {
      // A hand edit of a published page, its size kept, its modification time another (set,
      // not left to the clock: a test never relies on a tick passing).
      let contents = Tree.contents(site)
      let pages = contents.keys.filter { $0.hasSuffix(".html") || $0.hasPrefix("search/t") }
        .sorted()
      if !pages.isEmpty {
        let page = pages[chain.int(0..<pages.count)]
        var bytes = contents[page] ?? []
        if !bytes.isEmpty {
          let index = chain.int(0..<bytes.count)
          bytes[index] = bytes[index] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
          let path = site + "/" + page
          let modified = modificationTime(path) ?? 0
          try Data(bytes).write(to: URL(fileURLWithPath: path))
          let earlier = modified - 1_000_000_000
          let time = timespec(
            tv_sec: Int(earlier / 1_000_000_000), tv_nsec: Int(earlier % 1_000_000_000))
          var times = [time, time]
          #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
          chain.log.append("hand edit of \(page)")
        }
      }
    }
    try IncrementalTests.copy(site, before)
    if mode == 2 {
      // Two builds at once: one may find the folder locked; the site is the other's.
      options.renderPaths = .all
      let results = Mutex<[Bool]>([])
      let both = options
      DispatchQueue.concurrentPerform(iterations: 2) { _ in
        let ok = (try? IncrementalTests.build(both)) != nil
        results.withLock { $0.append(ok) }
      }
      #expect(results.withLock { $0.contains(true) }, "seed \(chain.seed): no build of two ran")
      chain.log.append("two at once")
    } else {
      _ = try IncrementalTests.build(options)
    }
    var cold = chain.inputs.options
    cold.output = chain.folder.sub("cold-\(chain.step)")
    cold.previous = before
    cold.renderPaths = RenderPaths.all.subtracting(.incremental)
    _ = try IncrementalTests.build(cold)
    let expected = Tree.contents(cold.output)
    let actual = Tree.contents(site)
    let differences = DeterminismTests.differences(expected, actual)
    let stateDifferences = DeterminismTests.differences(
      publicState(cold.output), publicState(site))
    try? FileManager.default.removeItem(atPath: cold.output)
    if let state = OutputWriter.stateFolder(ofOutput: cold.output) {
      try? FileManager.default.removeItem(atPath: state)
    }
    try? FileManager.default.removeItem(atPath: before)
    let failed = !differences.isEmpty || !stateDifferences.isEmpty
    #expect(
      !failed,
      """
      TASKPRESS_HARNESS_SEED=\(chain.seed), chain \(chainNumber), rebuild \(chain.step) (\(what)) \
      with paths \(paths.rawValue): \(differences.count) files differ \
      \(differences.prefix(6)), state \(stateDifferences.prefix(3)) \
      \(DifferentialTests.firstDifference(expected, actual, differences.first)); \
      edits: \(chain.log.suffix(12))
      """)
    return failed
  }
}
