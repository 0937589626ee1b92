import Foundation
@_spi(Testing) import SQLite
import Testing

@testable import TaskpressKit

/// The README's promise about contacts in the record of changes: "contacts added, renamed,
/// address or phone changed (without the values), removed". Their addresses and phone numbers
/// are on the contacts' own pages only; the changes name a contact, never say where it lives or
/// how to call it, whatever `--data` publishes.
@Suite struct ContactPrivacyTests {
  /// Every address and phone number the contacts have before and after the night's changes:
  /// none may appear in a change output.
  static let secrets: [String] = {
    let addresses = [
      "17 Quayside Lane", "9 Mill Row", "4 Orchard Close", "22 Harbour View", "1 Station Road",
    ]
    let phones = [
      "0170 555 0101", "0170 555 0202", "0170 555 0303", "0170 555 0404", "0170 555 0505",
    ]
    // A phone also as a tel: link has it: its digits alone.
    return addresses + phones + phones.map { $0.filter(\.isNumber) }
  }()

  static let before = """
    CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT, address TEXT, phone TEXT);
    INSERT INTO contacts VALUES (1, 'Ada Byron', '17 Quayside Lane', '0170 555 0101'),
      (2, 'Brook Taylor', '9 Mill Row', '0170 555 0202'),
      (3, 'Carl Nielsen', '4 Orchard Close', '0170 555 0303');
    """

  /// Added, renamed, address and phone changed, removed.
  static let night = """
    INSERT INTO contacts VALUES (4, 'Dora Maar', '1 Station Road', '0170 555 0505');
    UPDATE contacts SET name = 'Brook Taylor-Young' WHERE id = 2;
    UPDATE contacts SET address = '22 Harbour View', phone = '0170 555 0404' WHERE id = 1;
    DELETE FROM contacts WHERE id = 3;
    """

  /// The files that record changes: the pages of `changes.html`, `data/changes.json`,
  /// `data/history.json`, `feed.xml`, `feed.json`, and the first page (the to-dos'), which counts the latest
  /// changes.
  static func changeOutputs(_ site: String) throws -> [String] {
    // `changes/2.html` and on, once there are more builds than one page shows.
    let more = (try? FileManager.default.contentsOfDirectory(atPath: site + "/changes")) ?? []
    let pages = more.filter { $0.hasSuffix(".html") }.map { "changes/" + $0 }
    return [
      "changes.html", "data/changes.json", "data/history.json", "feed.xml", "feed.json",
      "index.html",
    ]
    .filter { FileManager.default.fileExists(atPath: site + "/" + $0) } + pages
  }

  @Test(
    "no address or phone number of a contact is in changes.html, changes.json or the feeds",
    arguments: [[], ["contacts"]])
  func noAddressOrPhoneInChanges(data: [String]) throws {
    let site = try SiteFixture()
    defer { try? FileManager.default.removeItem(atPath: site.folder) }
    var options = BuildOptions()
    options.contacts = try site.database("contacts.sqlite", Self.before)
    // With to-dos, the first page is theirs and tells how many things changed (a site of
    // contacts alone opens on the contact list, which shows the numbers).
    options.todos = try site.database(
      "todo.sqlite", todoTable + "INSERT INTO todo VALUES (1, 'x', 1, 0);")
    options.output = site.output
    options.dataCopies = Set(data.compactMap(BuildOptions.DataSource.init(rawValue:)))
    options.date = "2026-12-01"
    _ = try ChangesTests.build(options)
    try ChangesTests.change(try #require(options.contacts), Self.night)
    options.date = "2026-12-02"
    _ = try ChangesTests.build(options)

    // The changes are recorded, by name only.
    let changes: [[String]] = try ChangesTests.latestChanges(site.output)
    let recorded: [String] = changes.map { "\($0[0]) \($0[1]) \($0[2])" }.sorted()
    let expected: [String] = [
      "added 4 Dora Maar", "details 1 Ada Byron", "name 2 Brook Taylor-Young",
      "removed 3 Carl Nielsen",
    ]
    #expect(recorded == expected)
    let outputs = try Self.changeOutputs(site.output)
    #expect(outputs.contains("feed.xml") && outputs.contains("feed.json"))
    #expect(outputs.contains("changes.html"))
    for file in outputs {
      let text = try String(contentsOfFile: site.output + "/" + file, encoding: .utf8)
      for secret in Self.secrets {
        #expect(!text.contains(secret), "'\(secret)' is in \(file)")
      }
    }
    let changesPage = try site.page("changes.html")
    #expect(changesPage.contains("Dora Maar") && changesPage.contains("Brook Taylor-Young"))
    // The contacts' own pages do show them: the check above looks at files that could.
    #expect(try site.page("contacts/1.html").contains("22 Harbour View"))
  }
}
