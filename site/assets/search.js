// Progressive enhancement for the contacts page: a search field that filters the list by name.
// Without JavaScript the page still works: every contact is listed, with letter links.
(function () {
  var host = document.getElementById("contact-search");
  if (!host) return;
  var label = document.createElement("label");
  label.textContent = host.getAttribute("data-label");
  var input = document.createElement("input");
  input.type = "search";
  input.id = "contact-search-input";
  input.autocomplete = "off";
  label.htmlFor = input.id;
  var status = document.createElement("p");
  status.setAttribute("role", "status");
  status.className = "empty";
  host.appendChild(label);
  host.appendChild(input);
  host.appendChild(status);
  var items = Array.prototype.slice.call(document.querySelectorAll("li[data-name]"));
  var sections = Array.prototype.slice.call(document.querySelectorAll("section.letter"));
  input.addEventListener("input", function () {
    var query = input.value.trim().toLocaleLowerCase();
    var shown = 0;
    items.forEach(function (item) {
      var match = item.getAttribute("data-name").toLocaleLowerCase().indexOf(query) !== -1;
      item.hidden = !match;
      if (match) shown += 1;
    });
    sections.forEach(function (section) {
      section.hidden = !section.querySelector("li[data-name]:not([hidden])");
    });
    status.textContent = shown === 0 ? host.getAttribute("data-empty") : "";
  });
})();
