import Testing

@testable import TaskpressKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

private func file(_ path: String, _ hash: UInt64, size: Int = 10) -> BuiltSite.File {
  BuiltSite.File(path: path, hash: KeyedHash(value: hash), size: size)
}

private func record(_ files: [BuiltSite.File]) -> PublishRecord {
  var record = PublishRecord()
  for file in files { record.files[file.path] = file }
  return record
}

@Suite struct PublishPlanTests {
  @Test(
    "each file falls in its phase",
    arguments: [
      ("photos/9d190cfc5a561f31.jpg", PublishPlan.Phase.assets),
      ("photos/9d190cfc5a561f31-640.webp", .assets),
      ("assets/style.css", .assets),
      ("todos/7.html", .items),
      ("todos/7/index.html", .items),
      ("possessions/3.html", .items),
      ("contacts/10.html", .items),
      ("possessions/index.html", .lists),
      ("possessions/page/2.html", .lists),
      ("contacts/index.html", .lists),
      ("page/2.html", .lists),
      ("priority/high/index.html", .lists),
      ("status/complete/page/3.html", .lists),
      ("board.html", .lists),
      ("changes.html", .lists),
      ("404.html", .lists),
      ("index.html", .front),
      ("feed.xml", .front),
      ("sitemap.xml", .front),
      ("data/todos.json", .front),
      ("data/possessions.csv", .front),
    ])
  func phases(path: String, phase: PublishPlan.Phase) {
    #expect(PublishPlan.phase(of: path) == phase)
  }

  @Test("a first publish uploads every file, phase by phase; the first page last")
  func firstPublish() {
    let site = [
      file("404.html", 1), file("assets/style.css", 2), file("index.html", 3),
      file("photos/a.jpg", 4, size: 1000), file("todos/1.html", 5), file("feed.xml", 6),
    ]
    let plan = PublishPlan(site: site, record: PublishRecord())
    #expect(plan.steps.map(\.key) == ["new-assets", "new-items", "new-lists", "new-front"])
    #expect(
      plan.steps.map { $0.files.map(\.path) } == [
        ["assets/style.css", "photos/a.jpg"], ["todos/1.html"], ["404.html"],
        ["index.html", "feed.xml"],
      ])
    #expect(plan.steps[0].bytes == 1010)
    #expect(plan.uploadCount == 6 && plan.unchanged == 0 && plan.deletions.isEmpty)
  }

  @Test("new files go before replaced ones, deletions last; the same hash and size is skipped")
  func update() {
    let published = [
      file("index.html", 1), file("todos/1.html", 2), file("todos/2.html", 3),
      file("priority/high/index.html", 4), file("assets/style.css", 5), file("CNAME-not-ours", 6),
    ]
    let site = [
      file("index.html", 11), file("todos/1.html", 2), file("todos/3.html", 13),
      file("priority/high/index.html", 14), file("priority/low/index.html", 15),
      file("assets/style.css", 5, size: 11), file("photos/b.png", 16),
    ]
    var known = record(published)
    known.files["CNAME-not-ours"] = nil
    let plan = PublishPlan(site: site, record: known)
    #expect(
      plan.steps.map(\.key) == [
        "new-assets", "new-items", "new-lists", "changed-assets", "changed-lists", "changed-front",
      ])
    #expect(plan.steps[1].files.map(\.path) == ["todos/3.html"])
    // A hash the same but a size not: uploaded again.
    #expect(plan.steps[3].files.map(\.path) == ["assets/style.css"])
    #expect(plan.deletions == ["todos/2.html"])
    #expect(plan.unchanged == 1)
  }

  @Test("a path found at the destination but not in the record is replaced, never deleted")
  func foreignFiles() {
    let site = [file("index.html", 1), file("todos/1.html", 2)]
    let plan = PublishPlan(
      site: site, record: PublishRecord(), present: ["index.html", "old.html"])
    #expect(plan.steps.map(\.key) == ["new-items", "changed-front"])
    #expect(plan.deletions.isEmpty)
  }

  @Test("a file recorded as there with unknown bytes is replaced, after the new files")
  func unknownBytes() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    var known = PublishRecord()
    known.files["index.html"] = PublishRecord.unknown("index.html")
    try known.write(statePath: folder.path, destination: "d:")
    let read = try #require(PublishRecord.read(statePath: folder.path, destination: "d:"))
    #expect(read == known)
    let site = [file("index.html", 0, size: 10), file("todos/1.html", 2)]
    let plan = PublishPlan(site: site, record: read)
    #expect(plan.steps.map(\.key) == ["new-items", "changed-front"])
    #expect(plan.unchanged == 0)
  }

  @Test("the record of a destination is written and read back; another destination has none")
  func recordRoundTrip() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    var written = PublishRecord()
    for index in 0..<300 {
      let item = file("todos/\(index).html", UInt64(index) &* 0x9E37_79B9_7F4A_7C15, size: index)
      written.files[item.path] = item
    }
    written.files["a b/ü.html"] = file("a b/ü.html", 7)
    try written.write(statePath: folder.path, destination: "s3:bucket/site")
    #expect(PublishRecord.read(statePath: folder.path, destination: "s3:bucket/site") == written)
    #expect(PublishRecord.read(statePath: folder.path, destination: "s3:bucket/other") == nil)
    PublishRecord.remove(statePath: folder.path, destination: "s3:bucket/site")
    #expect(PublishRecord.read(statePath: folder.path, destination: "s3:bucket/site") == nil)
  }

  @Test("a damaged record reads as none")
  func damagedRecord() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    try PublishRecord().write(statePath: folder.path, destination: "d:")
    let path = folder.path + "/published/" + PublishRecord.fileName(for: "d:")
    let fd = open(path, O_WRONLY | O_TRUNC)
    #expect(fd >= 0)
    _ = "not a record\n".withCString { write(fd, $0, 13) }
    close(fd)
    #expect(PublishRecord.read(statePath: folder.path, destination: "d:") == nil)
  }
}

