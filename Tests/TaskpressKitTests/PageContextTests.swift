import Mustache
import Testing

@testable import TaskpressKit

@Suite struct PageContextTests {
  @Test("each page kind's number is its place among the body templates")
  func kindNumbers() {
    let pages: [SitePlan.Page] = [
      .index(1), .board, .todo(0), .possessions, .possession(0), .contacts, .contact(0),
      .notFound,
    ]
    for page in pages {
      #expect(
        PageRenderer.bodyNames[PageRenderer.kindNumber(of: page)] == PageContext.kind(of: page))
    }
    #expect(Set(pages.map(PageRenderer.kindNumber)).count == PageRenderer.bodyNames.count)
  }

  static func context(contacts names: [String]) -> PageContext {
    var data = SiteData()
    data.hasContacts = true
    data.contacts = names.enumerated().map { index, name in
      Contact(id: Int64(index + 1), name: name, address: "", phone: "")
    }
    let plan = SitePlan(data: data, pageSize: 100, routes: Routes(prettyURLs: false))
    return PageContext(
      plan: plan, labels: .builtIn(.en), lang: "en", baseURL: nil, generated: nil,
      photoFiles: [:])
  }

  /// The `anchor` and number of contacts of each letter group on the contacts page.
  static func letterGroups(_ context: PageContext) -> [String] {
    guard case .array(let letters)? = context.values(for: .contacts)["letters"] else { return [] }
    return letters.map { letter in
      guard case .object(let group) = letter, case .string(let anchor)? = group["anchor"],
        case .array(let contacts)? = group["contacts"]
      else { return "?" }
      return "\(anchor) \(contacts.count)"
    }
  }

  @Test("names without a leading letter make one group, wherever they sort")
  func oneGroupForNonLetters() {
    // `<` sorts before the letters, `{` and U+202E after them.
    let context = Self.context(contacts: ["{{x}}", "Bob", "<b>", "alice", "\u{202E}x", "Ann"])
    #expect(Self.letterGroups(context) == ["other 3", "A 2", "B 1"])
  }

  @Test("letters outside ASCII get code point anchors")
  func nonASCIILetters() {
    let context = Self.context(contacts: ["Émile", "Zoë", "émilie"])
    #expect(Self.letterGroups(context) == ["Z 1", "uc9 2"])
  }
}
