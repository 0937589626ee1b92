import Mustache

/// One build's counts of to-dos: a point of the trend chart.
public struct TrendPoint: Sendable, Equatable {
  /// The build's date (`2026-11-29`); nil when the build had none (no `SOURCE_DATE_EPOCH`).
  public var date: String?
  /// To-dos in progress.
  public var open: Int
  /// To-dos complete.
  public var complete: Int

  /// A point of the trend.
  /// The build's number in the recorded history, when it has one: the label of a point
  /// without a date.
  public var build: Int?

  public init(date: String?, open: Int, complete: Int, build: Int? = nil) {
    self.date = date
    self.build = build
    self.open = open
    self.complete = complete
  }
}

/// The charts of the front page as inline SVG: written from counts alone, in whole numbers, so
/// the same counts give the same bytes on every machine.
///
/// Each chart is an `<svg role="img">` with a `<title>` and a `<desc>` that says its numbers;
/// its shapes carry CSS classes (`chart-track`, `chart-fill`, `chart-in-progress`,
/// `chart-complete`, `chart-grid`, `chart-line`, `chart-point`) and fall back to
/// `currentColor`, so a theme colours them from its stylesheet, in dark mode and in print.
/// Texts are HTML-escaped; the charts hold no link and no script.
enum Chart {
  /// The width of every chart's coordinates.
  static let width = 1000

  /// A progress bar: `complete` of `total` filled.
  static func progress(complete: Int, total: Int, title: String, description: String) -> String {
    let filled = total > 0 ? min(width, max(0, complete) * width / total) : 0
    var svg = open("chart chart-progress", height: 24, stretch: true, title, description)
    svg += "<rect class=\"chart-track\" width=\"\(width)\" height=\"24\""
    svg += " fill=\"currentColor\" fill-opacity=\"0.15\"/>"
    svg += "<rect class=\"chart-fill\" width=\"\(filled)\" height=\"24\" fill=\"currentColor\"/>"
    return svg + "</svg>"
  }

  /// A stacked bar of `segments` (CSS class, count), scaled so that `scale` fills the width.
  static func bar(
    _ segments: [(kind: String, count: Int)], scale: Int, title: String, description: String
  ) -> String {
    var svg = open("chart chart-bar", height: 20, stretch: true, title, description)
    let scale = max(scale, 1)
    var sum = 0
    for (index, segment) in segments.enumerated() where segment.count > 0 {
      // From the running sums, so the segments meet and the longest bar ends at the width.
      let start = sum * width / scale
      sum += segment.count
      let end = min(sum, scale) * width / scale
      let opacity = index == 0 ? " fill-opacity=\"0.45\"" : ""
      svg += "<rect class=\"chart-\(segment.kind)\" x=\"\(start)\" width=\"\(end - start)\""
      svg += " height=\"20\" fill=\"currentColor\"\(opacity)/>"
    }
    return svg + "</svg>"
  }

  /// The height of the trend chart's coordinates, and the room around its plot.
  static let trendHeight = 300
  static let trendWidth = 600
  private static let margin = 16
  /// Room on the left of the trend's plot for its values (0 and the largest count).
  private static let valueGutter = 56

