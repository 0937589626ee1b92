import Foundation
import Testing

@testable import TaskpressKit

/// Phone numbers as `tel:` links: digits and `+` only in the link, the text as stored.
@Suite struct ContactTelTests {
  @Test(
    "the number of a tel: link",
    arguments: [
      ("+1 (555) 010-2000", "+15550102000"), ("555-0100", "5550100"),
      ("03-1234-5678", "0312345678"), ("０３−１２３４", "031234"), ("٠١٢٣", "0123"),
      ("555-0100 ext. 12", "5550100"), ("tel: 555", nil), ("+ 44 20", "+4420"),
      ("12+34", "1234"), ("javascript:alert(1)//5", nil), ("12", nil), ("555 x12", "555"),
      ("\"><script>", nil), ("", nil),
      ("+", nil), ("①②", nil),
    ])
  func number(phone: String, tel: String?) {
    #expect(ContactValue.tel(phone) == tel)
  }

  @Test("contact pages and the contact list link phones; hostile values stay text")
  func pages() throws {
    let site = try SiteFixture()
    var options = BuildOptions()
    options.contacts = try site.database(
      "contacts.sqlite",
      """
      CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT, address TEXT, phone TEXT);
      INSERT INTO contacts VALUES (1, 'Ann', 'Main St', '+1 (555) 010-2000'),
        (2, 'Bob', '', '"><script>alert(1)</script>'),
        (3, 'Cy', '', 'javascript:alert(1)//[x](y)'),
        (4, 'Di', '', NULL);
      """)
    try site.build(options)
    let ann = try site.page("contacts/1.html")
    #expect(ann.contains("<a href=\"tel:+15550102000\">+1 (555) 010-2000</a>"))
    let bob = try site.page("contacts/2.html")
    #expect(!bob.contains("tel:"))
    #expect(!bob.contains("<script>alert"))
    #expect(bob.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    let cy = try site.page("contacts/3.html")
    #expect(!cy.contains("tel:"))
    #expect(!cy.contains("href=\"javascript"))
    #expect(!cy.contains("href=\"y\""))
    #expect(!(try site.page("contacts/4.html").contains("tel:")))
    let list = try site.page("contacts/index.html")
    #expect(list.contains("<a class=\"phone\" href=\"tel:+15550102000\">+1 (555) 010-2000</a>"))
    #expect(
      list.contains("<span class=\"phone\">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</span>"))
    #expect(list.contains("<span class=\"phone\">javascript:alert(1)//[x](y)</span>"))
  }
}
