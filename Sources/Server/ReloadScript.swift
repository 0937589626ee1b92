import JSONEscaping

/// The small script that makes an open page reload after a rebuild, added to HTML responses as
/// they are sent (never to the files on disk).
///
/// It opens the event stream and receives `state` events, `{"generation": N, "error": ...}`:
/// an error shows an overlay over the last good page; a generation other than the one the page
/// was served at reloads the page; otherwise the overlay goes away.
public enum ReloadScript {
  /// The marker on the script's element, for finding it in tests.
  public static let marker = "data-taskpress-reload"

  /// The `<script>` element for a page served at `generation`, listening on `eventsPath`.
  public static func element(generation: Int, eventsPath: String) -> String {
    let path = jsonString(eventsPath)
    return """
      <script \(marker)>(function () {
        var served = \(generation), box = null;
        function show(message) {
          if (!box) {
            box = document.createElement("div");
            box.id = "taskpress-error";
            box.setAttribute("role", "alert");
            box.style.cssText = "position:fixed;inset:auto 0 0 0;z-index:2147483647;margin:0;" +
              "padding:1em 1.5em;background:#2b0b0b;color:#ffd9d9;border-top:4px solid #e5484d;" +
              "font:14px/1.5 ui-monospace,monospace;white-space:pre-wrap;max-height:60vh;overflow:auto";
            document.body.appendChild(box);
          }
          box.textContent = "taskpress: the rebuild failed; this is the last good page.\\n\\n" + message;
        }
        var events = new EventSource(\(path));
        events.addEventListener("state", function (event) {
          var state = JSON.parse(event.data);
          if (state.error) { show(state.error); return; }
          if (state.generation !== served) { location.reload(); return; }
          if (box) { box.remove(); box = null; }
        });
      })();</script>
      """
  }

  /// `html` with the element inserted before its last `</body>` (or at the end when it has none).
  public static func inject(into html: [UInt8], generation: Int, eventsPath: String) -> [UInt8] {
    let element = Array(element(generation: generation, eventsPath: eventsPath).utf8)
    guard let index = lastBodyClose(in: html) else { return html + element }
    return Array(html[..<index]) + element + Array(html[index...])
  }

  private static func lastBodyClose(in html: [UInt8]) -> Int? {
    let needle = Array("</body".utf8)
    var index = html.count - needle.count
    while index >= 0 {
      var matches = true
      for offset in 0..<needle.count {
        var byte = html[index + offset]
        if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { byte += 32 }
        if byte != needle[offset] {
          matches = false
          break
        }
      }
      if matches { return index }
      index -= 1
    }
    return nil
  }

  /// `text` as a JSON string literal, safe inside a `<script>` element.
  public static func jsonString(_ text: String) -> String {
    JSONText.quoted(text, .script)
  }
}
