"""The stylesheet and script inlined into every HTML report (no external files).

The script never inserts markup built from strings: it reorders and hides
existing rows and sets ``textContent`` only, so data shown in the page can
never become code. A cell's sort key is its ``data-v`` attribute, its text
when it has none, or, in a column whose header has a ``data-key``
(:mod:`.per_query`), the exact value in the page's JSON block. It reads two
optional URL parameters, ``sort``
(a 0-based column of the per-query table, ``-`` in front for descending)
and ``filter`` (text a query id must contain), so a view can be linked.
"""
from __future__ import annotations

__all__ = ["CSS", "SCRIPT"]

CSS = """
:root { --fg: #1d232a; --muted: #5f6b76; --line: #d7dde3; --head: #f2f5f8; --up: #1f6fb2; --down: #c0392b; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--fg); margin: 0; padding: 0 2rem 4rem; max-width: 1920px; }
header { border-bottom: 1px solid var(--line); margin-bottom: 1rem; }
h1 { font-size: 1.5rem; margin: 1.2rem 0 .4rem; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 2rem 0 .6rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
h4 { font-size: .95rem; margin: 1rem 0 .3rem; }
nav a { margin-right: 1rem; }
.muted, .note { color: var(--muted); }
.note { font-size: .9rem; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .5rem 0 1rem; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: .4rem 0 1rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: .25rem .55rem; text-align: right; vertical-align: top; }
th { background: var(--head); font-weight: 600; }
th.text, td.text { text-align: left; overflow-wrap: anywhere; max-width: 28rem; }
td:not(.text) { white-space: nowrap; }
td.run { overflow-wrap: break-word; }
table.sortable th { cursor: pointer; user-select: none; white-space: nowrap; }
table.sortable th::after { content: " \\2195"; color: #9aa5b1; font-size: .8em; }
table.sortable th[aria-sort="ascending"]::after { content: " \\25B2"; color: var(--fg); }
table.sortable th[aria-sort="descending"]::after { content: " \\25BC"; color: var(--fg); }
th .sys { display: block; font-weight: 400; color: var(--muted); }
td.best { font-weight: 700; }
td.up { color: var(--up); }
td.down { color: var(--down); }
td.sig::after { content: "*"; }
#per-query td:first-child { text-align: left; white-space: normal; overflow-wrap: anywhere; max-width: 28rem;
                            font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
#per-query .u { color: var(--up); }
#per-query .d { color: var(--down); }
tr.base td { background: #fafbfc; }
.scroll { overflow-x: auto; max-width: 100%; }
.plots { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 30rem), 1fr)); gap: 1rem; }
figure { margin: 0; border: 1px solid var(--line); padding: .4rem; background: #fff; }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: .85rem; margin-top: .2rem; overflow-wrap: anywhere; }
.filter { margin: .4rem 0; }
.filter input { font: inherit; padding: .25rem .4rem; width: 18rem; max-width: 100%; }
details.explain { border: 1px solid var(--line); border-radius: 4px; margin: .35rem 0; padding: .2rem .6rem; }
details.explain > summary { cursor: pointer; padding: .2rem 0; }
details.explain[open] > summary { border-bottom: 1px solid var(--line); margin-bottom: .4rem; }
details.explain:target { outline: 2px solid var(--up); }
pre.formula { background: #f7f9fb; border: 1px solid var(--line); padding: .4rem .6rem;
              white-space: pre-wrap; overflow-wrap: anywhere; margin: .3rem 0; }
table.ranks { font-size: .85rem; display: block; overflow-x: auto; max-width: 100%; }
table.ranks:not(.ideal) td:nth-child(2), table.ranks:not(.ideal) th:nth-child(2) { text-align: left; overflow-wrap: anywhere; }
code, .qid { font-family: ui-monospace, "DejaVu Sans Mono", monospace; overflow-wrap: anywhere; }
"""

