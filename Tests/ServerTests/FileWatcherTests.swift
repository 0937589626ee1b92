import Foundation
import Testing

@testable import Server

#if canImport(Glibc)
  import Glibc
#endif

@Suite struct FileWatcherTests {
  /// Waits for changes until `expected` is among them (a generous cap), collecting all seen.
  private func changes(_ watcher: FileWatcher, until expected: String) -> [String] {
    var seen: [String] = []
    for _ in 0..<120 where !seen.contains(expected) {
      seen += watcher.wait(milliseconds: 500)
    }
    return seen
  }

  @Test(
    "a file replaced by renaming a temporary file over it is seen",
    arguments: [FileWatcher.Mode.inotify, .poll(intervalMilliseconds: 50)])
  func renameOnSave(mode: FileWatcher.Mode) throws {
    let folder = try makeTemporaryFolder()
    try write("{}", to: folder + "/taskpress.json")
    let watcher = FileWatcher(files: [folder + "/taskpress.json"], folders: [], mode: mode)
    try write("{\"page-size\": 5}", to: folder + "/.taskpress.json.tmp")
    #expect(rename(folder + "/.taskpress.json.tmp", folder + "/taskpress.json") == 0)
    let seen = changes(watcher, until: folder + "/taskpress.json")
    #expect(seen.contains(folder + "/taskpress.json"))
    #expect(
      !seen.contains(folder + "/.taskpress.json.tmp"), "other names in the folder are ignored")
  }

  @Test(
    "a commit to a database's -wal file is seen; its -shm file is ignored",
    arguments: [FileWatcher.Mode.inotify, .poll(intervalMilliseconds: 50)])
  func walAndShm(mode: FileWatcher.Mode) throws {
    let folder = try makeTemporaryFolder()
    let database = folder + "/todo.sqlite"
    try write("db", to: database)
    try write("", to: database + "-wal")
    try write("", to: database + "-shm")
    let watcher = FileWatcher(files: [database], folders: [], mode: mode)
    try write("shared memory", to: database + "-shm")
    #expect(watcher.wait(milliseconds: 300) == [])
    try write("a frame", to: database + "-wal")
    let seen = changes(watcher, until: database + "-wal")
    #expect(seen == [database + "-wal"])
  }

  @Test("opening a file for writing and closing it unchanged is not a change")
  func unchangedClose() throws {
    let folder = try makeTemporaryFolder()
    let database = folder + "/todo.sqlite"
    try write("db", to: database)
    try write("frames", to: database + "-wal")
    let watcher = FileWatcher(files: [database], folders: [])
    #expect(watcher.mode == .inotify)
    let descriptor = open(database + "-wal", O_RDWR)
    #expect(descriptor >= 0)
    close(descriptor)
    #expect(watcher.wait(milliseconds: 300) == [])
  }

  @Test("a watched folder's files and its subfolders, new ones included, are watched")
  func folders() throws {
    let folder = try makeTemporaryFolder()
    try write("a", to: folder + "/templates/assets/style.css")
    let watcher = FileWatcher(files: [], folders: [folder + "/templates"])
    try write("b", to: folder + "/templates/assets/style.css")
    #expect(
      changes(watcher, until: folder + "/templates/assets/style.css").contains(
        folder + "/templates/assets/style.css"))
    try FileManager.default.createDirectory(
      atPath: folder + "/templates/new", withIntermediateDirectories: true)
    #expect(changes(watcher, until: folder + "/templates/new").contains(folder + "/templates/new"))
    try write("c", to: folder + "/templates/new/labels.json")
    #expect(
      changes(watcher, until: folder + "/templates/new/labels.json").contains(
        folder + "/templates/new/labels.json"))
  }
}
