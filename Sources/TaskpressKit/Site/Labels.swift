/// The words the theme shows, per locale (English and Japanese built in); a theme overrides
/// them, or adds a locale, with `labels.json`.
public struct Labels: Sendable, Equatable {
  /// Label keys and texts; a text may hold placeholders such as `{n}` (see `placeholders`).
  public var texts: [String: String]

  /// Creates labels from a table of texts.
  public init(texts: [String: String]) {
    self.texts = texts
  }

  /// The built-in labels of `locale`; English for a locale taskpress has no table of.
  public static func builtIn(_ locale: BuildOptions.Locale) -> Labels {
    Labels(texts: builtInTables[locale.rawValue] ?? english)
  }

  /// The built-in tables by locale.
  static let builtInTables: [String: [String: String]] = ["en": english, "ja": japanese]

  /// The text for `key`, or the key itself when the table has none.
  public subscript(key: String) -> String {
    texts[key] ?? key
  }

  /// The text of `key` with each `{name}` placeholder replaced by its value: a label carries
  /// its own word order (`{total} total` in English, `合計 {total}件` in Japanese).
  public func format(_ key: String, _ values: KeyValuePairs<String, String>) -> String {
    Self.fill(self[key], values)
  }

  /// `text` with each `{name}` of `values` replaced by its value, in one pass over the text: a
  /// value is never searched for placeholders itself, and no pattern matching runs (a gallery
  /// fills a label for each of its photos). A brace that starts no known placeholder stays.
  static func fill(_ text: String, _ values: KeyValuePairs<String, String>) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count + 16)
    var rest = text[...]
    while let open = rest.firstIndex(of: "{") {
      result += rest[..<open]
      let name = rest.index(after: open)
      if let close = rest[name...].firstIndex(of: "}"),
        let value = values.first(where: { $0.key == rest[name..<close] })?.value
      {
        result += value
        rest = rest[rest.index(after: close)...]
      } else {
        result += "{"
        rest = rest[name...]
      }
    }
    result += rest
    return result
  }

  /// The label of a priority: High, Medium, Low, Priority 7, No priority.
  public func priority(_ priority: Priority) -> String {
    if let number = priority.number, let label = texts[Self.priorityKey(number)] { return label }
    return switch priority {
    case .high: self["high"]
    case .medium: self["medium"]
    case .low: self["low"]
    case .other(let value): format("priorityOther", ["n": String(value)])
    case .none: self["noPriority"]
    }
  }

  /// The key of a level's own label, given by a source's value map (`"4:Someday"`).
  static func priorityKey(_ level: Int64) -> String { "priority.\(level)" }

  /// The label of a to-do's status.
  public func status(complete: Bool) -> String {
    complete ? self["complete"] : self["inProgress"]
  }

  /// A date (`2026-11-29`, as `SOURCE_DATE_EPOCH` gives it) as the locale writes it (the
  /// `date` label: `{year}`, `{month}`, `{day}`, and `{mm}`, `{dd}` with a leading zero).
  public func date(iso: String) -> String {
    let parts = iso.split(separator: "-")
    guard parts.count == 3, let month = Int(parts[1]), let day = Int(parts[2]) else { return iso }
    return format(
      "date",
      [
        "year": String(parts[0]), "month": String(month), "day": String(day),
        "mm": String(parts[1]), "dd": String(parts[2]),
      ])
  }

  /// The placeholders of the labels that have any; a label's text uses them in any order.
  static let placeholders: [String: [String]] = [
    "priorityOther": ["n"],
    "countsSummary": ["total", "inProgress", "complete"],
    "pageOf": ["current", "total"],
    "pageNumber": ["n"],
    "photoOf": ["name"],
    "buildNumber": ["n"],
    "changesCount": ["count"],
    "moreChanges": ["n"],
    "date": ["year", "month", "day", "mm", "dd"],
    "progressSummary": ["complete", "total", "percent"],
    "chartRow": ["priority", "inProgress", "complete"],
    "trendPoint": ["date", "inProgress", "complete"],
    "changeSinceLast": ["completed", "added", "before", "after"],
    "andMore": ["count"],
    "searchCount": ["count"],
    "monthTitle": ["month", "year"],
    "overdueCount": ["count"],
    "flowCycle": ["median", "p85", "count"],
    "flowLastWeek": ["count"],
    "flowOldest": ["days", "date"],
    "flowDaysTo": ["date"],
    "flowBurnupDescription": ["points", "scope", "done", "added", "removed"],
    "flowCumulativeDescription": ["points", "open", "complete"],
    "flowByPriorityDescription": ["points", "counts"],
    "flowThroughputDescription": ["weeks", "completed"],
    "flowDays": ["days"],
    "flowDaysRange": ["from", "to"],
    "flowDaysFrom": ["from"],
    "flowAsOf": ["date"],
  ]

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
    "photoOf": "Photo of {name}",
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
    "changes": "Changes",
    "latestChanges": "Latest changes",
    "feed": "Atom feed",
    "subscribe": "Subscribe",
    "calendar": "Calendar",
    "allPriorities": "All priorities",
    "weekdays": "Mon,Tue,Wed,Thu,Fri,Sat,Sun",
    "monthNames":
      "January,February,March,April,May,June,July,August,September,October,November,December",
    "monthTitle": "{month} {year}",
    "overdueCount": "{count} overdue",
    "noDueDates": "No open task has a due date.",
    "searchAnyStatus": "Any status",
    "searchAnyDue": "Any due date",
    "searchDated": "With a due date",
    "searchNoMatches": "Nothing matches.",
    "searchMore": "More results",
    "searchCount": "{count} shown",
    "subscribeTitle": "Due dates in your calendar app (iCalendar)",
    "noChanges": "No changes recorded yet: the next build that changes the data lists them here.",
    "buildNumber": "Build {n}",
    "timeline": "History",
    "timelineAdded": "Added",
    "timelineCompleted": "Completed",
    "timelineReopened": "Reopened",
    "timelinePriority": "Priority changed",
    "timelineText": "Text changed",
    "timelineRemoved": "Removed",
    "timelineDue": "Due date changed",
    "earlierBuilds": "Earlier builds",
    "noLongerListed": "no longer listed",
    "changesCount": "{count} changes",
    "changesCountOne": "1 change",
    "moreChanges": "and {n} more",
    "todoAdded": "Tasks added",
    "todoCompleted": "Tasks completed",
    "todoReopened": "Tasks reopened",
    "todoPriority": "Priority changed",
    "todoText": "Text changed",
    "todoDue": "Due date changed",
    "dueNone": "none",
    "todoRemoved": "Tasks removed",
    "possessionAdded": "Possessions added",
    "possessionPhoto": "Photo changed",
    "possessionName": "Possessions renamed",
    "possessionDescription": "Description changed",
    "possessionRemoved": "Possessions removed",
    "contactAdded": "Contacts added",
    "contactName": "Contacts renamed",
    "contactDetails": "Contact details changed",
    "contactRemoved": "Contacts removed",
    "total": "total",
    "empty": "Nothing here yet.",
    "generated": "Generated",
    "due": "Due",
    "overdue": "Overdue",
    "data": "Data",
    "pagination": "Pagination",
    "countsSummary": "{total} total · {inProgress} In Progress · {complete} Complete",
    "pageOf": "Page {current} of {total}",
    "pageNumber": "Page {n}",
    "date": "{year}-{mm}-{dd}",
    "progress": "Progress",
    "progressSummary": "{complete} of {total} complete ({percent}%)",
    "byPriority": "By priority and status",
    "chartRow": "{priority}: {inProgress} In Progress, {complete} Complete",
    "trend": "In Progress and Complete over the builds",
    "trendPoint": "{date}: {inProgress} In Progress, {complete} Complete",
    "thisBuild": "This build",
    "changeSinceLast":
      "{completed} completed, {added} added since the last build: {before}% → {after}% complete",
    "numbers": "The numbers",
    "andMore": "and {count} more",
    "otherPriorities": "Other priorities",
    "backToPossessions": "Back to the possessions",
    "backToContacts": "Back to the contacts",
    "buildDate": "Date",
    "flowCycle": "Median cycle time in days: {median} (85th percentile {p85}, {count} measured)",
    "flowCycleNone": "No cycle time measured yet",
    "flowLastWeek": "{count} completed last week",
    "flowOldest": "Oldest open to-do, days open: {days} (to {date})",
    "flowDaysTo": "Days open are counted to {date}.",
    "flow": "Flow",
    "flowBurnup": "Burnup: scope and done",
    "flowBurnupDescription":
      "{points} points; now {scope} in scope and {done} done; {added} added and {removed} removed in all",
    "flowScope": "Scope",
    "flowDone": "Done",
    "flowAdded": "Added",
    "flowRemoved": "Removed",
    "flowCumulative": "Cumulative flow",
    "flowCumulativeDescription":
      "{points} points; now {open} In Progress and {complete} Complete",
    "flowByPriority": "Cumulative flow by priority",
    "flowByPriorityDescription": "{points} points; now In Progress by priority: {counts}",
    "flowCycleTime": "Cycle time",
    "flowDays": "{days} d",
    "flowDaysRange": "{from}–{to} d",
    "flowDaysFrom": "{from}+ d",
    "flowCount": "To-dos",
    "flowMedian": "Median",
    "flowPercentile85": "85th percentile",
    "flowThroughput": "Throughput per week",
    "flowThroughputDescription": "{weeks} weeks, {completed} completed",
    "flowWeek": "Week",
    "flowCompleted": "Completed",
    "flowAging": "Oldest open to-dos",
    "flowSince": "Open since",
    "flowDaysOpen": "Days open",
    "flowAsOf": "The numbers as of {date}.",
    "flowNoAging": "No open to-do.",
    "flowNoWeeks": "No dated build yet.",
    "report": "Report",
    "reportDue": "Overdue and due next",
    "reportOldest": "Oldest open",
  ]

  static let japanese: [String: String] = [
    "siteTitle": "タスクレポート",
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
    "photoOf": "{name}の写真",
    "noPhoto": "写真なし",
    "description": "説明",
    "name": "名前",
    "address": "住所",
    "phone": "電話番号",
    "searchByName": "名前で検索",
    "search": "検索",
    "noMatches": "該当する連絡先はありません。",
    "notFound": "ページが見つかりません",
    "notFoundText": "お探しのページは見つかりませんでした。",
    "backHome": "タスク一覧に戻る",
    "skipToContent": "本文へ移動",
    "mainNavigation": "メインナビゲーション",
    "summary": "概要",
    "changes": "変更",
    "latestChanges": "最近の変更",
    "feed": "Atom フィード",
    "subscribe": "カレンダー登録",
    "calendar": "カレンダー",
    "allPriorities": "すべての優先度",
    "weekdays": "月,火,水,木,金,土,日",
    "monthNames": "1月,2月,3月,4月,5月,6月,7月,8月,9月,10月,11月,12月",
    "monthTitle": "{year}年{month}",
    "overdueCount": "期限切れ {count}件",
    "noDueDates": "期限のある未完了のタスクはありません。",
    "searchAnyStatus": "すべての状態",
    "searchAnyDue": "すべての期限",
    "searchDated": "期限あり",
    "searchNoMatches": "該当するものはありません。",
    "searchMore": "さらに表示",
    "searchCount": "{count}件を表示",
    "subscribeTitle": "期限をカレンダーアプリで見る (iCalendar)",
    "noChanges": "まだ変更の記録はありません。データが変わると次のビルドでここに載ります。",
    "buildNumber": "ビルド {n}",
    "timeline": "履歴",
    "timelineAdded": "追加",
    "timelineCompleted": "完了",
    "timelineReopened": "再開",
    "timelinePriority": "優先度を変更",
    "timelineText": "内容を変更",
    "timelineRemoved": "削除",
    "timelineDue": "期限を変更",
    "earlierBuilds": "以前のビルド",
    "noLongerListed": "一覧にはありません",
    "changesCount": "{count}件の変更",
    "changesCountOne": "1件の変更",
    "moreChanges": "ほか {n}件",
    "todoAdded": "追加されたタスク",
    "todoCompleted": "完了したタスク",
    "todoReopened": "再開したタスク",
    "todoPriority": "優先度の変更",
    "todoText": "テキストの変更",
    "todoDue": "期限の変更",
    "dueNone": "なし",
    "todoRemoved": "削除されたタスク",
    "possessionAdded": "追加された持ち物",
    "possessionPhoto": "写真の変更",
    "possessionName": "名前の変わった持ち物",
    "possessionDescription": "説明の変更",
    "possessionRemoved": "削除された持ち物",
    "contactAdded": "追加された連絡先",
    "contactName": "名前の変わった連絡先",
    "contactDetails": "住所・電話番号の変更",
    "contactRemoved": "削除された連絡先",
    "total": "合計",
    "empty": "まだ何もありません。",
    "generated": "生成日",
    "due": "期限",
    "overdue": "期限切れ",
    "data": "データ",
    "pagination": "ページ送り",
    "countsSummary": "合計 {total}件・進行中 {inProgress}件・完了 {complete}件",
    "pageOf": "{current} / {total} ページ",
    "pageNumber": "{n}ページ目",
    "date": "{year}年{month}月{day}日",
    "progress": "進捗",
    "progressSummary": "{total}件中 {complete}件完了（{percent}%）",
    "byPriority": "優先度と状態別",
    "chartRow": "{priority}: 進行中 {inProgress}件、完了 {complete}件",
    "trend": "ビルドごとの進行中と完了",
    "trendPoint": "{date}: 進行中 {inProgress}件、完了 {complete}件",
    "thisBuild": "今回のビルド",
    "changeSinceLast": "前回のビルドから 完了 {completed}件、追加 {added}件：完了率 {before}% → {after}%",
    "numbers": "数値",
    "andMore": "ほか {count}件",
    "otherPriorities": "その他の優先度",
    "backToPossessions": "持ち物一覧に戻る",
    "backToContacts": "連絡先一覧に戻る",
    "buildDate": "日付",
    "flowCycle": "サイクルタイムの中央値 {median}日（85パーセンタイル {p85}日、{count}件）",
    "flowCycleNone": "サイクルタイムはまだありません",
    "flowLastWeek": "先週の完了 {count}件",
    "flowOldest": "最も古い未完了：{days}日（{date}まで）",
    "flowDaysTo": "経過日数は{date}までの日数です。",
    "flow": "フロー",
    "flowBurnup": "バーンアップ：スコープと完了",
    "flowBurnupDescription":
      "{points}点。現在スコープ {scope}件、完了 {done}件。追加 {added}件、削除 {removed}件（合計）",
    "flowScope": "スコープ",
    "flowDone": "完了",
    "flowAdded": "追加",
    "flowRemoved": "削除",
    "flowCumulative": "累積フロー",
    "flowCumulativeDescription": "{points}点。現在 進行中 {open}件、完了 {complete}件",
    "flowByPriority": "優先度別の累積フロー",
    "flowByPriorityDescription": "{points}点。現在の優先度別の進行中：{counts}",
    "flowCycleTime": "サイクルタイム",
    "flowDays": "{days}日",
    "flowDaysRange": "{from}〜{to}日",
    "flowDaysFrom": "{from}日以上",
    "flowCount": "件数",
    "flowMedian": "中央値",
    "flowPercentile85": "85パーセンタイル",
    "flowThroughput": "週ごとのスループット",
    "flowThroughputDescription": "{weeks}週、完了 {completed}件",
    "flowWeek": "週",
    "flowCompleted": "完了",
    "flowAging": "最も古い未完了のタスク",
    "flowSince": "開始",
    "flowDaysOpen": "経過日数",
    "flowAsOf": "{date} 時点の数値です。",
    "flowNoAging": "未完了のタスクはありません。",
    "flowNoWeeks": "日付のあるビルドはまだありません。",
    "report": "レポート",
    "reportDue": "期限切れと期限の近いもの",
    "reportOldest": "最も古い未完了",
  ]
}
