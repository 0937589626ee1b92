import Foundation
import Testing

/// The package compiles for Darwin as well as Linux (which this machine cannot show by
/// compiling): every Linux-only call is behind `#if canImport(Glibc)` / `#if os(Linux)`, in the
/// small `Platform/` files of each module. These read the sources for what would not compile.
@Suite struct PortabilityTests {
  static let repository = URL(filePath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// What Darwin does not have, or spells otherwise, outside an `#if` for Linux.
  static let linuxOnly = [
    "Glibc.", "st_mtim", "st_ctim", "st_atim", "MSG_NOSIGNAL", "__sigaction_handler",
    "renameat2", "CLOCK_REALTIME_COARSE", "malloc_trim", "/proc/self",
  ]

  /// Whether `code` has `name` as a whole word (`st_mtim`, not `st_mtimespec`).
  static func uses(_ code: String, _ name: String) -> Bool {
    var rest = code[...]
    while let range = rest.range(of: name) {
      let next = rest[range.upperBound...].first
      if !(next.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false) { return true }
      rest = rest[range.upperBound...]
    }
    return false
  }

  /// The Swift files under `folder` of the repository, relative to it.
  static func swiftFiles(_ folder: String) throws -> [String] {
    let root = repository.appending(path: folder).path
    let enumerator = try #require(FileManager.default.enumerator(atPath: root))
    return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
      .map { folder + "/" + $0 }
  }

  /// The lines of `text` (numbered from 1) outside every `#if` branch for Linux
  /// (`canImport(Glibc)`, `os(Linux)`, or the `#else` of a branch for Darwin).
  static func unguardedLines(_ text: String) -> [(Int, String)] {
    func isLinux(_ condition: Substring) -> Bool {
      (condition.contains("canImport(Glibc)") || condition.contains("os(Linux)"))
        && !condition.contains("!")
    }
    func isDarwin(_ condition: Substring) -> Bool {
      condition.contains("canImport(Darwin)") || condition.contains("os(macOS)")
    }
    // Each open #if: whether its current branch is Linux-only, and whether every branch so far
    // was for Darwin (then its #else is Linux's).
    var branches: [(linux: Bool, darwinSoFar: Bool)] = []
    var lines: [(Int, String)] = []
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("#if ") {
        let condition = trimmed.dropFirst(4)
        branches.append((isLinux(condition), isDarwin(condition)))
      } else if trimmed.hasPrefix("#elseif "), let last = branches.last {
        let condition = trimmed.dropFirst(8)
        branches[branches.count - 1] = (
          isLinux(condition), last.darwinSoFar && isDarwin(condition)
        )
      } else if trimmed == "#else", let last = branches.last {
        branches[branches.count - 1] = (last.darwinSoFar, false)
      } else if trimmed == "#endif", !branches.isEmpty {
        branches.removeLast()
      } else if !branches.contains(where: \.linux) {
        lines.append((index + 1, String(line)))
      }
    }
    return lines
  }

  @Test("no source or test imports Glibc unconditionally (git grep '^import Glibc' is empty)")
  func glibcImports() throws {
    var found: [String] = []
    for file in try Self.swiftFiles("Sources") + Self.swiftFiles("Tests") {
      let text = try String(contentsOf: Self.repository.appending(path: file), encoding: .utf8)
      for (number, line) in Self.unguardedLines(text)
      where line.trimmingCharacters(in: .whitespaces) == "import Glibc" {
        found.append("\(file):\(number)")
      }
    }
    #expect(
      found.isEmpty,
      "import Glibc without #if canImport(Glibc) (add #elseif canImport(Darwin) import Darwin): \(found)"
    )
  }

  @Test("the sources use no Linux-only call or field outside an #if for Linux")
  func linuxOnlyCalls() throws {
    var found: [String] = []
    for file in try Self.swiftFiles("Sources") {
      let text = try String(contentsOf: Self.repository.appending(path: file), encoding: .utf8)
      for (number, line) in Self.unguardedLines(text) {
        let code = line.components(separatedBy: "//")[0]
        for name in Self.linuxOnly where Self.uses(code, name) {
          found.append("\(file):\(number): \(name)")
        }
      }
    }
    #expect(found.isEmpty, "Linux-only, unguarded (put it in the module's Platform/): \(found)")
  }

  @Test("the reader of #if branches sees through them, and would find an unguarded import")
  func unguardedLinesReader() {
    let glibc = "Glibc"
    let text = [
      "import Foundation", "#if canImport(\(glibc))", "  import \(glibc)",
      "#elseif canImport(Darwin)", "  import Darwin", "#endif", "import \(glibc)",
      "#if canImport(Darwin)", "  let a = st_mtimespec", "#else", "  let a = st_mtim", "#endif",
      "#if !os(Linux)", "  let b = 0", "#endif",
    ].joined(separator: "\n")
    #expect(Self.unguardedLines(text).map(\.0) == [1, 5, 7, 9, 14])
    #expect(Self.uses("let a = info.st_mtim.tv_sec", "st_mtim"))
    #expect(!Self.uses("let a = info.st_mtimespec", "st_mtim"))
  }
}