  /// A line of open and one of complete to-dos over `points` (oldest first), from zero to the
  /// largest count, with those two values on the left; one point is a dot of each.
  /// `attributes` go on its `<svg>` as they are (the social card places it with them).
  static func trend(
    _ points: [TrendPoint], title: String, description: String, attributes: String = ""
  ) -> String {
    let top = margin
    let bottom = trendHeight - margin
    let left = margin + valueGutter
    let right = trendWidth - margin
    let largest = max(1, points.map { max($0.open, $0.complete) }.max() ?? 1)
    func x(_ index: Int) -> Int {
      points.count < 2 ? (left + right) / 2 : left + index * (right - left) / (points.count - 1)
    }
    func y(_ value: Int) -> Int { bottom - max(0, value) * (bottom - top) / largest }
    var svg = open(
      "chart chart-trend", width: trendWidth, height: trendHeight, stretch: false, title,
      description, attributes: attributes)
    svg += "<g class=\"chart-grid\" stroke=\"currentColor\" stroke-opacity=\"0.3\">"
    svg += "<line x1=\"\(left)\" y1=\"\(top)\" x2=\"\(right)\" y2=\"\(top)\"/>"
    svg += "<line x1=\"\(left)\" y1=\"\(bottom)\" x2=\"\(right)\" y2=\"\(bottom)\"/></g>"
    // The values of the two grid lines.
    svg += "<g class=\"chart-values\" fill=\"currentColor\" font-size=\"22\" text-anchor=\"end\">"
    svg += "<text x=\"\(left - 12)\" y=\"\(top + 8)\">\(largest)</text>"
    svg += "<text x=\"\(left - 12)\" y=\"\(bottom + 8)\">0</text></g>"
    for (kind, value, opacity) in [
      ("in-progress", \TrendPoint.open, " fill-opacity=\"0.6\" stroke-opacity=\"0.6\""),
      ("complete", \TrendPoint.complete, ""),
    ] {
      svg += "<g class=\"chart-\(kind)\" fill=\"currentColor\" stroke=\"currentColor\"\(opacity)>"
      if points.count > 1 {
        let line = points.indices.map { "\(x($0)),\(y(points[$0][keyPath: value]))" }
        svg += "<polyline class=\"chart-line\" fill=\"none\" stroke-width=\"5\""
        svg += " points=\"\(line.joined(separator: " "))\"/>"
      }
      for index in points.indices {
        svg += "<circle class=\"chart-point\" cx=\"\(x(index))\""
        svg += " cy=\"\(y(points[index][keyPath: value]))\" r=\"10\"/>"
      }
      svg += "</g>"
    }
    return svg + "</svg>"
  }

  /// Lines over `count` points on the trend's coordinates (`trendWidth` by `trendHeight`), from
  /// zero to the largest value, with those two values on the left. Each series is a CSS class
  /// (`chart-scope`, `chart-done`, ...), its values (one a point), its opacity in tenths and
  /// whether it is
  /// drawn as steps (a value holds until the next point: the burnup's scope). One point is a
  /// dot of each series.
  static func lines(
    _ series: [(kind: String, values: [Int], opacity: Int, steps: Bool)], count: Int,
    title: String, description: String
  ) -> String {
    let (top, bottom, left, right) = plot
    let largest = max(1, series.flatMap(\.values).max() ?? 1)
    func x(_ index: Int) -> Int {
      count < 2 ? (left + right) / 2 : left + index * (right - left) / (count - 1)
    }
    func y(_ value: Int) -> Int { bottom - max(0, value) * (bottom - top) / largest }
    var svg = open(
      "chart chart-lines", width: trendWidth, height: trendHeight, stretch: false, title,
      description)
    svg += grid(top: top, bottom: bottom, left: left, right: right, largest: largest)
    for line in series {
      let opacity =
        line.opacity < 10
        ? " fill-opacity=\"0.\(line.opacity)\" stroke-opacity=\"0.\(line.opacity)\"" : ""
      svg +=
        "<g class=\"chart-\(line.kind)\" fill=\"currentColor\" stroke=\"currentColor\"\(opacity)>"
      let values = line.values.prefix(count)
      if values.count > 1 {
        var coordinates: [String] = []
        for (index, value) in values.enumerated() {
          if line.steps, index > 0 {
            coordinates.append("\(x(index)),\(y(values[values.startIndex + index - 1]))")
          }
          coordinates.append("\(x(index)),\(y(value))")
        }
        let dash = line.steps ? " stroke-dasharray=\"14 8\"" : ""
        svg += "<polyline class=\"chart-line\" fill=\"none\" stroke-width=\"5\"\(dash)"
        svg += " points=\"\(coordinates.joined(separator: " "))\"/>"
      } else if let value = values.first {
        svg += "<circle class=\"chart-point\" cx=\"\(x(0))\" cy=\"\(y(value))\" r=\"10\"/>"
      }
      svg += "</g>"
    }
    return svg + "</svg>"
  }

