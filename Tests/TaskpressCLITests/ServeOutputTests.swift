import Foundation
@_spi(Testing) import SQLite
import Synchronization
import Testing

@testable import TaskpressCLI
@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#endif

/// What `taskpress serve` prints, with the real binary: `-q` and the output options of
/// `build`, warnings only when they changed; its port taken before anything is built
/// (issue 47).
@Suite(.serialized) struct ServeOutputTests {
  /// A to-do database with one unusual priority (a warning).
  private func database(in folder: String) throws -> String {
    let path = folder + "/todo.sqlite"
    try Database.createForTesting(
      at: path,
      sql:
        "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN);"
        + "INSERT INTO todo VALUES (1, 'water the plants', 7, 0), (2, 'feed the cat', 1, 0);")
    return path
  }

  /// Edits to-do 1's text, then waits, with no time limit, until the served site shows it.
  private func edit(_ database: String, to text: String, site: String, _ child: ChildTaskpress)
    throws
  {
    let connection = try Database.openWritableForTesting(at: database)
    try connection.execute("UPDATE todo SET text = '\(text)' WHERE pk = 1;")
    let page = site + "/todos/1.html"
    let shown = try child.wait(watching: [site + "/todos"]) { _ in
      String(decoding: FileManager.default.contents(atPath: page) ?? Data(), as: UTF8.self)
        .contains(text)
    }
    try #require(shown, "serve ended before it rebuilt")
  }

  @Test("serve -q prints its serving line and nothing else across a data edit")
  func quiet() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let database = try database(in: folder)
    let site = folder + "/site"
    let child = try ChildTaskpress(
      ["serve", "-q", "--port", "0", "--todos", database, "--output", site], in: folder)
    let serving = child.waitForOutput { out, _ in out.contains("(press Ctrl-C to stop)\n") }
    try #require(serving, "\(child.wait().stderr)")
    try edit(database, to: "water the ferns", site: site, child)
    child.send(SIGINT)
    let result = child.wait()
    #expect(result.status == 130)
    #expect(
      result.stdout.wholeMatch(
        of: /serving '[^']*site' at http:\/\/127\.0\.0\.1:\d+\/ \(press Ctrl-C to stop\)\n/)
        != nil, "\(result.stdout)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
  }

  @Test("serve prints a rebuild's warnings only when they changed, grouped as build does")
  func warningsOnlyWhenChanged() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let database = try database(in: folder)
    let site = folder + "/site"
    let report = folder + "/report.json"
    let child = try ChildTaskpress(
      [
        "serve", "--port", "0", "--todos", database, "--output", site, "--report", report,
      ], in: folder)
    let serving = child.waitForOutput { out, _ in out.contains("(press Ctrl-C to stop)\n") }
    try #require(serving, "\(child.wait().stderr)")
    // The same warning: not printed again.
    try edit(database, to: "water the ferns", site: site, child)
    let rebuilt = child.waitForOutput { out, _ in
      out.components(separatedBy: "built ").count == 3
    }
    try #require(rebuilt)
    // Another warning: printed.
    let connection = try Database.openWritableForTesting(at: database)
    try connection.execute("UPDATE todo SET priority = 9 WHERE pk = 2;")
    let again = child.waitForOutput { out, _ in out.components(separatedBy: "built ").count == 4 }
    try #require(again)
    child.send(SIGINT)
    let result = child.wait()
    #expect(result.status == 130)
    let warning = "warning: \(database): todo pk=1: priority 7 is not 1, 2 or 3\n"
    #expect(
      result.stderr
        == warning + warning
        + "warning: \(database): todo pk=2: priority 9 is not 1, 2 or 3\n"
        + "stopped: the site in '\(site)' is whole\n")
    // --report is written by each build, as build writes it.
    let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(filePath: report)))
    #expect((json as? [String: Any])?["warnings"] as? Int == 2)
    #expect((json as? [String: Any])?["status"] as? String == "built")
  }

  @Test("a busy port is an error before anything is built")
  func busyPort() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let database = try database(in: folder)
    // A socket listening on a free port of 127.0.0.1.
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(listener >= 0)
    defer { close(listener) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    try #require(bound == 0 && listen(listener, 1) == 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(listener, $0, &length)
      }
    }
    let port = Int(UInt16(bigEndian: address.sin_port))
    let result = runTaskpress(
      ["serve", "--port", "\(port)", "--todos", database, "--output", folder + "/site"],
      in: folder)
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "error: cannot listen on 127.0.0.1:\(port): Address already in use; "
        + "choose another with '--port' or '--host'\n")
    #expect(result.stdout.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: folder + "/site"))
  }
}
