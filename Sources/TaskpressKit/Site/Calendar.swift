/// `calendar.ics` (RFC 5545): an all-day event for each open to-do with a due date, and one
/// calendar per priority beside it (`calendar-high.ics`, ...). Calendar programs ignore VTODO;
/// an all-day VEVENT shows everywhere.
///
/// An event's SEQUENCE and DTSTAMP are kept from the previous build's `calendar.ics` while the
/// rest of the event is what it was; when it changes, SEQUENCE grows by one and DTSTAMP is this
/// build's date. A build that changes no event writes the same bytes.
struct ICalendar {
  /// One event, before SEQUENCE and DTSTAMP are given.
  struct Event: Equatable {
    var pk: Int64
    /// The list key of its priority (`high`, ..., `other`, `none`).
    var priorityKey: String
    /// Its content lines (unfolded), without SEQUENCE and DTSTAMP, in the order written.
    var lines: [String]
    var uid: String
  }

  /// What the previous calendar said of an event: its SEQUENCE, DTSTAMP and other lines.
  struct Previous: Equatable {
    var sequence: Int
    var stamp: String
    var lines: [String]
  }

  /// The events, in pk order.
  var events: [Event]
  /// The list keys of the priority calendars, in the order of the lists.
  var priorityKeys: [String]
  /// The name of the whole calendar and of each priority's (by key).
  var name: String
  var priorityNames: [String: String]

  /// The calendar of the open to-dos with a due date of `plan`. `site` names the site in the
  /// UIDs; `baseURL` gives each event its page's URL.
  init(plan: SitePlan, labels: Labels, siteTitle: String, baseURL: String?) {
    let site = Self.uidDomain(baseURL: baseURL, title: siteTitle)
    let todos = plan.todos
    var keys: [Int: String] = [:]
    var names: [String: String] = [:]
    var order: [String] = []
    for list in plan.lists where list.kind == .priority {
      order.append(list.key)
      if case .range(let range) = list.members {
        for position in range { keys[position] = list.key }
      }
      let label = list.key == "other" ? labels["priority"] : labels.priority(list.priority ?? .none)
      names[list.key] = siteTitle + " · " + label
    }
    priorityKeys = order
    priorityNames = names
    name = siteTitle
    var events: [Event] = []
    for position in plan.todoPositionsByPK {
      guard !todos.isComplete(position), let due = todos.due(position),
        let day = Self.day(due)
      else { continue }
      let pk = todos.pk(position)
      let text = todos.text(position)
      let uid = "todo-\(todos.pageName(position))@\(site)"
      var lines = [
        "UID:" + Self.text(uid),
        "DTSTART;VALUE=DATE:" + Self.compact(day.start),
        "DTEND;VALUE=DATE:" + Self.compact(day.end),
        "SUMMARY:"
          + Self.text(text.isEmpty ? "\(labels["task"]) \(todos.keyText(position))" : text),
        "CATEGORIES:" + Self.text(labels.priority(todos.priority(position))),
      ]
      if let baseURL {
        lines.append(
          "URL:"
            + Self.uri(plan.routes.absolute("todos/" + todos.pageName(position), baseURL: baseURL)))
      }
      lines.append("TRANSP:TRANSPARENT")
      events.append(
        Event(pk: pk, priorityKey: keys[position] ?? "none", lines: lines, uid: uid))
    }
    self.events = events
  }

  /// The files: `calendar.ics`, then each priority's, with the events' SEQUENCE and DTSTAMP
  /// from `previous` (a previous `calendar.ics`, nil for none) and `stamp` (this build's date,
  /// RFC 3339 in UTC) for the events that are new or changed.
  func files(previous: [UInt8]?, stamp: String) -> [(path: String, bytes: [UInt8])] {
    let before = previous.map(Self.read) ?? [:]
    let dtstamp = Self.dateTime(stamp)
    let written: [(Event, [String])] = events.map { event in
      var sequence = 0
      var eventStamp = dtstamp
      if let old = before["UID:" + Self.text(event.uid)] {
        if old.lines == event.lines {
          (sequence, eventStamp) = (old.sequence, old.stamp)
        } else {
          sequence = old.sequence + 1
        }
      }
      var lines = event.lines
      lines.insert("DTSTAMP:" + eventStamp, at: 1)
      lines.append("SEQUENCE:\(sequence)")
      return (event, lines)
    }
    var files = [("calendar.ics", Self.calendar(name: name, written.map(\.1)))]
    for key in priorityKeys {
      files.append(
        (
          "calendar-\(key).ics",
          Self.calendar(
            name: priorityNames[key] ?? name,
            written.filter { $0.0.priorityKey == key }.map(\.1))
        ))
    }
    return files
  }

