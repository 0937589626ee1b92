import Mustache

/// Everything a page's templates see at the top level: what every page has (`site`, `labels`,
/// `page`, the layout's links) and what its kind adds (`todo`, `groups`, `content`, ...).
///
/// A class: the body and the layout of a page read the same values, through one reference,
/// and `content` set after the body is rendered is seen by the layout. `@unchecked Sendable`:
/// the values of a page are made, changed and read by the one thread that renders it.
final class PageValues: MustacheObject, @unchecked Sendable {
  let site: MustacheValue
  let labels: MustacheValue
  let page: MustacheValue
  let chrome: PageContext.Chrome
  /// What the page's kind adds, and `content` once the body is rendered: room for a to-do
  /// page's five. Changed only between renders, by the thread that renders the page, so each
  /// of its many reads needs no run-time check of exclusive access.
  @exclusivity(unchecked) private var extra = Fields(capacity: 5)

  init(site: MustacheValue, labels: MustacheValue, page: MustacheValue, chrome: PageContext.Chrome)
  {
    self.site = site
    self.labels = labels
    self.page = page
    self.chrome = chrome
  }

  static let commonKeys = ["page"] + SharedPageValues.keys

  var keys: [String] { Self.commonKeys + extra.keys }

  /// The values this page shares with every page of the same chrome.
  var shared: SharedPageValues {
    SharedPageValues(site: site, labels: labels, chrome: chrome)
  }

  func value(forKey key: String) -> MustacheValue? {
    if key.utf8.count == 4 && key == "page" { return page }
    // The page's own values first: the shared ones are mostly rendered once per chrome (see
    // `PageRenderer`), so they are asked for less. The two sets of names do not meet.
    return extra.value(forKey: key)
      ?? SharedPageValues.value(forKey: key, site: site, labels: labels, chrome: chrome)
  }

  func text(forKey key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    -> MustacheTextLookup
  {
    if key.utf8.count == 4 && key == "page" { return .useValue }
    switch extra.text(forKey: key, body) {
    case .missing:
      // The shared values hand no text over: they are asked for their values.
      return SharedPageValues.value(forKey: key, site: site, labels: labels, chrome: chrome) == nil
        ? .missing : .useValue
    case let found:
      return found
    }
  }

  subscript(key: String) -> MustacheValue? {
    get { value(forKey: key) }
    set { extra[key] = newValue }
  }
}

/// The top-level values that every page with the same chrome has alike: `site`, `labels` and
/// the layout's links. Templates are specialized for them (see `PageRenderer`).
struct SharedPageValues: MustacheObject {
  let site: MustacheValue
  let labels: MustacheValue
  let chrome: PageContext.Chrome

  static let keys = ["site", "labels", "root", "assets", "home", "nav", "data"]

  var keys: [String] { Self.keys }

  func value(forKey key: String) -> MustacheValue? {
    Self.value(forKey: key, site: site, labels: labels, chrome: chrome)
  }

  /// The value of `key` when it is one of `keys`; nil otherwise.
  static func value(
    forKey key: String, site: MustacheValue, labels: MustacheValue, chrome: PageContext.Chrome
  ) -> MustacheValue? {
    // By length first: every page's own keys (`todo`, `content`, ...) are looked up here
    // before they are found in the page, so a miss must be cheap.
    switch key.utf8.count {
    case 3:
      key == "nav" ? chrome.nav : nil
    case 4:
      switch key {
      case "site": site
      case "data": chrome.data
      case "home": chrome.home
      case "root": chrome.root
      default: nil
      }
    case 6:
      switch key {
      case "labels": labels
      case "assets": chrome.assets
      default: nil
      }
    default:
      nil
    }
  }
}
