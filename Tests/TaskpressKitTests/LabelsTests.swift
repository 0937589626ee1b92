import Foundation
import Testing

@testable import TaskpressKit

@Suite struct LabelsTests {
  /// The labels of `locale` from a theme whose labels.json is `json`.
  static func labels(_ json: String, _ locale: String) throws -> (
    labels: Labels, warnings: [String]
  ) {
    let folder = try ThemeFolder(["labels.json": json])
    let theme = try Theme.load(overrides: folder.path)
    let locale = try #require(BuildOptions.Locale(rawValue: locale))
    let (labels, warnings) = try theme.labels(locale)
    return (labels, warnings.map(\.description))
  }

  /// The problems `labels.json` text `json` is rejected with, the folder's path as `THEME`.
  static func problems(_ json: String, _ locale: String = "en") throws -> [String] {
    let folder = try ThemeFolder(["labels.json": json])
    let theme = try Theme.load(overrides: folder.path)
    do {
      _ = try theme.labels(try #require(BuildOptions.Locale(rawValue: locale)))
      return []
    } catch let error as ThemeError {
      return error.problems.map { $0.replacingOccurrences(of: folder.path, with: "THEME") }
    }
  }

  @Test("every mistake in labels.json is reported in one run, with line, column and suggestion")
  func mistakes() throws {
    let json = """
      {
        "board": "Kanban",
        "en": {"priorty": "Urgency", "pageOf": "Page {curent} of {total}", "tasks": 3},
        "fr": "Tâches",
        "en_US": {}
      }
      """
    #expect(
      try Self.problems(json) == [
        #"THEME/labels.json:2:3: 'board' is a label, not a locale: put labels in the table of a locale, e.g. {"en": {"board": "Kanban"}}"#,
        "THEME/labels.json:3:10: unknown label 'priorty' in 'en'; did you mean 'priority'?",
        "THEME/labels.json:3:32: label 'pageOf' in 'en' has an unknown placeholder '{curent}'; did"
          + " you mean '{current}'? (its placeholders are '{current}', '{total}')",
        "THEME/labels.json:3:70: label 'tasks' in 'en' must be a string of text",
        #"THEME/labels.json:4:3: 'fr' must be an object of labels, e.g. {"en": {"board": "Kanban"}}"#,
        "THEME/labels.json:5:3: 'en_US' is not a locale: expected a language tag such as 'en', 'ja'"
          + " or 'de'",
      ])
  }

  @Test("labels.json that is not JSON, or not an object, says where")
  func notJSON() throws {
    #expect(
      try Self.problems("{\"en\": {\"board\": \"K\",}}") == [
        "THEME/labels.json:1:22: not valid JSON: expected a string key"
      ])
    #expect(
      try Self.problems("[1]") == [
        #"THEME/labels.json:1:1: expected an object of locales, e.g. {"en": {"board": "Kanban"}}"#
      ])
  }

  @Test("a locale without a table is an error naming the locales there are")
  func unknownLocale() throws {
    #expect(
      try Self.problems(#"{"de": {"board": "Tafel"}}"#, "fr") == [
        "no labels for the locale 'fr': the locales are 'en', 'ja' (built in) and 'de'"
          + #" (labels.json); add a "fr" table of labels to labels.json in the templates folder"#
      ])
  }

  @Test("a new locale comes from labels.json alone; a region falls back to its language")
  func newLocale() throws {
    let (labels, warnings) = try Self.labels(
      #"{"de": {"board": "Tafel", "countsSummary": "{total} insgesamt"}}"#, "de-CH")
    #expect(labels["board"] == "Tafel")
    #expect(labels["tasks"] == "Tasks")
    #expect(warnings.count == 2)
    #expect(
      warnings[0].hasSuffix("label 'countsSummary' in 'de' leaves out '{inProgress}', '{complete}'")
    )
    #expect(
      warnings[1].hasSuffix(
        "'de' has no text for \(Labels.keys.count - 2) of the \(Labels.keys.count) labels, shown in English: 'address', 'allPriorities', 'andMore', 'backHome', "
          + Labels.keys.filter {
            !["address", "allPriorities", "andMore", "backHome", "board", "countsSummary"]
              .contains($0)
          }
          .map { "'\($0)'" }.joined(separator: ", ")))
    // A locale taskpress has built in keeps its own words under the overrides, silently.
    let (japanese, none) = try Self.labels(#"{"ja": {"board": "かんばん"}}"#, "ja")
    #expect(japanese["board"] == "かんばん")
    #expect(japanese["complete"] == "完了")
    #expect(none.isEmpty)
  }

  @Test("labels carry their own word order: Japanese counts, pages and dates read naturally")
  func wordOrder() {
    let japanese = Labels.builtIn(.ja)
    #expect(
      japanese.format("countsSummary", ["total": "30", "inProgress": "21", "complete": "9"])
        == "合計 30件・進行中 21件・完了 9件")
    #expect(japanese.format("pageOf", ["current": "2", "total": "5"]) == "2 / 5 ページ")
    #expect(japanese.date(iso: "2026-01-09") == "2026年1月9日")
    #expect(japanese.priority(.other(7)) == "優先度 7")
    let english = Labels.builtIn(.en)
    #expect(
      english.format("countsSummary", ["total": "30", "inProgress": "21", "complete": "9"])
        == "30 total · 21 In Progress · 9 Complete")
    #expect(english.date(iso: "2026-01-09") == "2026-01-09")
  }

  @Test("every built-in table has every label, and only the placeholders its label has")
  func builtInTables() {
    for (locale, table) in Labels.builtInTables {
      #expect(table.keys.sorted() == Labels.keys, "\(locale)")
      for (key, text) in table {
        let used = Set(LabelTables.placeholders(in: text))
        #expect(used.isSubset(of: Set(Labels.placeholders[key] ?? [])), "\(locale) \(key)")
      }
    }
  }

  @Test("locales are BCP 47 language tags")
  func tags() {
    for tag in ["en", "ja", "de", "de-CH", "zh-Hant-TW", "gsw"] {
      #expect(BuildOptions.Locale(rawValue: tag)?.rawValue == tag)
    }
    for tag in ["", "e", "english", "en_US", "de-", "-de", "en-toolongpart", "日本"] {
      #expect(BuildOptions.Locale(rawValue: tag) == nil, "\(tag)")
    }
  }
}