@Suite struct BuiltSiteTests {
  @Test("a built site's files are those of its manifest; an edited file is refused")
  func readsManifest() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let output = folder.sub("site")
    do {
      let writer = try OutputWriter(root: output)
      try writer.add("index.html", bytes: Array("<p>hi</p>".utf8))
      try writer.add("todos/1.html", bytes: Array("one".utf8))
      _ = try writer.commit()
    }
    let site = try BuiltSite(output: output)
    #expect(site.files.map(\.path) == ["index.html", "todos/1.html"])
    #expect(
      site.files[1].hash == HashKey.of(stateFolder: site.statePath)?.hash(Array("one".utf8))
        && site.files[1].size == 3)
    #expect(site.statePath == folder.sub(".site.taskpress"))
    site.close()

    let fd = open(output + "/todos/1.html", O_WRONLY | O_APPEND)
    _ = "!".withCString { write(fd, $0, 1) }
    close(fd)
    #expect(throws: PublishError.self) { try BuiltSite(output: output) }
    do {
      _ = try BuiltSite(output: output)
    } catch {
      #expect(
        error.description == output + "/todos/1.html: is not as the last build wrote it (changed,"
          + " replaced or removed since); run 'taskpress build' again, then publish")
    }
  }

  @Test("while a build holds the folder, reading it is refused as busy; unlocked, it is read")
  func busy() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let output = folder.sub("site")
    do {
      let writer = try OutputWriter(root: output)
      try writer.add("index.html", bytes: Array("<p>hi</p>".utf8))
      _ = try writer.commit()
    }
    // The lock a build's writer takes.
    let held = open(output, O_RDONLY | O_DIRECTORY)
    defer { close(held) }
    try #require(flock(held, LOCK_EX | LOCK_NB) == 0)
    do {
      _ = try BuiltSite(output: output)
      Issue.record("a folder a writer holds was read")
    } catch {
      #expect(error.isBusy)
      #expect(
        error.reason == "a taskpress build is writing to this folder; publish once it has finished")
    }
    let site = try BuiltSite(output: output, locking: .none)
    #expect(site.files.map(\.path) == ["index.html"])
  }

  @Test("a folder taskpress did not build is refused, saying to build it")
  func notBuilt() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    mkdir(folder.sub("site"), 0o755)
    do {
      _ = try BuiltSite(output: folder.sub("site"))
      Issue.record("a folder without a build was read")
    } catch {
      #expect(error.reason.contains("build it first ('taskpress build --output"))
    }
    do {
      _ = try BuiltSite(output: folder.sub("missing"))
      Issue.record("a missing folder was read")
    } catch {
      #expect(error.reason.hasPrefix("no such folder; build the site first"))
    }
  }
}

