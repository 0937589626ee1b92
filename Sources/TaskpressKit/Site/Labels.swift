/// The words the theme shows, in English and Japanese; a theme overrides them with `labels.json`.
public struct Labels: Sendable, Equatable {
  /// Label keys and texts; `{n}` in `priorityOther` stands for the priority's number.
  public var texts: [String: String]

  /// Creates labels from a table of texts.
  public init(texts: [String: String]) {
    self.texts = texts
  }

  /// The built-in labels of `locale`.
  public static func builtIn(_ locale: BuildOptions.Locale) -> Labels {
    switch locale {
    case .en: Labels(texts: english)
    case .ja: Labels(texts: japanese)
    }
  }

  /// The text for `key`, or the key itself when the table has none.
  public subscript(key: String) -> String {
    texts[key] ?? key
  }

  /// The label of a priority: High, Medium, Low, Priority 7, No priority.
  public func priority(_ priority: Priority) -> String {
    switch priority {
    case .high: self["high"]
    case .medium: self["medium"]
    case .low: self["low"]
    case .other(let value):
      self["priorityOther"].replacing("{n}", with: String(value))
    case .none: self["noPriority"]
    }
  }

  /// The label of a to-do's status.
  public func status(complete: Bool) -> String {
    complete ? self["complete"] : self["inProgress"]
  }

  static let keys = english.keys.sorted()

  static let english: [String: String] = [
    "siteTitle": "Task report",
    "tasks": "Tasks",
    "board": "Board",
    "possessions": "Possessions",
    "contacts": "Contacts",
    "high": "High",
    "medium": "Medium",
    "low": "Low",
    "priorityOther": "Priority {n}",
    "noPriority": "No priority",
    "priority": "Priority",
    "status": "Status",
    "complete": "Complete",
    "inProgress": "In Progress",
    "previous": "Previous",
    "next": "Next",
    "page": "Page",
    "pages": "Pages",
    "of": "of",
    "task": "Task",
    "photo": "Photo",
    "photoOf": "Photo of",
    "noPhoto": "No photo",
    "description": "Description",
    "name": "Name",
    "address": "Address",
    "phone": "Phone",
    "searchByName": "Search by name",
    "search": "Search",
    "noMatches": "No contact matches that name.",
    "notFound": "Page not found",
    "notFoundText": "There is no page at this address.",
    "backHome": "Back to the task list",
    "skipToContent": "Skip to content",
    "mainNavigation": "Main navigation",
    "summary": "Summary",
    "total": "total",
    "empty": "Nothing here yet.",
    "generated": "Generated",
    "data": "Data",
    "pagination": "Pagination",
  ]

  static let japanese: [String: String] = [
    "siteTitle": "タスク報告",
    "tasks": "タスク",
    "board": "ボード",
    "possessions": "持ち物",
    "contacts": "連絡先",
    "high": "高",
    "medium": "中",
    "low": "低",
    "priorityOther": "優先度 {n}",
    "noPriority": "優先度なし",
    "priority": "優先度",
    "status": "状態",
    "complete": "完了",
    "inProgress": "進行中",
    "previous": "前へ",
    "next": "次へ",
    "page": "ページ",
    "pages": "ページ",
    "of": "/",
    "task": "タスク",
    "photo": "写真",
    "photoOf": "写真:",
    "noPhoto": "写真なし",
    "description": "説明",
    "name": "名前",
    "address": "住所",
    "phone": "電話",
    "searchByName": "名前で検索",
    "search": "検索",
    "noMatches": "該当する連絡先はありません。",
    "notFound": "ページが見つかりません",
    "notFoundText": "このアドレスにページはありません。",
    "backHome": "タスク一覧に戻る",
    "skipToContent": "本文へ移動",
    "mainNavigation": "メインナビゲーション",
    "summary": "概要",
    "total": "合計",
    "empty": "まだ何もありません。",
    "generated": "生成日",
    "data": "データ",
    "pagination": "ページ送り",
  ]
}
