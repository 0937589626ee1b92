import Testing

@testable import TaskpressKit

@Suite struct SourcesContactTests {
  @Test(
    "CONTACTS(ID, NAME, ...) reads, sorted by id, with repairs as warnings; NULL address is none")
  func uppercase() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("contacts-uppercase")
    let (contacts, warnings) = try ContactSource(path: path).load()
    #expect(
      contacts == [
        Contact(
          id: 1, name: "Ada Lovelace", address: "12 St James's Square, London",
          phone: "555-0101"),
        Contact(id: 2, name: "Grace Hopper", address: "", phone: "555-0102"),
        Contact(id: 3, name: "J\u{FFFD}rn", address: "Oslo", phone: "5550103"),
      ])
    #expect(
      warnings.map(\.description) == [
        "\(path): contacts id=3: name is not valid UTF-8; replaced with U+FFFD",
        "\(path): contacts id=3: phone contains NUL bytes; dropped them",
      ])
  }

  @Test("a missing column is an error naming the columns found")
  func missingColumns() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("contacts-missing-column")
    let error = sourceError { _ = try ContactSource(path: path) }
    #expect(
      error?.description
        == "\(path): table 'contacts' has no columns 'address' and 'phone' (found: id, name, email)"
    )
  }

  @Test("one file can serve every source at once")
  func sharedFile() throws {
    let folder = try FixtureFolder()
    let path = try folder.database("shared")
    let todos = try TodoSource(path: path)
    let possessions = try PossessionSource(path: path)
    let contacts = try ContactSource(path: path)
    let again = try TodoSource(path: path)
    #expect(try todos.load().todos.map(\.text) == ["Water the plants"])
    #expect(try possessions.load().possessions.map(\.name) == ["Watering can"])
    #expect(try contacts.load().contacts.map(\.name) == ["Neighbour"])
    #expect(try again.load().todos.count == 1)
  }
}
