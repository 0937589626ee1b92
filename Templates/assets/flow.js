// flow.html and report.html: the days a to-do has been open (data-since) and whether it is
// overdue (data-due) as of the reader's day, which the note of the day they are counted to
// (data-today) then names; without a script the pages show them as of the build, and the note
// names the build's day. Days are calendar days, counted in UTC between the two dates.
(function () {
  "use strict";
  var now = new Date();
  var today = Date.UTC(now.getFullYear(), now.getMonth(), now.getDate());
  function day(text) {
    var parts = /^(\d{4})-(\d{2})-(\d{2})/.exec(text || "");
    return parts ? Date.UTC(+parts[1], +parts[2] - 1, +parts[3]) : NaN;
  }
  document.querySelectorAll("[data-since]").forEach(function (element) {
    var since = day(element.getAttribute("data-since"));
    if (!isNaN(since)) {
      element.textContent = String(Math.max(0, Math.round((today - since) / 86400000)));
    }
  });
  var iso = new Date(today).toISOString().slice(0, 10);
  document.querySelectorAll("[data-today]").forEach(function (element) {
    var parts = iso.split("-");
    var names = { year: parts[0], month: String(+parts[1]), day: String(+parts[2]),
      mm: parts[1], dd: parts[2] };
    element.setAttribute("datetime", iso);
    element.textContent = (element.getAttribute("data-format") || "{year}-{mm}-{dd}")
      .replace(/\{(year|month|day|mm|dd)\}/g, function (all, name) { return names[name]; });
  });
  document.querySelectorAll("[data-due]").forEach(function (element) {
    var due = day(element.getAttribute("data-due"));
    if (!isNaN(due)) { element.hidden = !(due < today); }
  });
})();
