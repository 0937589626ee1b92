import Foundation

/// Verifies a built site: every `href` and `src` inside it resolves to a file of the site.
public enum LinkChecker {
  /// A link or image that points at nothing.
  public struct BrokenLink: Sendable, Equatable, CustomStringConvertible {
    /// The page it is on, relative to the site folder.
    public var page: String
    /// The attribute's value as written.
    public var target: String
    /// Why it does not resolve.
    public var reason: String

    public var description: String { "\(page): '\(target)' \(reason)" }
  }

  /// What a check found.
  public struct Report: Sendable, Equatable {
    /// HTML pages read.
    public var pages = 0
    /// Internal links and images followed.
    public var links = 0
    /// The ones that do not resolve, by page then position.
    public var broken: [BrokenLink] = []
  }

  /// Checks every `.html` file under `site`.
  /// - Throws: ``BuildError`` when `site` is not a folder.
  public static func check(site: String) throws -> Report {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: site, isDirectory: &isFolder) else {
      throw BuildError("\(site): no such folder; build the site first or name its folder")
    }
    guard isFolder.boolValue else {
      throw BuildError("\(site): is a file, not a site folder")
    }
    let root = URL(fileURLWithPath: site).standardizedFileURL.path
    var report = Report()
    guard let enumerator = FileManager.default.enumerator(atPath: root) else {
      throw BuildError("\(site): cannot list the folder")
    }
    var pages: [String] = []
    while let path = enumerator.nextObject() as? String {
      if path.hasPrefix(".taskpress") || path.hasPrefix(".git") {
        enumerator.skipDescendants()
        continue
      }
      if path.hasSuffix(".html") { pages.append(path) }
    }
    for page in pages.sorted() {
      guard let data = FileManager.default.contents(atPath: root + "/" + page) else { continue }
      report.pages += 1
      for target in linkTargets(in: [UInt8](data)) {
        guard let path = internalPath(target) else { continue }
        report.links += 1
        if let reason = problem(path, from: page, root: root) {
          report.broken.append(BrokenLink(page: page, target: target, reason: reason))
        }
      }
    }
    return report
  }

  /// The path part of an internal link, percent-decoded; `nil` for external links, `mailto:`,
  /// fragments within the page and the like.
  static func internalPath(_ target: String) -> String? {
    var target = Substring(target.trimmingCharacters(in: .whitespaces))
    if target.hasPrefix("//") { return nil }
    if let colon = target.firstIndex(of: ":"),
      !target[..<colon].contains(where: { $0 == "/" || $0 == "?" || $0 == "#" })
    {
      return nil  // a scheme: http:, mailto:, data:, ...
    }
    if let end = target.firstIndex(where: { $0 == "?" || $0 == "#" }) {
      target = target[..<end]
    }
    if target.isEmpty { return nil }
    return String(target).removingPercentEncoding ?? String(target)
  }

  private static func problem(_ path: String, from page: String, root: String) -> String? {
    var components: [Substring] = []
    if !path.hasPrefix("/") {
      components = page.split(separator: "/").dropLast()
    }
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
      switch part {
      case ".": continue
      case "..":
        guard !components.isEmpty else { return "points outside the site" }
        components.removeLast()
      default: components.append(part)
      }
    }
    var file = components.joined(separator: "/")
    var isFolder: ObjCBool = false
    let full = root + "/" + file
    guard FileManager.default.fileExists(atPath: full, isDirectory: &isFolder) else {
      return "does not resolve: no file '\(file.isEmpty ? "." : file)' in the site"
    }
    if isFolder.boolValue {
      file += file.isEmpty ? "index.html" : "/index.html"
      guard FileManager.default.fileExists(atPath: root + "/" + file) else {
        return "points to a folder without index.html"
      }
    }
    return nil
  }

  /// The values of every `href` and `src` attribute in an HTML document, entities decoded.
  static func linkTargets(in html: [UInt8]) -> [String] {
    var targets: [String] = []
    var index = 0
    let count = html.count
    while index < count {
      // Skip comments, find the next tag.
      guard html[index] == UInt8(ascii: "<") else {
        index += 1
        continue
      }
      if index + 3 < count, html[index + 1] == UInt8(ascii: "!"), html[index + 2] == 0x2D,
        html[index + 3] == 0x2D
      {
        index += 4
        while index + 2 < count,
          !(html[index] == 0x2D && html[index + 1] == 0x2D && html[index + 2] == UInt8(ascii: ">"))
        {
          index += 1
        }
        index += 3
        continue
      }
      index += 1
      // Tag name.
      while index < count, !isSpace(html[index]), html[index] != UInt8(ascii: ">") {
        index += 1
      }
      // Attributes.
      while index < count, html[index] != UInt8(ascii: ">") {
        if isSpace(html[index]) || html[index] == UInt8(ascii: "/") {
          index += 1
          continue
        }
        let nameStart = index
        while index < count, !isSpace(html[index]), html[index] != UInt8(ascii: "="),
          html[index] != UInt8(ascii: ">")
        {
          index += 1
        }
        let name = String(decoding: html[nameStart..<index], as: UTF8.self).lowercased()
        while index < count, isSpace(html[index]) { index += 1 }
        guard index < count, html[index] == UInt8(ascii: "=") else { continue }
        index += 1
        while index < count, isSpace(html[index]) { index += 1 }
        guard index < count else { break }
        var value: ArraySlice<UInt8>
        let quote = html[index]
        if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
          let valueStart = index + 1
          index = valueStart
          while index < count, html[index] != quote { index += 1 }
          value = html[valueStart..<min(index, count)]
          index += 1
        } else {
          let valueStart = index
          while index < count, !isSpace(html[index]), html[index] != UInt8(ascii: ">") {
            index += 1
          }
          value = html[valueStart..<index]
        }
        if name == "href" || name == "src" {
          targets.append(decodeEntities(String(decoding: value, as: UTF8.self)))
        }
      }
      index += 1
    }
    return targets
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
  }

  /// Decodes the character references a generator writes in attributes.
  static func decodeEntities(_ text: String) -> String {
    guard text.contains("&") else { return text }
    var result = ""
    var rest = Substring(text)
    while let amp = rest.firstIndex(of: "&") {
      result += rest[..<amp]
      rest = rest[amp...]
      guard let semicolon = rest.firstIndex(of: ";"), rest.distance(from: amp, to: semicolon) < 12
      else {
        result += "&"
        rest = rest.dropFirst()
        continue
      }
      let entity = rest[rest.index(after: amp)..<semicolon]
      let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "#39": "'"]
      if let value = named[String(entity)] {
        result += value
      } else if entity.hasPrefix("#x") || entity.hasPrefix("#X"),
        let code = UInt32(entity.dropFirst(2), radix: 16), let scalar = Unicode.Scalar(code)
      {
        result.unicodeScalars.append(scalar)
      } else if entity.hasPrefix("#"), let code = UInt32(entity.dropFirst()),
        let scalar = Unicode.Scalar(code)
      {
        result.unicodeScalars.append(scalar)
      } else {
        result += rest[...semicolon]
      }
      rest = rest[rest.index(after: semicolon)...]
    }
    return result + rest
  }
}
