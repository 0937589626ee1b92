import Testing

@testable import TaskpressKit

/// The keep plan (`KeepPlan`, issue 41): which pages a rebuild renders, keeps or carries over,
/// decided from the recorded fingerprints, the changed files and the pages that show a changed
/// row alone; its plain twin renders every page.
@Suite struct KeepPlanTests {
  static func hash(_ value: UInt64) -> KeyedHash { KeyedHash(low: value, high: ~value) }

  /// A record of files `todos/1.html` to `todos/<count>.html`, file `n`'s fingerprint `hash(n)`.
  static func record(_ count: Int) -> FingerprintRecord {
    FingerprintRecord(
      (1...count).map { (FingerprintRecord.key("todos/\($0).html"), hash(UInt64($0))) })
  }

  static func key(_ number: Int) -> UInt64 { FingerprintRecord.key("todos/\(number).html") }

  @Test("the plain twin renders every page, and stages, carries and updates nothing")
  func renderEverything() {
    let plan = KeepPlan.renderEverything
    for number in 1...8 {
      #expect(
        plan.decision(key: Self.key(number), fingerprint: Self.hash(UInt64(number))) == .render)
      #expect(plan.decision(key: Self.key(number), fingerprint: nil) == .render)
    }
    #expect(plan.stages(.todo(0)) && plan.stages(.index(2)) && plan.stages(.board))
    #expect(!plan.carries && !plan.narrows && plan.basis == nil)
    #expect(plan.carriedKeys(carried: [1, 2], rendered: []) == nil)
  }

  @Test("without changed files: an unchanged fingerprint is kept by the writer, any other rendered")
  func keepEach() {
    let plan = KeepPlan(recorded: Self.record(4), changedFiles: nil, looked: [])
    #expect(plan.decision(key: Self.key(1), fingerprint: Self.hash(1)) == .keep)
    #expect(plan.decision(file: "todos/4.html", fingerprint: Self.hash(4)) == .keep)
    // Another fingerprint, none, and a file the record does not have.
    #expect(plan.decision(key: Self.key(2), fingerprint: Self.hash(3)) == .render)
    #expect(plan.decision(key: Self.key(2), fingerprint: nil) == .render)
    #expect(plan.decision(key: Self.key(5), fingerprint: Self.hash(5)) == .render)
    // The pages kept are not carried: the rows' narrowing needs the files checked at once.
    #expect(!plan.carries && !plan.narrows && plan.basis == nil)
    #expect(plan.stages(.todo(3)))
    #expect(plan.carriedKeys(carried: [Self.key(1)], rendered: []) == nil)
  }

  @Test("with changed files: an unchanged fingerprint is carried unless its file changed")
  func carry() {
    let plan = KeepPlan(
      recorded: Self.record(4), changedFiles: [Self.key(3)], looked: [.todo(0)])
    #expect(plan.decision(key: Self.key(1), fingerprint: Self.hash(1)) == .carry)
    #expect(plan.decision(key: Self.key(3), fingerprint: Self.hash(3)) == .render)
    #expect(plan.decision(key: Self.key(2), fingerprint: Self.hash(9)) == .render)
    // A changed file: every page is staged (the looked set is not used).
    #expect(plan.carries && !plan.narrows && plan.basis == nil)
    #expect(plan.stages(.todo(5)))
    #expect(plan.carriedKeys(carried: [Self.key(1)], rendered: [Self.key(2)]) == [Self.key(1)])
  }

  @Test("changed files without a record count for nothing: every page is rendered")
  func changedFilesWithoutRecord() {
    let plan = KeepPlan(recorded: nil, changedFiles: [], looked: [])
    #expect(plan.decision(key: Self.key(1), fingerprint: Self.hash(1)) == .render)
    #expect(!plan.carries && !plan.narrows)
    #expect(plan.carriedKeys(carried: [], rendered: []) == nil)
  }

  @Test(
    "the looked set: only its pages among those that show to-dos are staged; every recorded page but those rendered is carried"
  )
  func looked() {
    let record = Self.record(6)
    let plan = KeepPlan(recorded: record, changedFiles: [], looked: [.todo(1), .list(0, 2)])
    #expect(plan.carries && plan.narrows && plan.basis == record)
    #expect(plan.stages(.todo(1)) && plan.stages(.list(0, 2)))
    #expect(!plan.stages(.todo(0)) && !plan.stages(.list(0, 1)) && !plan.stages(.index(2)))
    // The pages that show more than to-dos' rows are always staged.
    #expect(plan.stages(.index(1)) && plan.stages(.board) && plan.stages(.possession(0)))
    #expect(plan.stages(.possessions(1)) && plan.stages(.notFound))
    #expect(plan.decision(key: Self.key(2), fingerprint: Self.hash(2)) == .carry)
    #expect(
      plan.carriedKeys(carried: [], rendered: [Self.key(2), Self.key(5)])
        == record.keys.filter { $0 != Self.key(2) && $0 != Self.key(5) })
  }

  @Test("built from what the last build left: the switches and the record decide the plan")
  func fromLastPages() throws {
    let sitePlan = IncrementalTests.plan(IncrementalTests.rows)
    let fingerprints = try IncrementalTests.pageFingerprints(sitePlan)
    let pages = sitePlan.pages
    let entries = pages.compactMap { page -> (key: UInt64, value: KeyedHash)? in
      let file = sitePlan.file(of: page)
      return fingerprints.fingerprint(of: page, file: file, photoFiles: [:]).map {
        (FingerprintRecord.key(file), $0)
      }
    }
    var last = LastPages()
    last.fingerprints = FingerprintRecord(entries)
    last.rows = RowRecord(layout: fingerprints.todoLayout, rows: fingerprints.todoRows)
    last.changedFiles = []
    let all = KeepPlan(last: last, pages: pages, fingerprints: fingerprints, paths: .all)
    // Nothing changed: the pages that show to-dos' rows alone are all carried unlooked at.
    #expect(all.narrows && all.looked == [])
    #expect(pages.filter(all.stages).allSatisfy { !PageFingerprints.showsTodoRowsOnly($0) })
    // Each switch off in turn.
    let plain = KeepPlan(
      last: last, pages: pages, fingerprints: fingerprints,
      paths: RenderPaths.all.subtracting(.incremental))
    #expect(plain.recorded == nil && !plain.carries && !plain.narrows)
    let each = KeepPlan(
      last: last, pages: pages, fingerprints: fingerprints,
      paths: RenderPaths.all.subtracting([.carryOver, .dependents]))
    #expect(each.recorded != nil && !each.carries && !each.narrows)
    let carried = KeepPlan(
      last: last, pages: pages, fingerprints: fingerprints,
      paths: RenderPaths.all.subtracting(.dependents))
    #expect(carried.carries && !carried.narrows)
    // Nothing recorded: the plain twin.
    let none = KeepPlan(last: LastPages(), pages: pages, fingerprints: fingerprints, paths: .all)
    #expect(none.recorded == nil && !none.carries && !none.narrows)
    // A record of other pages (one more), or a changed file: no narrowing.
    var other = last
    other.fingerprints = FingerprintRecord(entries + [(Self.key(99), Self.hash(99))])
    #expect(!KeepPlan(last: other, pages: pages, fingerprints: fingerprints, paths: .all).narrows)
    var changed = last
    changed.changedFiles = [entries[0].key]
    let changedPlan = KeepPlan(last: changed, pages: pages, fingerprints: fingerprints, paths: .all)
    #expect(changedPlan.carries && !changedPlan.narrows)
    #expect(changedPlan.decision(key: entries[0].key, fingerprint: entries[0].value) == .render)
    #expect(changedPlan.decision(key: entries[1].key, fingerprint: entries[1].value) == .carry)
  }

  @Test(
    "seeded random records: every page kept or carried has its recorded fingerprint and an unchanged file",
    arguments: 0..<8)
  func property(seed: Int) {
    var random = DifferentialTests.SplitMix(seed: 0x6B65_6570 &+ UInt64(seed))
    for _ in 0..<200 {
      let count = Int(random.next() % 40)
      // Fingerprints drawn from a few values, so that equal ones are common.
      let recordedValues = (0..<count).map { _ in random.next() % 3 == 0 ? nil : random.next() % 4 }
      let fresh = (0..<count).map { _ in random.next() % 5 == 0 ? nil : random.next() % 4 }
      let keys = (0..<count).map { Self.key($0) }
      let recorded =
        random.next() % 6 == 0
        ? nil
        : FingerprintRecord(
          zip(keys, recordedValues).compactMap { key, value in value.map { (key, Self.hash($0)) } })
      let changedFiles: Set<UInt64>? =
        random.next() % 3 == 0 ? nil : Set(keys.filter { _ in random.next() % 4 == 0 })
      let looked: Set<SitePlan.Page>? =
        random.next() % 2 == 0
        ? nil : Set((0..<count).filter { _ in random.next() % 2 == 0 }.map(SitePlan.Page.todo))
      let plan = KeepPlan(recorded: recorded, changedFiles: changedFiles, looked: looked)
      var carried: [UInt64] = []
      var rendered: [UInt64] = []
      for index in 0..<count {
        let fingerprint = fresh[index].map(Self.hash)
        let decision = plan.decision(key: keys[index], fingerprint: fingerprint)
        switch decision {
        case .keep, .carry:
          #expect(fingerprint != nil && recorded?[key: keys[index]] == fingerprint)
          if decision == .carry {
            #expect(changedFiles?.contains(keys[index]) == false)
          } else {
            // Kept on its own: the writer checks its file.
            #expect(changedFiles == nil)
          }
          if decision == .carry { carried.append(keys[index]) }
        case .render:
          #expect(
            fingerprint == nil || recorded?[key: keys[index]] != fingerprint
              || changedFiles?.contains(keys[index]) == true)
          if fingerprint != nil { rendered.append(keys[index]) }
        }
        // A page not staged is one the looked set leaves out, with no file changed.
        if !plan.stages(.todo(index)) {
          #expect(changedFiles == [] && looked?.contains(.todo(index)) == false)
        }
      }
      // What is carried over is never a changed file nor a page rendered.
      if let keys = plan.carriedKeys(carried: carried, rendered: rendered) {
        #expect(keys.allSatisfy { changedFiles?.contains($0) == false })
        #expect(Set(keys).isDisjoint(with: rendered))
      }
    }
  }
}
