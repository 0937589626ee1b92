import Mustache
import Synchronization

/// The body templates and layout of each page kind specialized for each shared chrome: the
/// parts that show only `site`, `labels` and the layout's links are rendered once per folder
/// and section rather than once per page (`Template.specialized(for:)`).
///
/// A fast path (`RenderPaths.specializedTemplates`): the plain path renders the templates as
/// they are.
final class SpecializedTemplates: Sendable {
  private struct Entry {
    /// Held so that its identity, which finds the entry, is not reused.
    let chrome: PageContext.Chrome
    /// By page kind (`PageKind.rawValue`).
    var pairs: [TemplatePair?]
  }

  /// One entry for each chrome seen (a few: one for each folder and section).
  private let entries = Mutex<[Entry]>([])

  /// `plain` specialized for `values`, made at the first page of its chrome and kind.
  func pair(
    _ kind: PageKind, plain: TemplatePair, values: SharedPageValues,
    partials: any PartialResolver
  ) -> TemplatePair {
    entries.withLock { entries in
      let entry: Int
      if let found = entries.firstIndex(where: { $0.chrome === values.chrome }) {
        entry = found
      } else {
        let kinds = PageKind.allCases.count
        entries.append(Entry(chrome: values.chrome, pairs: Array(repeating: nil, count: kinds)))
        entry = entries.count - 1
      }
      if let found = entries[entry].pairs[kind.rawValue] { return found }
      let made = TemplatePair(
        body: plain.body.specialized(for: values, partials: partials, missingPartials: .throwError),
        layout: plain.layout.specialized(
          for: values, partials: partials, missingPartials: .throwError)
      )
      entries[entry].pairs[kind.rawValue] = made
      return made
    }
  }
}
