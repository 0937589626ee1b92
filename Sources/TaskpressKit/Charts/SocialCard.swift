import Mustache

/// The site's social card: a 1200 x 630 SVG of its summary (the site's title, the counts of open
/// and complete to-dos, a progress bar and the trend chart of the first page), which the build
/// renders to `cards/summary.png` with libvips and which `og:image` / `twitter:card` point at.
///
/// Written from whole numbers and texts alone, so the same summary gives the same bytes; its
/// texts are escaped, stripped of the characters XML cannot hold, and the title is shortened to
/// what fits. The fonts are named, not embedded: librsvg draws them with the machine's fonts
/// (DejaVu Sans on Debian, `fonts-dejavu-core`).
enum SocialCard {
  static let width = 1200
  static let height = 630
  /// The PNG's path in the site.
  static let path = "cards/summary.png"

  /// What the card shows.
  struct Summary: Equatable {
    var title: String
    var open: Int
    var complete: Int
    /// The trend's points, oldest first (the first page's, `PageContext.trendPoints`).
    var trend: [TrendPoint]
    /// Labels: "In Progress", "Complete", the progress summary line, the trend's title.
    var openLabel: String
    var completeLabel: String
    var progressSummary: String
    var trendTitle: String
  }

  /// The longest title shown whole; a longer one ends in an ellipsis.
  static let titleLimit = 32

  /// The card's SVG.
  static func svg(_ summary: Summary) -> String {
    let total = summary.open + summary.complete
    let percent = Chart.percent(summary.complete, of: total)
    let font = "font-family=\"DejaVu Sans, Liberation Sans, Arial, sans-serif\""
    var title = text(summary.title)
    if title.count > titleLimit { title = String(title.prefix(titleLimit - 1)) + "\u{2026}" }
    var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\""
    svg += " viewBox=\"0 0 \(width) \(height)\">"
    // The trend's lines in the colours of the counts, its values in the card's font.
    svg += "<style>.chart-in-progress{color:#f4a261}.chart-complete{color:#80ed99}"
    svg += ".chart-values{font-family:DejaVu Sans,Liberation Sans,Arial,sans-serif;color:#d9e2ec}"
    svg += ".chart-grid{color:#d9e2ec}</style>"
    svg += "<rect width=\"\(width)\" height=\"\(height)\" fill=\"#14213d\"/>"
    svg += "<rect width=\"\(width)\" height=\"12\" fill=\"#4ea8de\"/>"
    svg += "<text x=\"64\" y=\"128\" \(font) font-size=\"60\" font-weight=\"bold\""
    svg += " fill=\"#ffffff\">\(Escaping.html.escape(title))</text>"
    // The two counts, each above its label.
    for (index, (count, label, colour)) in [
      (summary.open, summary.openLabel, "#f4a261"),
      (summary.complete, summary.completeLabel, "#80ed99"),
    ].enumerated() {
      let y = 260 + index * 150
      svg += "<text x=\"64\" y=\"\(y)\" \(font) font-size=\"88\" font-weight=\"bold\""
      svg += " fill=\"\(colour)\">\(count)</text>"
      svg += "<text x=\"68\" y=\"\(y + 44)\" \(font) font-size=\"32\" fill=\"#d9e2ec\">"
      svg += "\(Escaping.html.escape(text(label)))</text>"
    }
    // The trend chart of the first page, in the card's colours.
    svg += Chart.trend(
      summary.trend, title: text(summary.trendTitle), description: text(summary.progressSummary),
      attributes: " x=\"520\" y=\"170\" width=\"620\" height=\"310\" color=\"#80ed99\"")
    // The progress bar and its line.
    let barWidth = width - 128
    let filled = total > 0 ? summary.complete * barWidth / total : 0
    svg +=
      "<rect x=\"64\" y=\"520\" width=\"\(barWidth)\" height=\"28\" rx=\"14\" fill=\"#33415c\"/>"
    if filled > 0 {
      svg +=
        "<rect x=\"64\" y=\"520\" width=\"\(filled)\" height=\"28\" rx=\"14\" fill=\"#80ed99\"/>"
    }
    svg += "<text x=\"64\" y=\"596\" \(font) font-size=\"30\" fill=\"#d9e2ec\">"
    svg += "\(Escaping.html.escape(text(summary.progressSummary)))</text>"
    svg += "<text x=\"\(width - 64)\" y=\"596\" \(font) font-size=\"30\" font-weight=\"bold\""
    svg += " text-anchor=\"end\" fill=\"#ffffff\">\(percent)%</text>"
    return svg + "</svg>"
  }

  /// `value` on one line, without the characters XML 1.0 cannot hold (C0 controls but tab) and
  /// with its line breaks and tabs as spaces.
  static func text(_ value: String) -> String {
    var result = String.UnicodeScalarView()
    for scalar in value.unicodeScalars {
      switch scalar.value {
      case 0x09, 0x0A, 0x0D: result.append(" ")
      case 0x00..<0x20, 0x7F, 0xFFFE, 0xFFFF: continue
      default: result.append(scalar)
      }
    }
    return String(result)
  }
}
