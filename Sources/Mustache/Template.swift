/// What a render does when `{{> name}}` names a partial the resolver does not have.
public enum MissingPartialPolicy: Sendable, Equatable {
  /// Render nothing, as the Mustache spec says (`taskpress render`).
  case renderEmpty
  /// Throw a ``TemplateError`` naming the partial and the template that asked for it
  /// (`taskpress build`).
  case throwError
}

/// A parsed Mustache template: parse once, render many times, from any thread.
///
/// ```swift
/// let template = try Template(source: "Hello {{name}}!", name: "hello.html")
/// let page = try template.render(["name": "<world>"])  // "Hello &lt;world&gt;!"
/// ```
public struct Template: Sendable {
  /// The template's name, usually its path; errors and partial lookups use it.
  public let name: String
  /// How `{{name}}` escapes values in this template.
  public let escaping: Escaping
  /// The compiled template, shared by the copies of this value.
  let program: Program

  /// Parses `source`.
  ///
  /// - Parameters:
  ///   - source: The template text.
  ///   - name: The template's path or name, e.g. `Templates/todo.md`; errors name it and
  ///     partials are looked up with its extension.
  ///   - escaping: How to escape `{{name}}`; by default chosen by the extension of `name`
  ///     (see ``Escaping/init(forPath:)``).
  /// - Throws: ``TemplateError`` for a malformed template.
  public init(source: String, name: String, escaping: Escaping? = nil) throws(TemplateError) {
    try self.init(bytes: Array(source.utf8), name: name, escaping: escaping)
  }

  /// Parses a template from UTF-8 bytes; see ``init(source:name:escaping:)``.
  public init(bytes: [UInt8], name: String, escaping: Escaping? = nil) throws(TemplateError) {
    let escaping = escaping ?? Escaping(forPath: name)
    self.name = name
    self.escaping = escaping
    let nodes = try Parser(source: bytes, templateName: name, escaping: escaping).parse()
    program = Program(nodes: nodes, name: name)
  }

  /// A template made of a compiled program (see ``specialized(for:partials:missingPartials:)``).
  init(name: String, escaping: Escaping, program: Program) {
    self.name = name
    self.escaping = escaping
    self.program = program
  }

  /// Renders the template with `value` as the root of the context stack.
  ///
  /// - Parameters:
  ///   - value: The data.
  ///   - partials: Where `{{> name}}` and `{{< name}}` find their templates; with none, every
  ///     partial is missing.
  ///   - missingPartials: Whether a missing partial renders empty or throws.
  /// - Returns: The rendered text.
  /// - Throws: ``TemplateError`` for a missing partial (when strict), a malformed partial or
  ///   partials nested too deeply; whatever the resolver throws.
  public func render(
    _ value: MustacheValue, partials: (any PartialResolver)? = nil,
    missingPartials: MissingPartialPolicy = .renderEmpty
  ) throws -> String {
    var buffer = OutputBuffer(capacity: program.bytes.count * 2 + 256)
    var renderer = Renderer(resolver: partials, policy: missingPartials, root: value)
    try renderer.render(program, into: &buffer)
    return String(decoding: buffer.bytes, as: UTF8.self)
  }

  /// Renders the template, appending UTF-8 bytes to `output`; see
  /// ``render(_:partials:missingPartials:)``.
  ///
  /// With `asksObjectsForText` false, an interpolation never asks the object that holds its
  /// last key for that key's text (``MustacheObject/text(forKey:_:)``): every value is made, as
  /// with objects that never hand text over. The output is the same either way.
  public func render(
    _ value: MustacheValue, into output: inout [UInt8], partials: (any PartialResolver)? = nil,
    missingPartials: MissingPartialPolicy = .renderEmpty, asksObjectsForText: Bool = true
  ) throws {
    var renderer = Renderer(resolver: partials, policy: missingPartials, root: value)
    renderer.asksObjectsForText = asksObjectsForText
    // Room for the template's text and as much again, or for what the caller made room for.
    var buffer = OutputBuffer(
      capacity: max(program.bytes.count * 2 + 256, output.capacity - output.count))
    // What was rendered before an error is kept, as when rendering straight into `output`.
    defer { output.append(contentsOf: buffer.bytes) }
    try renderer.render(program, into: &buffer)
  }

  /// Renders the template like ``render(_:into:partials:missingPartials:asksObjectsForText:)``,
  /// but sets every value it would escape with `setAside.escaping` aside in `setAside`,
  /// unescaped, with its place in `output`, instead of writing it.
  /// `setAside.escaped(into: output)` is then what the plain render gives (when `output` starts
  /// empty).
  ///
  /// Everything left in `output` comes from the templates (and from values inserted with
  /// another escaping), so two renders with the same output and places used the same template
  /// text around their values.
  public func render(
    _ value: MustacheValue, into output: inout [UInt8], settingAside setAside: inout SetAsideValues,
    partials: (any PartialResolver)? = nil, missingPartials: MissingPartialPolicy = .renderEmpty,
    asksObjectsForText: Bool = true
  ) throws {
    var renderer = Renderer(resolver: partials, policy: missingPartials, root: value)
    renderer.asksObjectsForText = asksObjectsForText
    var buffer = OutputBuffer(
      capacity: max(program.bytes.count * 2 + 256, output.capacity - output.count))
    // The values are moved into the buffer and back, not copied.
    let escaping = setAside.escaping
    buffer.startSettingAside(
      exchange(&setAside, with: SetAsideValues(escaping: escaping, reservingCapacity: false)),
      base: output.count)
    defer {
      output.append(contentsOf: buffer.bytes)
      if let values = buffer.takeSetAside() { setAside = values }
    }
    try renderer.render(program, into: &buffer)
  }
}
