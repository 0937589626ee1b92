#!/usr/bin/env node
// Runs the shipped site search (assets/site-search.js of a built site) on that site's index
// in search/, without a browser: the same script and shard files a page loads.
//
// Usage: node Scripts/search-node.js SITE < queries.json
//   queries.json: [{"query": "tax", "priority": "", "status": "", "due": "", "today": "",
//                   "limit": 20, "budget": 307200}, ...] (all but query optional)
// Prints, per query, {"results": [["t", pk], ["p", id], ...], "done": bool, "bytes": n}:
// `bytes` is the size on disk of index.js and of every shard file the query read.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const site = process.argv[2];
if (!site) {
  process.stderr.write("usage: node Scripts/search-node.js SITE < queries.json\n");
  process.exit(2);
}
const context = { console, atob };
context.globalThis = context;
vm.createContext(context);
vm.runInContext(fs.readFileSync(path.join(site, "assets", "site-search.js"), "utf8"), context);
const api = context.taskpressSearch;

const queries = JSON.parse(fs.readFileSync(0, "utf8"));
const output = [];
for (const q of queries) {
  let read = [];
  const engine = new api.Engine((name, then) => {
    const file = path.join(site, "search", name + ".js");
    read.push(fs.statSync(file).size);
    vm.runInContext(fs.readFileSync(file, "utf8"), context);
    then();
  });
  api.index = (index) => engine.setIndex(index);
  api.shard = (name, rows) => engine.setShard(name, rows);
  const indexFile = path.join(site, "search", "index.js");
  vm.runInContext(fs.readFileSync(indexFile, "utf8"), context);
  const filters = {
    priority: q.priority || "", status: q.status || "", due: q.due || "", today: q.today || "",
  };
  let answer = null;
  engine.search(q.query, filters, q.limit || 20, q.budget || 300 * 1024, (results, done) => {
    answer = { results: results.map((r) => [r.kind, r.row[0]]), done };
  });
  answer.bytes = fs.statSync(indexFile).size + read.reduce((a, b) => a + b, 0);
  answer.shards = read.length;
  output.push(answer);
}
process.stdout.write(JSON.stringify(output) + "\n");
