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
  label.htmlFor = input.id;
  var status = document.createElement("p");
  status.setAttribute("role", "status");
  status.className = "empty";
  host.appendChild(label);
  host.appendChild(input);
  host.appendChild(status);
  var items = Array.prototype.slice.call(document.querySelectorAll("li[data-name]"));
  var sections = Array.prototype.slice.call(document.querySelectorAll("section.letter"));
  // Names are matched without case or accents: "emile" finds "Émile" (NFKD, marks dropped).
  function fold(text) {
    return text.normalize("NFKD").replace(/\p{M}/gu, "").toLocaleLowerCase();
  }
  var names = items.map(function (item) {
    return fold(item.getAttribute("data-name"));
  });
  input.addEventListener("input", function () {
    var query = fold(input.value.trim());
    var shown = 0;
    items.forEach(function (item, index) {
      var match = names[index].indexOf(query) !== -1;
      item.hidden = !match;
      if (match) shown += 1;
    });
    sections.forEach(function (section) {
      section.hidden = !section.querySelector("li[data-name]:not([hidden])");
    });
    status.textContent = shown === 0 ? host.getAttribute("data-empty") : "";
  });
})();
