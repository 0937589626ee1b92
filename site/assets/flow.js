// flow.html and report.html: the days a to-do has been open (data-since) and whether it is
// overdue (data-due) as of the reader's day; without a script the pages show them as of the
// build. Days are calendar days, counted in UTC between the two dates.
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
  document.querySelectorAll("[data-due]").forEach(function (element) {
    var due = day(element.getAttribute("data-due"));
    if (!isNaN(due)) { element.hidden = !(due < today); }
  });
})();
