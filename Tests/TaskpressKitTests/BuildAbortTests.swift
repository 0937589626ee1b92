import Foundation
import Mustache
import Synchronization
import Testing

@testable import TaskpressKit

/// A failing build stops every thread of its own before it throws the staged files away.
@Suite struct BuildAbortTests {
  @Test("a build that fails while photos are being staged stops the photo thread before aborting")
  func photosStopBeforeAbort() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    var options = try DifferentialTests.options(
      (0..<30).map { "Row \($0)" }, in: folder, name: "abort")
    // A partial named by the data: found missing only when the board renders (among the first
    // pages; the first index page renders after the photos).
    let templates = folder.sub("templates")
    try FileManager.default.createDirectory(atPath: templates, withIntermediateDirectories: true)
    #expect(
      FileManager.default.createFile(
        atPath: templates + "/board.html", contents: Data("{{>*site.title}}\n".utf8)))
    options.templates = templates
    options.output = folder.sub("site")
    options.jobs = 2
    let events = Mutex<[String]>([])
    let probe = Build.Probe(
      beforePhoto: { isCancelled in
        let photos = events.withLock { events in
          events.append("photo")
          return events.filter { $0 == "photo" }.count
        }
        // The photo thread waits at its second photo until the build tells it to stop, or aborts.
        guard photos == 2 else { return }
        while !isCancelled(), !events.withLock({ $0.contains("aborted") }) {
          usleep(1000)
        }
        events.withLock { $0.append("photo thread went on") }
      },
      aborted: { events.withLock { $0.append("aborted") } })
    // The type is the contract here: the order of the abort is this test's point; the template
    // error's message (file, line, column) is TemplateErrorTests'.
    #expect(throws: TemplateError.self) {
      try Build.run(
        options, interrupt: InterruptFlag(), reporter: Build.Reporter { _ in },
        commitStepLimit: nil, probe: probe)
    }
    let log = events.withLock { $0 }
    let aborted = try #require(log.firstIndex(of: "aborted"), "\(log)")
    #expect(log.count > 1, "the photo thread ran: \(log)")
    #expect(aborted == log.count - 1, "the photo thread did something after the abort: \(log)")
    #expect(!FileManager.default.fileExists(atPath: options.output), "a failed build left a site")
  }
}