  /// Bands stacked from the bottom over `count` points (a cumulative flow diagram): each layer a
  /// CSS class, its values and its opacity in tenths; the top of the stack is the largest value.
  static func stacked(
    _ layers: [(kind: String, values: [Int], opacity: Int)], count: Int, title: String,
    description: String
  ) -> String {
    let (top, bottom, left, right) = plot
    var sums = Array(repeating: 0, count: count)
    var edges: [[Int]] = [sums]
    for layer in layers {
      for index in 0..<count {
        sums[index] += max(0, index < layer.values.count ? layer.values[index] : 0)
      }
      edges.append(sums)
    }
    let largest = max(1, sums.max() ?? 1)
    // One point is a band as wide as the plot.
    let xs: [Int] =
      count < 2
      ? [left, right] : (0..<count).map { left + $0 * (right - left) / (count - 1) }
    func column(_ index: Int) -> Int { count < 2 ? 0 : index }
    func y(_ value: Int) -> Int { bottom - value * (bottom - top) / largest }
    var svg = open(
      "chart chart-stacked", width: trendWidth, height: trendHeight, stretch: false, title,
      description)
    for (number, layer) in layers.enumerated() {
      let below = edges[number]
      let above = edges[number + 1]
      var coordinates = xs.indices.map { "\(xs[$0]),\(y(above[column($0)]))" }
      coordinates += xs.indices.reversed().map { "\(xs[$0]),\(y(below[column($0)]))" }
      svg += "<polygon class=\"chart-\(layer.kind)\" fill=\"currentColor\""
      svg += layer.opacity < 10 ? " fill-opacity=\"0.\(layer.opacity)\"" : ""
      svg += " points=\"\(coordinates.joined(separator: " "))\"/>"
    }
    svg += grid(top: top, bottom: bottom, left: left, right: right, largest: largest)
    return svg + "</svg>"
  }

  /// One column a value (a histogram, a count per week), from zero to the largest value, with
  /// those two values on the left; `marked` columns (the median's, say) get `chart-mark`.
  static func columns(
    _ values: [Int], kind: String, marked: Set<Int> = [], title: String, description: String
  ) -> String {
    let (top, bottom, left, right) = plot
    let largest = max(1, values.max() ?? 1)
    var svg = open(
      "chart chart-columns", width: trendWidth, height: trendHeight, stretch: false, title,
      description)
    svg += grid(top: top, bottom: bottom, left: left, right: right, largest: largest)
    let slot = values.isEmpty ? 0 : (right - left) / values.count
    let gap = slot / 5
    svg += "<g class=\"chart-\(kind)\" fill=\"currentColor\">"
    for (index, value) in values.enumerated() where value > 0 {
      let height = value * (bottom - top) / largest
      let mark = marked.contains(index) ? " class=\"chart-mark\"" : " fill-opacity=\"0.6\""
      svg += "<rect\(mark) x=\"\(left + index * slot + gap / 2)\" y=\"\(bottom - height)\""
      svg += " width=\"\(max(1, slot - gap))\" height=\"\(height)\"/>"
    }
    return svg + "</g></svg>"
  }

  /// The plot of the charts on the trend's coordinates: top, bottom, left and right.
  private static var plot: (Int, Int, Int, Int) {
    (margin, trendHeight - margin, margin + valueGutter, trendWidth - margin)
  }

  /// The two grid lines of a plot (zero and the largest value) and their values.
  private static func grid(top: Int, bottom: Int, left: Int, right: Int, largest: Int) -> String {
    var svg = "<g class=\"chart-grid\" stroke=\"currentColor\" stroke-opacity=\"0.3\">"
    svg += "<line x1=\"\(left)\" y1=\"\(top)\" x2=\"\(right)\" y2=\"\(top)\"/>"
    svg += "<line x1=\"\(left)\" y1=\"\(bottom)\" x2=\"\(right)\" y2=\"\(bottom)\"/></g>"
    svg += "<g class=\"chart-values\" fill=\"currentColor\" font-size=\"22\" text-anchor=\"end\">"
    svg += "<text x=\"\(left - 12)\" y=\"\(top + 8)\">\(largest)</text>"
    svg += "<text x=\"\(left - 12)\" y=\"\(bottom + 8)\">0</text></g>"
    return svg
  }

  /// The opening of a chart: its class, coordinates, role, title and description. A chart that
  /// stretches fills its box in both directions (bars: no text or circles to distort).
  private static func open(
    _ classes: String, width: Int = width, height: Int, stretch: Bool, _ title: String,
    _ description: String, attributes: String = ""
  ) -> String {
    let aspect = stretch ? " preserveAspectRatio=\"none\"" : ""
    return
      "<svg class=\"\(classes)\"\(attributes) role=\"img\" viewBox=\"0 0 \(width) \(height)\"\(aspect)"
      + " xmlns=\"http://www.w3.org/2000/svg\"><title>\(Escaping.html.escape(title))</title>"
      + "<desc>\(Escaping.html.escape(description))</desc>"
  }

  /// `part` of `whole` in whole percent, rounded down: 100 only when every to-do is complete.
  static func percent(_ part: Int, of whole: Int) -> Int {
    whole > 0 ? max(0, part) * 100 / whole : 0
  }
}