  /// A VCALENDAR of `events` (each its content lines), folded, with CRLF line ends.
  static func calendar(name: String, _ events: [[String]]) -> [UInt8] {
    var output: [UInt8] = []
    func line(_ text: String) { fold(text, into: &output) }
    line("BEGIN:VCALENDAR")
    line("VERSION:2.0")
    line("PRODID:-//taskpress//taskpress//EN")
    line("CALSCALE:GREGORIAN")
    line("METHOD:PUBLISH")
    line("X-WR-CALNAME:" + text(name))
    for event in events {
      line("BEGIN:VEVENT")
      for content in event { line(content) }
      line("END:VEVENT")
    }
    line("END:VCALENDAR")
    return output
  }

  /// `line` folded (RFC 5545 3.1): at most 75 octets a line, a continuation line starting
  /// with a space, never inside a UTF-8 sequence; each line ends with CRLF.
  static func fold(_ line: String, into output: inout [UInt8]) {
    let bytes = Array(line.utf8)
    var start = 0
    var limit = 75
    while bytes.count - start > limit {
      var end = start + limit
      // Back to the start of a UTF-8 sequence.
      while end > start, bytes[end] & 0xC0 == 0x80 { end -= 1 }
      output += bytes[start..<end]
      output += [13, 10, 32]
      start = end
      limit = 74
    }
    output += bytes[start...]
    output += [13, 10]
  }

  /// `value` as a TEXT value (RFC 5545 3.3.11): backslash, semicolon and comma escaped, line
  /// breaks as `\n`, other control characters (which TEXT cannot hold) as U+FFFD.
  static func text(_ value: String) -> String {
    var result = ""
    result.reserveCapacity(value.utf8.count)
    var scalars = value.unicodeScalars[...]
    while let scalar = scalars.popFirst() {
      switch scalar {
      case "\\": result += "\\\\"
      case ";": result += "\\;"
      case ",": result += "\\,"
      case "\r":
        if scalars.first == "\n" { scalars.removeFirst() }
        result += "\\n"
      case "\n": result += "\\n"
      case "\t": result += "\t"
      default:
        result.unicodeScalars.append(
          scalar.value < 0x20 || scalar.value == 0x7F ? "\u{FFFD}" : scalar)
      }
    }
    return result
  }

  /// A URI value: as given, with any control character or space percent-encoded (a URL made
  /// from `--base-url` has none, but a line break must never reach the file).
  static func uri(_ value: String) -> String {
    var result = ""
    for byte in value.utf8 {
      if byte <= 0x20 || byte == 0x7F {
        let hex = String(byte, radix: 16, uppercase: true)
        result += "%" + (hex.count == 1 ? "0" : "") + hex
      } else {
        result.unicodeScalars.append(Unicode.Scalar(byte))
      }
    }
    return result
  }

