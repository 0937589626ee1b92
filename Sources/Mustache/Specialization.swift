extension Template {
  /// A copy of the template that renders like it for any root answering every key of
  /// `constants` as `constants` does, with the parts that need no other data rendered once,
  /// now.
  ///
  /// Many pages share most of what their layout shows: the site's title, the labels, the
  /// navigation. Each top-level tag (a variable, a section with all it contains, a partial)
  /// that reads nothing from the root but the keys of `constants` (and what is inside their
  /// values) becomes text; any tag that reads another key from the root, or whose render
  /// throws, stays as it is and is rendered with the real data each time.
  ///
  /// ```swift
  /// struct Site: MustacheObject {
  ///   var keys: [String] { ["site"] }
  ///   func value(forKey key: String) -> MustacheValue? { key == "site" ? "Tasks" : nil }
  /// }
  /// let layout = try Template(source: "<title>{{page}} · {{site}}</title>", name: "l.html")
  /// let shared = layout.specialized(for: Site())  // "<title>", "{{page}}", " · Tasks</title>"
  /// try shared.render(["site": "Tasks", "page": "Milk"])  // "<title>Milk · Tasks</title>"
  /// ```
  ///
  /// - Parameters:
  ///   - constants: The keys every root will answer in the same way, and their values.
  ///   - partials: The partials the renders will use: a folded partial is this resolver's, and
  ///     the partials the template names (not those named by a variable) are looked up in it
  ///     now rather than at each render.
  ///   - missingPartials: The renders' policy for a missing partial.
  /// - Returns: The specialized template. Render it only as the root template (not as a
  ///   partial) and only with roots that are objects agreeing with `constants`; otherwise the
  ///   output may differ from this template's.
  public func specialized(
    for constants: any MustacheObject, partials: (any PartialResolver)? = nil,
    missingPartials: MissingPartialPolicy = .renderEmpty
  ) -> Template {
    let base = program
    let probe = ConstantsProbe(constants)
    var ops = base.ops
    var bytes = base.bytes
    var folds: [Program.FoldOp] = []
    // A run of consecutive foldable instructions: where it starts, where its text starts, and
    // whether it has a tag (a run of text alone is left as it is).
    var run: (op: Int, byte: Int32, hasTag: Bool)?
    func closeRun(at next: Int) {
      guard let open = run else { return }
      run = nil
      guard open.hasTag else {
        bytes.removeSubrange(Int(open.byte)...)
        return
      }
      ops[open.op] = .folded(Int32(folds.count))
      folds.append(Program.FoldOp(start: open.byte, end: Int32(bytes.count), next: Int32(next)))
    }
    var index = 0
    while index < base.ops.count {
      let next = base.extent(of: index)
      probe.readOther = false
      var renderer = Renderer(resolver: partials, policy: missingPartials, root: .computed(probe))
      var output = OutputBuffer(capacity: 256)
      let origin = Renderer.Origin(program: Unmanaged.passUnretained(base), line: 1, column: 1)
      let rendered: Bool
      do {
        try renderer.render(
          base, from: Int32(index), to: Int32(next), origin: origin, into: &output)
        rendered = !probe.readOther
      } catch {
        rendered = false
      }
      if rendered {
        if run == nil { run = (index, Int32(bytes.count), false) }
        switch base.ops[index] {
        case .text, .lines: break
        default: run?.hasTag = true
        }
        bytes.append(contentsOf: output.bytes)
      } else {
        closeRun(at: index)
      }
      index = next
    }
    closeRun(at: base.ops.count)
    // The partials the renders will call by name are the resolver's now and then: look them up
    // once. One the resolver does not have is left to each render (and its policy).
    let resolvedPartials = base.partials.map { call -> Program? in
      guard call.dynamicName < 0 else { return nil }
      // A resolver that throws is asked again, and throws, at each render.
      return (try? partials?.partial(named: call.name, includedFrom: base.name))??.program
    }
    guard !folds.isEmpty || resolvedPartials.contains(where: { $0 != nil }) else { return self }
    return Template(
      name: name, escaping: escaping,
      program: Program(
        base, ops: ops, bytes: bytes, folds: folds, resolvedPartials: resolvedPartials))
  }
}

/// The root of a render that finds what a template reads: the keys of `constants` answer as
/// they do, and reading any other key is noted.
private final class ConstantsProbe: MustacheObject, @unchecked Sendable {
  // `@unchecked`: used by one thread, during one call of `specialized`.
  let constants: any MustacheObject
  let known: Set<String>
  /// Whether a render read a key that is not one of the constants since this was last reset.
  var readOther = false

  init(_ constants: any MustacheObject) {
    self.constants = constants
    known = Set(constants.keys)
  }

  var keys: [String] { constants.keys }

  func value(forKey key: String) -> MustacheValue? {
    guard known.contains(key) else {
      readOther = true
      return nil
    }
    return constants.value(forKey: key)
  }
}
