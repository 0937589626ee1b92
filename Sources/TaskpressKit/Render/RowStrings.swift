import Mustache

/// What every value of one build shares: the labels and the routes, with the texts a row
/// needs made once.
final class RowStrings: Sendable {
  let routes: Routes
  let labels: Labels
  let task: String
  let possessions: String
  let contacts: String
  let photo: String
  let photoOf: String
  let complete: String
  let inProgress: String
  /// The build's date (`YYYY-MM-DD`) when it has one: to-dos due before it are overdue.
  let today: String?
  /// Whether to-do texts are Markdown, rendered inline in `titleHTML` and `textHTML`.
  let todoMarkdown: Bool
  /// Whether possession descriptions are Markdown, rendered inline in `descriptionHTML`.
  let descriptionMarkdown: Bool
  /// The labels of High, Medium, Low and no priority, made once.
  private let fixedLabels: [String]
  /// The `priority` object of High, Medium, Low and no priority, made once.
  private let fixedPriorities: [MustacheValue]

  init(
    routes: Routes, labels: Labels, today: String? = nil,
    markdown: Set<BuildOptions.MarkdownField> = []
  ) {
    self.routes = routes
    todoMarkdown = markdown.contains(.todoText)
    descriptionMarkdown = markdown.contains(.possessionDescription)
    self.labels = labels
    self.today = today
    task = labels["task"]
    possessions = labels["possessions"]
    contacts = labels["contacts"]
    photo = labels["photo"]
    photoOf = labels["photoOf"]
    complete = labels.status(complete: true)
    inProgress = labels.status(complete: false)
    let fixed = [Priority.high, .medium, .low, .none]
    fixedLabels = fixed.map { labels.priority($0) }
    fixedPriorities = fixed.map { Self.makePriority($0, labels: labels) }
  }

  /// A to-do's text as HTML: rendered inline when to-do texts are Markdown, else escaped;
  /// see `InlineMarkdown`.
  func todoHTML(_ text: String, links: Bool) -> String {
    todoMarkdown ? InlineMarkdown.html(text, links: links) : Self.escaped(text)
  }

  /// `text` HTML-escaped as `{{value}}` escapes it.
  static func escaped(_ text: String) -> String {
    Escaping.html.escape(text)
  }

  /// A due date as pages show it: its day in the locale's format (`2008-07-25`, `2008年7月25日`),
  /// or the text as stored when it is not a date.
  func dueDate(_ todo: Todo) -> String? {
    guard let due = todo.due else { return nil }
    return todo.dueDay.map { labels.date(iso: String($0)) } ?? due
  }

  /// Whether `todo` is overdue on the build's date; never when the build has no date.
  func isOverdue(_ todo: Todo) -> Bool {
    today.map { todo.isOverdue(today: $0) } ?? false
  }

  /// A priority's label: "High", "Priority 9", "No priority".
  func priorityLabel(_ priority: Priority) -> String {
    switch priority {
    case .high: fixedLabels[0]
    case .medium: fixedLabels[1]
    case .low: fixedLabels[2]
    case .none: fixedLabels[3]
    case .other: labels.priority(priority)
    }
  }

  /// The `priority` object of a to-do: `label`, `level` and `number` (none for no priority).
  func priority(_ priority: Priority) -> MustacheValue {
    switch priority {
    case .high: fixedPriorities[0]
    case .medium: fixedPriorities[1]
    case .low: fixedPriorities[2]
    case .none: fixedPriorities[3]
    case .other: Self.makePriority(priority, labels: labels)
    }
  }

  private static func makePriority(_ priority: Priority, labels: Labels) -> MustacheValue {
    var fields: Fields = [
      "label": .string(labels.priority(priority)),
      "level": .string(PageContext.level(priority)),
    ]
    if let number = priority.number {
      fields["number"] = .int(number)
    }
    return .computed(fields)
  }
}
