import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct OutputFolderMoveTests {
  @Test("a folder that does not exist yet is staged whole and moved into place in one step")
  func newFolderMovedWhole() throws {
    let temporary = try TemporaryFolder()
    defer { temporary.cleanUp() }
    let root = temporary.sub("site")
    var files = ["index.html": "home"]
    for number in 1...50 { files["todos/\(number).html"] = "todo \(number)" }
    files["todos/3/deep/x.html"] = "deep"
    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    // Stop right after the first step: with whole-folder moves, that one rename publishes all
    // of todos/ at once.
    writer.commitStepLimit = 1
    for (path, text) in files { try writer.add(path, bytes: Array(text.utf8)) }
    // Any error: the stop is the test hook `commitStepLimit`, which no user meets.
    #expect(outputError { _ = try writer.commit() } != nil)
    let partial = Tree.contents(root)
    #expect(partial.keys.filter { $0.hasPrefix("todos/") }.count == 51)
    #expect(partial["index.html"] == nil)

    // The repairing build finishes the job, and the tree is what a clean build makes.
    let summary = try build(root, files)
    #expect(summary.repaired)
    let clean = temporary.sub("clean")
    try build(clean, files)
    #expect(Tree.contents(root) == Tree.contents(clean))
  }

  @Test("when something appears where a staged folder goes, its files are published one by one")
  func folderAppearsDuringBuild() throws {
    let temporary = try TemporaryFolder()
    defer { temporary.cleanUp() }
    let root = temporary.sub("site")
    try build(root, ["index.html": "home"])
    let writer = try OutputWriter(root: root, interrupt: InterruptFlag())
    try writer.add("todos/1.html", bytes: Array("one".utf8))
    try writer.add("todos/2.html", bytes: Array("two".utf8))
    // A user makes the folder, with a file of their own, while the build renders.
    #expect(mkdir(root + "/todos", 0o755) == 0)
    let notes = open(root + "/todos/notes.txt", O_WRONLY | O_CREAT, 0o644)
    #expect(notes >= 0)
    close(notes)
    let summary = try writer.commit()
    #expect(summary.written == 2)
    let tree = Tree.contents(root)
    #expect(tree["todos/1.html"] == Array("one".utf8))
    #expect(tree["todos/2.html"] == Array("two".utf8))
    #expect(tree["todos/notes.txt"] == [])
  }
}
