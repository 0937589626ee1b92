// The site-wide search (Docs/search.md): a field in the header of every page, made here, so
// that without JavaScript there is no field (the lists still work). The index is in search/:
// index.js (each shard's rows and a bitmap of the character pairs in them) and one script per
// shard, loaded as scripts (not by fetch, which file:// does not allow), only those whose
// bitmap has every pair of the query, in order, until enough results are shown or about
// 300 KB are read; "More results" reads on.
(function (root) {
  "use strict";
  var BITS = 4096;
  var PAGE = 20;
  var BUDGET = 300 * 1024;

  // Text as the index compares it: NFKD, marks dropped, lowercased, final sigma as sigma.
  function fold(text) {
    return String(text).normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/\u03c2/g, "\u03c3");
  }

  // The bit of a pair of folded characters (SearchIndex.pairBit).
  function pairBit(first, second) {
    var hash = (Math.imul(first, 0x9e3779b1) ^ Math.imul(second, 0x85ebca6b)) >>> 0;
    hash = (hash ^ (hash >>> 15)) >>> 0;
    hash = Math.imul(hash, 0x2c1b3c6d) >>> 0;
    hash = (hash ^ (hash >>> 12)) >>> 0;
    return hash & (BITS - 1);
  }

  function pairBits(folded) {
    var points = Array.from(folded, function (c) { return c.codePointAt(0); });
    var bits = [];
    for (var i = 1; i < points.length; i++) bits.push(pairBit(points[i - 1], points[i]));
    return bits;
  }

  function decode(base64) {
    var text = atob(base64);
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  }

  // Roughly the UTF-8 bytes of a shard's rows (file:// gives no sizes).
  function size(rows) {
    var total = 0;
    rows.forEach(function (row) {
      row.forEach(function (value) {
        var text = String(value);
        total += text.length + 4;
        for (var i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) total += 2;
      });
    });
    return total;
  }

  // The engine: the shards' data, however they are loaded (scripts in a page, files in node).
  function Engine(load) {
    this.load = load;
    this.index = null;
    this.shards = {};
    this.bytes = 0;
    this.last = 0;
    this.searches = 0;
  }
  Engine.prototype.setIndex = function (index) {
    this.index = index;
    this.bytes += JSON.stringify(index).length;
    index.shards.forEach(function (entry) { entry.bitmap = decode(entry[2]); });
  };
  Engine.prototype.setShard = function (name, rows) {
    this.shards[name] = rows.map(function (row) {
      var text = name.charAt(0) === "p" ? row[1] + "\n" + row[2] : row[1];
      return { row: row, folded: fold(text) };
    });
    this.last = size(rows);
    this.bytes += this.last;
  };
  // A search: query and filters ({priority, status, due, today}); `report` is called with the
  // results and whether every candidate shard was read, once the first `limit` results are
  // found, the candidates are read, or reading the next shard (as large as the last one) would
  // take the bytes this search loaded (the index too, for the first) past `budget`.
  Engine.prototype.search = function (query, filters, limit, budget, report) {
    var engine = this;
    var folded = fold(query.trim());
    var bits = pairBits(folded);
    var filtered = filters.priority !== "" || filters.status !== "" || filters.due !== "";
    var candidates = this.index.shards.filter(function (entry) {
      if (filtered && entry[0].charAt(0) !== "t") return false;
      return bits.every(function (bit) { return (entry.bitmap[bit >> 3] >> (bit & 7)) & 1; });
    });
    var results = [];
    var start = this.searches++ === 0 ? 0 : this.bytes;
    var read = 0;
    var next = 0;
    function matches(kind, item) {
      if (item.folded.indexOf(folded) === -1) return false;
      if (kind !== "t") return true;
      var row = item.row;
      if (filters.priority !== "" && String(row[2]) !== filters.priority) return false;
      if (filters.status !== "" && String(row[3]) !== filters.status) return false;
      if (filters.due === "dated" && row[4] === "") return false;
      if (filters.due === "overdue" && (row[4] === "" || row[3] === 1 || row[4] >= filters.today))
        return false;
      return true;
    }
    function step() {
      while (next < candidates.length && results.length < limit) {
        var name = candidates[next][0];
        var rows = engine.shards[name];
        if (!rows) {
          if (read > 0 && engine.bytes - start + engine.last > budget) break;
          read += 1;
          engine.load(name, step);
          return;
        }
        next += 1;
        var kind = name.charAt(0);
        for (var i = 0; i < rows.length && results.length < limit; i++) {
          if (matches(kind, rows[i])) results.push({ kind: kind, row: rows[i].row });
        }
      }
      report(results, next >= candidates.length && results.length < limit);
    }
    step();
  };

  root.taskpressSearch = root.taskpressSearch || {};
  var api = root.taskpressSearch;
  api.fold = fold;
  api.pairBit = pairBit;
  api.Engine = Engine;
  if (typeof document === "undefined") return;

  var host = document.getElementById("site-search");
  if (!host) return;
  var base = host.getAttribute("data-index");
  var waiting = {};
  var engine = new Engine(function (name, then) {
    if (waiting[name]) { waiting[name].push(then); return; }
    waiting[name] = [then];
    var script = document.createElement("script");
    script.src = base + name + ".js";
    script.onerror = function () { status.textContent = base + name + ".js ?"; };
    document.head.appendChild(script);
  });
  api.index = function (index) {
    engine.setIndex(index);
    ready();
  };
  api.shard = function (name, rows) {
    engine.setShard(name, rows);
    var then = waiting[name] || [];
    delete waiting[name];
    then.forEach(function (f) { f(); });
  };

  var form = document.createElement("form");
  form.setAttribute("role", "search");
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  var label = document.createElement("label");
  label.textContent = host.getAttribute("data-label");
  var input = document.createElement("input");
  input.type = "search";
  input.id = "site-search-input";
  label.htmlFor = input.id;
  form.appendChild(label);
  form.appendChild(input);
  var filters = document.createElement("span");
  filters.className = "site-search-filters";
  filters.hidden = true;
  form.appendChild(filters);
  var status = document.createElement("p");
  status.className = "site-search-status";
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  var list = document.createElement("ul");
  list.className = "site-search-results";
  var more = document.createElement("button");
  more.type = "button";
  more.hidden = true;
  host.appendChild(form);
  host.appendChild(status);
  host.appendChild(list);
  host.appendChild(more);
  host.hidden = false;

  var selects = {};
  function select(key, options) {
    var element = document.createElement("select");
    element.setAttribute("aria-label", options[0][1]);
    options.forEach(function (option) {
      var item = document.createElement("option");
      item.value = option[0];
      item.textContent = option[1];
      element.appendChild(item);
    });
    element.addEventListener("change", run);
    filters.appendChild(element);
    selects[key] = element;
  }

  var labels = {};
  var requested = false;
  var pending = false;
  function request() {
    if (requested) return;
    requested = true;
    var script = document.createElement("script");
    script.src = base + "index.js";
    document.head.appendChild(script);
  }
  function ready() {
    labels = engine.index.labels;
    var hasTodos = engine.index.shards.some(function (entry) { return entry[0].charAt(0) === "t"; });
    if (hasTodos) {
      select("priority", [["", labels.allPriorities]].concat(engine.index.priorities.map(function (p, i) {
        return [String(i), p[1]];
      })));
      select("status", [["", labels.searchAnyStatus], ["0", labels.inProgress], ["1", labels.complete]]);
      select("due", [["", labels.searchAnyDue], ["dated", labels.searchDated], ["overdue", labels.overdue]]);
      filters.hidden = false;
    }
    more.textContent = labels.searchMore;
    if (pending) run();
  }
  input.addEventListener("focus", request);
  input.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      input.value = "";
      run();
    }
  });

  function today() {
    var now = new Date();
    function two(n) { return (n < 10 ? "0" : "") + n; }
    return now.getFullYear() + "-" + two(now.getMonth() + 1) + "-" + two(now.getDate());
  }

  function link(kind, id) {
    var folder = kind === "t" ? "todos/" : kind === "p" ? "possessions/" : "contacts/";
    return base.slice(0, base.length - "search/".length) + folder + id + (engine.index.pretty ? "/" : ".html");
  }

  function item(result) {
    var row = result.row;
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.href = link(result.kind, row[0]);
    a.textContent = row[1] === "" ? "#" + row[0] : row[1];
    if (result.kind === "t") {
      var priority = engine.index.priorities[row[2]] || ["none", ""];
      li.className = "todo priority-" + priority[0] + (row[3] === 1 ? " is-complete" : "");
      var badge = document.createElement("span");
      badge.className = "badge";
      badge.textContent = priority[1];
      var state = document.createElement("span");
      state.className = "search-status";
      state.textContent = row[3] === 1 ? labels.complete : labels.inProgress;
      li.appendChild(badge);
      li.appendChild(document.createTextNode(" "));
      li.appendChild(a);
      li.appendChild(document.createTextNode(" "));
      li.appendChild(state);
      if (row[4] !== "") {
        var due = document.createElement("span");
        due.className = "due";
        due.textContent = labels.due + " " + row[4];
        li.appendChild(document.createTextNode(" "));
        li.appendChild(due);
      }
    } else {
      var kind = document.createElement("span");
      kind.className = "search-kind";
      kind.textContent = result.kind === "p" ? labels.possessions : labels.contacts;
      li.appendChild(kind);
      li.appendChild(document.createTextNode(" "));
      li.appendChild(a);
    }
    return li;
  }

  var limit = PAGE;
  var budget = BUDGET;  // per search, and per press of "More results"
  var generation = 0;
  function current() {
    return {
      priority: selects.priority ? selects.priority.value : "",
      status: selects.status ? selects.status.value : "",
      due: selects.due ? selects.due.value : "",
      today: today(),
    };
  }
  function show(query, filterValues) {
    var mine = ++generation;
    engine.search(query, filterValues, limit, budget, function (results, done) {
      if (mine !== generation) return;
      list.textContent = "";
      results.forEach(function (result) { list.appendChild(item(result)); });
      status.textContent = results.length === 0 && done
        ? labels.searchNoMatches
        : labels.searchCount.replace("{count}", String(results.length));
      more.hidden = done;
    });
  }
  function run() {
    limit = PAGE;
    budget = BUDGET;
    var filterValues = current();
    var query = input.value;
    var empty = query.trim() === "" && !filterValues.priority && !filterValues.status && !filterValues.due;
    if (empty) {
      generation += 1;
      list.textContent = "";
      status.textContent = "";
      more.hidden = true;
      return;
    }
    if (!engine.index) {
      pending = true;
      request();
      return;
    }
    show(query, filterValues);
  }
  more.addEventListener("click", function () {
    limit += PAGE;
    show(input.value, current());
  });
  // A search once typing pauses (120 ms), so that each keystroke does not load shards.
  var timer = null;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(run, 120);
  });
})(typeof window !== "undefined" ? window : globalThis);
