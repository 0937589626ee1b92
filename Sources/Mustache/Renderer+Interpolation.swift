extension Renderer {
  func interpolate(
    _ program: Program, _ name: Int32, escaping: Escaping, into output: inout OutputBuffer
  ) {
    let range = program.names[Int(name)]
    let found: MustacheValue
    if range.count == 0 {
      found = top ?? root
    } else if !asksObjectsForText {
      guard let value = lookUp(program, name) else { return }
      found = value
    } else if escaping == output.setAsideEscaping {
      // Set aside unescaped, for the place the output has reached; no text, no note.
      let resolved = resolveText(program, range) { bytes in
        if !bytes.isEmpty { output.noteSetAside(bytes) }
      }
      guard case .value(let value) = resolved else { return }
      found = value
    } else {
      let resolved = resolveText(program, range) { bytes in
        escaping.append(bytes, to: &output)
      }
      guard case .value(let value) = resolved else { return }
      found = value
    }
    if escaping == output.setAsideEscaping {
      setAside(found, into: &output)
      return
    }
    switch found {
    case .null, .object, .computed:
      break
    case .string(let text):
      escaping.appendEscaped(text, to: &output)
    case .utf8(let bytes):
      bytes.withUnsafeBufferPointer { escaping.append($0, to: &output) }
    case .int(let number):
      Self.appendDecimal(number, escaping: escaping, into: &output)
    default:
      escaping.appendEscaped(found.interpolatedText, to: &output)
    }
  }

  /// Resolves the name `range` (of one key or more) as `lookUp` does, and has the object that
  /// holds its last key hand that key's text to `body` when it can: no value is made for it.
  private func resolveText(
    _ program: Program, _ range: Program.NameRange, _ body: (UnsafeBufferPointer<UInt8>) -> Void
  ) -> ResolvedText {
    let first = program.keys[Int(range.start)]
    guard range.count > 1 else {
      // One key: the innermost context that has it.
      if let found = top?.resolveText(first, body), !found.isMissing { return found }
      if let found = underTop?.resolveText(first, body), !found.isMissing { return found }
      var frame = stack.count - 1
      while frame >= 0 {
        let found = stack[frame].resolveText(first, body)
        if !found.isMissing { return found }
        frame -= 1
      }
      return root.resolveText(first, body)
    }
    // Several keys: the first is found in the contexts, the others in its value.
    let last = Int(range.start + range.count) - 1
    guard let found = lookUp(first) else { return .missing }
    if range.count == 2 { return found.resolveText(program.keys[last], body) }
    guard let holder = Self.descend(found, program, from: Int(range.start) + 1, to: last) else {
      return .missing
    }
    return holder.resolveText(program.keys[last], body)
  }

  /// The value of the key `first` in the innermost context that has it.
  func lookUp(_ first: String) -> MustacheValue? {
    if let found = top?.member(first) { return found }
    if let found = underTop?.member(first) { return found }
    var frame = stack.count - 1
    while frame >= 0 {
      if let found = stack[frame].member(first) { return found }
      frame -= 1
    }
    return root.member(first)
  }

  /// Sets `value`'s text aside, unescaped, in `output.setAside`, for the place the output has
  /// reached; a value with no text is not noted.
  private func setAside(_ value: MustacheValue, into output: inout OutputBuffer) {
    func note(_ bytes: UnsafeBufferPointer<UInt8>) {
      if !bytes.isEmpty { output.noteSetAside(bytes) }
    }
    switch value {
    case .null, .object, .computed:
      break
    case .string(var text):
      text.withUTF8 { note($0) }
    case .utf8(let bytes):
      bytes.withUnsafeBufferPointer { note($0) }
    default:
      var text = value.interpolatedText
      text.withUTF8 { note($0) }
    }
  }

  /// Appends `number` in decimal, as `String(number)` writes it, escaped.
  private static func appendDecimal(
    _ number: Int64, escaping: Escaping, into output: inout OutputBuffer
  ) {
    _ = MustacheTextLookup.hand(number) { escaping.append($0, to: &output) }
  }
}
