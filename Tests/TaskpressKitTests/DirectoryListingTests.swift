import Foundation
import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `FileSystem.listDirectory` reads each name where `readdir` put it: a folder big enough to
/// fill readdir's buffer has records at its very end, which a copy of a whole `dirent` would
/// read past (AddressSanitizer reports that as a heap-buffer-overflow; without it, it crashes
/// only when the buffer ends at an unmapped page).
@Suite struct DirectoryListingTests {
  @Test("every name of a folder of 3,000 files of 1 to 200 bytes is listed, exactly")
  func bigFolder() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    var expected: Set<String> = []
    for index in 0..<3_000 {
      let length = 1 + (index * 37) % 200
      let stem = String(index)
      let name = stem + String(repeating: "é", count: max(0, (length - stem.utf8.count) / 2))
      expected.insert(name)
      #expect(FileManager.default.createFile(atPath: folder.sub(name), contents: nil))
    }
    let fd = open(folder.path, O_RDONLY | O_DIRECTORY)
    try #require(fd >= 0)
    defer { close(fd) }
    let names = try FileSystem.listDirectory(fd)
    #expect(names.count == expected.count)
    #expect(Set(names) == expected)
  }
}
