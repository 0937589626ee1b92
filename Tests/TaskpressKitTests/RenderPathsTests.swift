import Testing

@testable import TaskpressKit

/// The rebuild switches and fast paths of `RenderPaths`, as `TASKPRESS_RENDER` gives them:
/// each flag declares what it requires (`RenderPaths.requires`), and parsing never gives a
/// flag without it.
@Suite struct RenderPathsTests {
  @Test("every flag with what it requires, and theirs, has all it requires")
  func closures() {
    for (name, flag) in RenderPaths.names {
      let closure = flag.withRequirements
      #expect(closure.contains(flag), "\(name)")
      #expect(closure.unmetRequirements.isEmpty, "\(name): \(closure.unmetRequirements)")
      #expect(closure.withoutUnmetRequirements == closure, "\(name)")
      // No flag requires itself, however far round.
      let needs = RenderPaths.requires[flag] ?? []
      #expect(!needs.withRequirements.contains(flag), "\(name)")
    }
    #expect(RenderPaths.all.unmetRequirements.isEmpty)
    #expect(RenderPaths.all.withRequirements == .all)
    #expect(RenderPaths.reference.withoutUnmetRequirements == .reference)
    // Every flag a flag requires is one of the flags.
    for (flag, needs) in RenderPaths.requires {
      #expect(RenderPaths.all.isSuperset(of: flag.union(needs)))
    }
  }

  @Test("a flag named alone comes with what it requires", arguments: RenderPaths.names.map(\.0))
  func named(name: String) throws {
    let flag = try #require(RenderPaths.names.first { $0.0 == name }).1
    let parsed = try RenderPaths(parsing: name)
    #expect(parsed == flag.withRequirements)
    #expect(parsed.unmetRequirements.isEmpty)
  }

  @Test(
    "a flag left out takes out the flags that require it", arguments: RenderPaths.names.map(\.0))
  func leftOut(name: String) throws {
    let flag = try #require(RenderPaths.names.first { $0.0 == name }).1
    let parsed = try RenderPaths(parsing: "no-" + name)
    #expect(!parsed.contains(flag))
    #expect(parsed.unmetRequirements.isEmpty)
    // Only what needs the flag goes with it.
    for (other, otherFlag) in RenderPaths.names where otherFlag != flag {
      let needsIt = otherFlag.withRequirements.contains(flag)
      #expect(parsed.contains(otherFlag) == !needsIt, "no-\(name): \(other)")
    }
  }

  @Test("the rebuild switches' requirements as the code has them")
  func requirements() throws {
    #expect(try RenderPaths(parsing: "dependents") == [.dependents, .carryOver, .incremental])
    #expect(try RenderPaths(parsing: "early-file-check") == [.earlyFileCheck, .incremental])
    #expect(try RenderPaths(parsing: "recorded-copy") == [.recordedCopy, .earlyTodoDiff])
    #expect(try RenderPaths(parsing: "batches,carry-over") == [.batches, .carryOver, .incremental])
    #expect(
      try RenderPaths(parsing: "no-incremental")
        == RenderPaths.all.subtracting([.incremental, .carryOver, .dependents, .earlyFileCheck]))
    #expect(
      try RenderPaths(parsing: "no-carry-over")
        == RenderPaths.all.subtracting([.carryOver, .dependents]))
    #expect(try RenderPaths(parsing: "no-dependents") == RenderPaths.all.subtracting(.dependents))
    #expect(RenderPaths([.dependents]).unmetRequirements == ["dependents needs carry-over"])
    #expect(
      RenderPaths([.dependents, .recordedCopy]).unmetRequirements
        == ["dependents needs carry-over", "recorded-copy needs early-todo-diff"])
    #expect(try RenderPaths(parsing: "reference") == .reference)
    #expect(try RenderPaths(parsing: "all") == .all)
  }

  @Test(
    "a set made in code has what each of its flags requires, as a parsed one does",
    arguments: RenderPaths.names.map(\.0))
  func madeInCode(name: String) throws {
    let flag = try #require(RenderPaths.names.first { $0.0 == name }).1
    let parsed = try RenderPaths(parsing: "no-" + name)
    var options = BuildOptions()
    options.renderPaths = RenderPaths.all.subtracting(flag)
    #expect(options.renderPaths == parsed)
    #expect(options.renderPaths.unmetRequirements.isEmpty)
    // Alone, a flag that requires another does nothing, and is left out.
    options.renderPaths = flag
    #expect(options.renderPaths == (RenderPaths.requires[flag] == nil ? flag : []))
    options.renderPaths.insert(.dependents)
    #expect(options.renderPaths.unmetRequirements.isEmpty)
    options.renderPaths = flag.withRequirements
    #expect(options.renderPaths == flag.withRequirements)
    let templates = try ThemeTemplates(theme: Theme.load(overrides: nil))
    let renderer = PageRenderer(templates: templates, paths: RenderPaths.all.subtracting(flag))
    #expect(renderer.paths == parsed)
  }

  @Test("an unknown name is an error naming it and the names known")
  func unknown() {
    #expect(throws: RenderPathsError.self) { try RenderPaths(parsing: "dependents,fast") }
    do {
      _ = try RenderPaths(parsing: "no-fast")
      Issue.record("no error")
    } catch {
      #expect(error.message.contains("unknown fast path 'no-fast'"))
      #expect(error.message.contains("carry-over"))
    }
  }
}