@Suite struct HostLimitsTests {
  @Test("a site over cloudflare-pages' file count names the count, the biggest folders and options")
  func fileCount() throws {
    let limits = try #require(HostLimits.named("cloudflare-pages"))
    var files = (1...20_100).map { file("todos/\($0).html", UInt64($0)) }
    files += (1...30).map { file("priority/high/page/\($0).html", UInt64($0)) }
    files.append(file("index.html", 1))
    let problems = limits.problems(files: files, folders: [])
    #expect(problems.count == 1)
    let text = try #require(problems.first)
    #expect(
      text.hasPrefix(
        "the site has 20,131 files, over cloudflare-pages's limit of 20,000 per site; the most"
          + " are in todos/ (20,100), priority/ (30), the top folder (1); todos/, possessions/"
          + " and contacts/ hold one page per row; fewer files elsewhere: a larger --page-size"))
    #expect(text.contains("--gallery-page-size") && text.contains("'--data none'"))
    #expect(
      try #require(HostLimits.named("cloudflare-pages-paid")).problems(files: files, folders: [])
        .isEmpty)
  }

  @Test("per-file size, total size, files per folder and GitLab's entries are each checked")
  func otherLimits() throws {
    let big = [file("data/todos.json", 1, size: 30_000_000), file("index.html", 2)]
    let cloudflare = try #require(HostLimits.named("cloudflare-pages"))
    let problems = cloudflare.problems(files: big, folders: [])
    #expect(problems.count == 1)
    #expect(
      problems.first?.hasPrefix(
        "'data/todos.json' has 30.0 MB, over cloudflare-pages's limit of 25 MiB per file") == true)

    let github = try #require(HostLimits.named("github-pages"))
    let heavy = (1...3).map { file("photos/\($0).webp", UInt64($0), size: 400_000_000) }
    #expect(
      github.problems(files: heavy, folders: []).first?.hasPrefix(
        "the site holds 1.2 GB, over github-pages's limit of 1.0 GB; the most is in photos/ (1.2 GB)"
      ) == true)

    let netlify = try #require(HostLimits.named("netlify"))
    let crowded = (1...54_001).map { file("todos/\($0).html", UInt64($0), size: 1) }
    #expect(
      netlify.problems(files: crowded, folders: []).first?.hasPrefix(
        "the folder 'todos' holds 54,001 files, over netlify's limit of 54,000 files per folder")
        == true)
    #expect(netlify.problems(files: Array(crowded.dropLast()), folders: []).isEmpty)

    // GitLab counts folders: 199,999 files in 2 folders are 200,001 entries.
    let gitlab = try #require(HostLimits.named("gitlab-pages"))
    let many = (1...199_999).map { file(($0 % 2 == 0 ? "a/" : "b/") + "\($0).html", 1, size: 1) }
    #expect(
      gitlab.problems(files: many, folders: []).first?.hasPrefix(
        "the site has 200,001 entries (files and folders), over gitlab-pages's limit") == true)
  }
}
