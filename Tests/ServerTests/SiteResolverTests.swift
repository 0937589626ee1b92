import Testing

@testable import Server

@Suite struct SiteResolverTests {
  @Test("a file, a folder's index.html, a folder without its slash redirects keeping the query")
  func files() throws {
    let site = try SampleSite()
    let resolver = SiteResolver(root: site.root)
    #expect(
      resolver.resolve("/assets/style.css")
        == .file(path: site.root + "/assets/style.css", length: 19))
    #expect(resolver.resolve("/") == .file(path: site.root + "/index.html", length: 39))
    #expect(
      resolver.resolve("/todos/3/?a=1")
        == .file(path: site.root + "/todos/3/index.html", length: 32))
    #expect(resolver.resolve("/todos/3?a=1") == .redirect("/todos/3/?a=1"))
    #expect(resolver.resolve("/todos/") == .notFound)
    #expect(
      resolver.resolve("/assets/style%2Ecss")
        == .file(path: site.root + "/assets/style.css", length: 19))
    #expect(resolver.resolve("/nothing.html") == .notFound)
  }

  @Test(
    "'..' and '.' segments, plain or percent-escaped, are refused with 400",
    arguments: [
      "/../secret.txt", "/assets/../../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt",
      "/.%2e/secret.txt", "/assets/%2e%2e/%2e%2e/secret.txt", "/./index.html", "/%2e/index.html",
    ])
  func climbing(target: String) throws {
    let site = try SampleSite()
    #expect(
      SiteResolver(root: site.root).resolve(target)
        == .refused(.badRequest, reason: "the path may not contain '.' or '..' segments"))
  }

  @Test(
    "escaped slashes, backslashes and NUL are refused with 400",
    arguments: [
      "/%2e%2e%2fsecret.txt", "/..%2Fsecret.txt", "/%5c..%5csecret.txt", "/index.html%00.css",
    ]
  )
  func escapedSeparators(target: String) throws {
    let site = try SampleSite()
    #expect(
      SiteResolver(root: site.root).resolve(target)
        == .refused(.badRequest, reason: "the path may not contain '/', '\\' or NUL escaped"))
  }

  @Test("absolute paths and other target forms are refused or stay inside the site")
  func absolute() throws {
    let site = try SampleSite()
    let resolver = SiteResolver(root: site.root)
    let notPath = SiteResolver.Resolution.refused(
      .badRequest, reason: "the target must be a path starting with '/'")
    #expect(resolver.resolve("http://127.0.0.1/index.html") == notPath)
    #expect(resolver.resolve("*") == notPath)
    #expect(resolver.resolve(site.folder + "/secret.txt") == .notFound)
    #expect(resolver.resolve("/" + site.folder + "/secret.txt") == .notFound)
    #expect(
      resolver.resolve("/%2f" + site.folder + "/secret.txt")
        != .file(path: site.folder + "/secret.txt", length: 23))
    #expect(
      resolver.resolve("/bad%zzescape")
        == .refused(.badRequest, reason: "a malformed percent-escape in the path"))
  }

  @Test("a symlink out of the site is 403; one inside is served; hidden files are not found")
  func symlinks() throws {
    let site = try SampleSite()
    let resolver = SiteResolver(root: site.root)
    let out = SiteResolver.Resolution.refused(
      .forbidden, reason: "the file is a link to outside the site")
    #expect(resolver.resolve("/escape.txt") == out)
    #expect(resolver.resolve("/escape/secret.txt") == out)
    #expect(
      resolver.resolve("/inside.css") == .file(path: site.root + "/assets/style.css", length: 19))
    #expect(resolver.resolve("/.taskpress/manifest") == .notFound)
    #expect(resolver.resolve("/%2etaskpress/manifest") == .notFound)
  }

  @Test("under a base path: the site is found there, the root redirects to it, the rest is 404")
  func basePath() throws {
    let site = try SampleSite()
    let resolver = SiteResolver(root: site.root, basePath: "tasks/board")
    #expect(resolver.basePath == "/tasks/board/")
    #expect(resolver.eventsPath == "/tasks/board/_taskpress/events")
    #expect(
      resolver.resolve("/tasks/board/assets/style.css")
        == .file(path: site.root + "/assets/style.css", length: 19))
    #expect(resolver.resolve("/") == .redirect("/tasks/board/"))
    #expect(resolver.resolve("/tasks/board?x") == .redirect("/tasks/board/?x"))
    #expect(resolver.resolve("/assets/style.css") == .notFound)
    #expect(resolver.resolve("/tasks/board/_taskpress/events") == .events)
    #expect(SiteResolver.normalizedBasePath("") == "/")
    #expect(SiteResolver.normalizedBasePath("/a/") == "/a/")
  }
}