  /// The host of `baseURL`, else the site's title made a name (`my-tasks.taskpress.invalid`):
  /// the part of each UID after `@`.
  static func uidDomain(baseURL: String?, title: String) -> String {
    if let baseURL, let scheme = baseURL.range(of: "://") {
      let rest = baseURL[scheme.upperBound...]
      let host = rest.prefix { $0 != "/" && $0 != ":" && $0 != "?" && $0 != "#" }
      let authority = host.split(separator: "@").last.map(String.init) ?? ""
      if !authority.isEmpty { return authority.lowercased() }
    }
    var slug = ""
    for scalar in title.lowercased().unicodeScalars {
      if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
        slug.unicodeScalars.append(scalar)
      } else if !slug.isEmpty, slug.last != "-" {
        slug += "-"
      }
    }
    while slug.hasSuffix("-") { slug.removeLast() }
    return slug.isEmpty ? "taskpress.invalid" : slug.prefix(40) + ".taskpress.invalid"
  }

  /// The day of a due date and the day after it (`YYYY-MM-DD`), when it starts with a real
  /// date.
  static func day(_ due: String) -> (start: String, end: String)? {
    let todo = Todo(pk: 0, text: "", priority: .none, complete: false, due: due)
    guard let day = todo.dueDay else { return nil }
    let parts = day.split(separator: "-").compactMap { Int($0) }
    guard parts.count == 3 else { return nil }
    let (year, month, date) = (parts[0], parts[1], parts[2])
    guard (1...12).contains(month), date >= 1, date <= CivilDate.days(inMonth: month, year: year)
    else { return nil }
    var next = (year, month, date + 1)
    if next.2 > CivilDate.days(inMonth: month, year: year) { next = (year, month + 1, 1) }
    if next.1 > 12 { next = (year + 1, 1, 1) }
    guard next.0 <= 9999 else { return nil }
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let padded = String(repeating: "0", count: max(0, 4 - String(next.0).count)) + String(next.0)
    return (String(day), "\(padded)-\(two(next.1))-\(two(next.2))")
  }

  /// `2026-12-01` as `20261201`.
  static func compact(_ day: String) -> String { day.filter { $0 != "-" } }

  /// An RFC 3339 UTC date-time (`2026-12-01T06:00:00Z`) as a DATE-TIME (`20261201T060000Z`).
  static func dateTime(_ date: String) -> String {
    date.filter { $0 != "-" && $0 != ":" }
  }

  /// The events of a calendar this type wrote, by UID: unfolded, each event's lines but
  /// SEQUENCE and DTSTAMP. Anything else (a damaged or foreign file) gives what it can: an
  /// event it cannot read counts as new.
  static func read(_ bytes: [UInt8]) -> [String: Previous] {
    var lines: [String] = []
    var current: [UInt8] = []
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == 13, index + 1 < bytes.count, bytes[index + 1] == 10 {
        index += 2
        if index < bytes.count, bytes[index] == 32 || bytes[index] == 9 {
          index += 1
          continue
        }
        lines.append(String(decoding: current, as: UTF8.self))
        current.removeAll(keepingCapacity: true)
        continue
      }
      current.append(byte)
      index += 1
    }
    if !current.isEmpty { lines.append(String(decoding: current, as: UTF8.self)) }
    // Keyed by the UID line as written (escaped): `"UID:" + text(uid)`.
    var events: [String: Previous] = [:]
    var inEvent = false
    var uid: String?
    var sequence: Int?
    var stamp: String?
    var content: [String] = []
    for line in lines {
      if line == "BEGIN:VEVENT" {
        (inEvent, uid, sequence, stamp, content) = (true, nil, nil, nil, [])
      } else if line == "END:VEVENT" {
        if inEvent, let uid, let sequence, let stamp, (0...1_000_000_000).contains(sequence),
          isDateTime(stamp)
        {
          events[uid] = Previous(sequence: sequence, stamp: stamp, lines: content)
        }
        inEvent = false
      } else if inEvent {
        if line.hasPrefix("SEQUENCE:") {
          sequence = Int(line.dropFirst("SEQUENCE:".count))
        } else if line.hasPrefix("DTSTAMP:") {
          stamp = String(line.dropFirst("DTSTAMP:".count))
        } else {
          if line.hasPrefix("UID:") { uid = line }
          content.append(line)
        }
      }
    }
    return events
  }

  /// Whether `text` is a UTC DATE-TIME as this type writes it (`20261201T060000Z`).
  static func isDateTime(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z")
    else { return false }
    return bytes.enumerated().allSatisfy { offset, byte in
      offset == 8 || offset == 15 || (0x30...0x39).contains(byte)
    }
  }
}