SCRIPT = r"""
(function () {
  "use strict";
  function dataBlock() {
    var block = document.getElementById("rankmeter-data");
    return block ? JSON.parse(block.textContent) : null;
  }
  // Per column, the exact values of a header's data-key ("m s", "m s b": system s minus b), by row;
  // "order": the rows' own order (the queries' natural order, q2 before q10); null where the column's
  // cells carry their own key.
  function columnKeys(table, data) {
    var heads = table.tHead.rows[table.tHead.rows.length - 1].cells;
    var rows = table.tBodies[0].rows.length;
    return Array.prototype.map.call(heads, function (th) {
      var key = th.getAttribute("data-key");
      if (key === "order") return Array.from({length: rows}, function (_, i) { return i; });
      if (!key || !data) return null;
      var at = key.split(" ").map(Number), measure = data.per_query[data.measures[at[0]]];
      var values = measure[data.systems[at[1]]];
      if (at.length === 2) return values;
      var base = measure[data.systems[at[2]]];
      return values.map(function (v, i) { return v === null || base[i] === null ? null : v - base[i]; });
    });
  }
  function cellValue(table, row, col) {
    var keys = table.rmKeys && table.rmKeys[col];
    if (keys) return keys[row.rmIndex];
    var cell = row.cells[col];
    if (!cell) return null;
    if (cell.hasAttribute("data-v")) {
      var raw = cell.getAttribute("data-v");
      return raw === "" ? null : Number(raw);
    }
    return cell.textContent;
  }
  function compare(a, b) {
    if (a === null || b === null) return a === b ? 0 : (a === null ? 1 : -1);
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a).localeCompare(String(b), undefined, {numeric: true});
  }
  function sortTable(table, col, descending) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (row, i) { return {row: row, v: cellValue(table, row, col), i: i}; });
    keyed.sort(function (x, y) {
      var missing = (x.v === null) - (y.v === null);
      if (missing) return missing;            // rows without a value stay last either way
      var c = compare(x.v, y.v);
      return (descending ? -c : c) || x.i - y.i;
    });
    keyed.forEach(function (k) { body.appendChild(k.row); });
    var heads = table.tHead.rows[table.tHead.rows.length - 1].cells;
    for (var h = 0; h < heads.length; h++) {
      heads[h].setAttribute("aria-sort", h === col ? (descending ? "descending" : "ascending") : "none");
    }
  }
  function makeSortable(table, data) {
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row, i) { row.rmIndex = i; });
    table.rmKeys = columnKeys(table, data);
    var heads = table.tHead.rows[table.tHead.rows.length - 1].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      th.setAttribute("aria-sort", "none");
      th.setAttribute("title", "click to sort");
      th.addEventListener("click", function () {
        sortTable(table, col, th.getAttribute("aria-sort") === "ascending");
      });
    });
  }
  function applyFilter(text) {
    var needle = text.trim().toLowerCase();
    var table = document.getElementById("per-query");
    var shown = 0, total = 0;
    if (table) {
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var hit = !needle || (row.getAttribute("data-q") || "").toLowerCase().indexOf(needle) >= 0;
        row.hidden = !hit;
        total += 1; shown += hit ? 1 : 0;
      });
    }
    Array.prototype.forEach.call(document.querySelectorAll("details.explain"), function (d) {
      d.hidden = !!needle && (d.getAttribute("data-q") || "").toLowerCase().indexOf(needle) < 0;
    });
    var count = document.getElementById("filter-count");
    if (count) count.textContent = shown + " of " + total + " queries shown";
  }
  function openTarget() {
    var id;
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }  // a malformed fragment
    var el = id && document.getElementById(id);
    if (el && el.tagName === "DETAILS") el.open = true;
  }
  var data = dataBlock();
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    makeSortable(table, data);
  });
  var box = document.getElementById("filter");
  if (box) box.addEventListener("input", function () { applyFilter(box.value); });
  var params = new URLSearchParams(location.search);
  if (box && params.has("filter")) { box.value = params.get("filter"); }
  applyFilter(box ? box.value : "");
  var sort = params.get("sort"), table = document.getElementById("per-query");
  if (sort && table && /^-?\d+$/.test(sort)) {
    var col = Math.abs(parseInt(sort, 10));
    if (col < table.tHead.rows[0].cells.length) sortTable(table, col, sort.charAt(0) === "-");
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  document.documentElement.setAttribute("data-ready", "1");
})();
"""
