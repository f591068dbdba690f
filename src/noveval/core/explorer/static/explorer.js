// Instance explorer: a static page that browses a study's rows from data/*.js files.
// Opened from the file system (file://): no server, no network, no framework.
// Every data value reaches the page through textContent / createTextNode only.
(() => {  // one scope: nothing but explorerLoad and explorer is global
"use strict";

// ---- Data files -----------------------------------------------------------------------------
// Each data file is a script calling explorerLoad(name, payload); files load on demand.

const loaded = new Map();   // name -> payload
const pending = new Map();  // name -> {resolve, reject}
const loading = new Map();  // name -> Promise

function explorerLoad(name, payload) {
  loaded.set(name, payload);
  const waiter = pending.get(name);
  if (waiter) { pending.delete(name); waiter.resolve(payload); }
}
window.explorerLoad = explorerLoad;

function loadData(name) {
  if (loaded.has(name)) return Promise.resolve(loaded.get(name));
  if (loading.has(name)) return loading.get(name);
  const promise = new Promise((resolve, reject) => {
    pending.set(name, {resolve, reject});
    const script = document.createElement("script");
    script.src = "data/" + encodeURIComponent(name) + ".js";
    script.onload = () => {  // runs after the file's code: it must have called explorerLoad
      script.remove();
      if (pending.has(name)) { pending.delete(name); reject(new Error(`data/${name}.js did not call explorerLoad("${name}", …)`)); }
    };
    script.onerror = () => {
      script.remove(); pending.delete(name);
      reject(new Error(`data/${name}.js could not be loaded (missing or unreadable)`));
    };
    document.head.appendChild(script);
  });
  loading.set(name, promise);
  promise.catch(() => loading.delete(name));  // a failed file may be retried later
  return promise;
}

// Loads several files, reporting "loading 3 of 19" while it goes.
async function loadAll(names) {
  const todo = names.filter((n) => !loaded.has(n));
  let done = 0;
  if (todo.length) progress(`loading 0 of ${todo.length}`);
  const payloads = await Promise.all(names.map((n) => loadData(n).then((p) => {
    if (todo.includes(n)) { done += 1; progress(`loading ${done} of ${todo.length}`); }
    return p;
  })));
  progress("");
  return payloads;
}

// ---- Manifest and rows ----------------------------------------------------------------------

let M = null;                // the manifest
const col = {};              // column name -> {name, label, kind, i (position in a row)}
const dictIndex = {};        // key column -> Map(value -> index)
const PAGE = 100, COMPARE_PAGE = 50, SELECT_LIMIT = 500, MAX_TEXT_FILES = 60;

function setup(manifest) {
  M = manifest;
  M.columns.forEach((c, i) => { col[c.name] = Object.assign({label: c.name}, c, {i}); });
  for (const [name, values] of Object.entries(M.dictionaries || {})) {
    dictIndex[name] = new Map(values.map((v, k) => [String(v), k]));
  }
}
const cols = (kind) => M.columns.filter((c) => c.kind === kind).map((c) => col[c.name]);
const idCol = () => cols("id")[0];
const textsCol = () => cols("texts")[0];

// The decoded value of a row's column (a key stored as a dictionary index becomes its string).
function value(row, name) {
  const v = row[col[name].i];
  const dict = M.dictionaries && M.dictionaries[name];
  return dict && typeof v === "number" ? dict[v] : v;
}
const isTrue = (v) => v === 1 || v === true;
const isNum = (v) => typeof v === "number" && !Number.isNaN(v);

function chunkNames(filter) {
  const wanted = filter && filter.eq && filter.eq[M.chunk_column];
  const chunks = wanted && wanted.length
    ? M.chunks.filter((c) => wanted.map(String).includes(String(c.value))) : M.chunks;
  return chunks.map((c) => c.name);
}

// A filter normalised: every part present; instance_flags folded into flags.
function normal(f) {
  f = f || {};
  return {eq: f.eq || {}, range: f.range || {}, q: f.q || "", full: !!f.full,
          flags: [...new Set([...(f.flags || []), ...(f.instance_flags || [])])]};
}

// A predicate over raw rows; rows stay arrays, dictionary keys compare as indices.
function compile(f) {
  const tests = [];
  for (const [name, values] of Object.entries(f.eq)) {
    if (!col[name] || !values.length) continue;
    const i = col[name].i, dict = dictIndex[name], wanted = values.map(String);
    if (dict) {
      const ok = new Set(wanted.filter((v) => dict.has(v)).map((v) => dict.get(v)));
      tests.push((r) => ok.has(r[i]) || wanted.includes(String(r[i])));
    } else {
      const ok = new Set(wanted);
      tests.push((r) => ok.has(String(r[i])));
    }
  }
  for (const [name, [lo, hi]] of Object.entries(f.range)) {
    if (!col[name] || (lo == null && hi == null)) continue;
    const i = col[name].i;
    tests.push((r) => isNum(r[i]) && (lo == null || r[i] >= lo) && (hi == null || r[i] <= hi));
  }
  for (const name of f.flags) if (col[name]) { const i = col[name].i; tests.push((r) => isTrue(r[i])); }
  return (r) => tests.every((t) => t(r));
}

// Lower-case text of a row's text columns, cached per row (for the search box).
const lowered = new WeakMap();
function lowerText(row) {
  let s = lowered.get(row);
  if (s === undefined) {
    s = cols("text").map((c) => String(row[c.i] ?? "")).join("\n").toLowerCase();
    lowered.set(row, s);
  }
  return s;
}

async function fullTexts(rows) {
  const tc = textsCol();
  if (!tc) return;
  const ks = [...new Set(rows.map((r) => r[tc.i]).filter((k) => k != null))];
  await loadAll(ks.map((k) => "texts-" + k));
}
function textsOf(row) {
  const tc = textsCol();
  const chunk = tc && row[tc.i] != null ? loaded.get("texts-" + row[tc.i]) : null;
  return (chunk && chunk[row[idCol().i]]) || {};
}

let lastMatch = {key: null, rows: null};
// The raw rows matching a filter (loads the chunks it needs), in chunk order.
async function match(filter) {
  const f = normal(filter), key = JSON.stringify(f);
  if (lastMatch.key === key) return lastMatch.rows;
  const chunks = await loadAll(chunkNames(f));
  const test = compile(f), q = f.q.toLowerCase();
  let out = [];
  for (const chunk of chunks) for (const r of chunk.rows) if (test(r)) out.push(r);
  if (q) {
    if (f.full) {
      const rest = out.filter((r) => !lowerText(r).includes(q)), tc = textsCol();
      const files = tc ? new Set(rest.map((r) => r[tc.i])).size : 0;
      if (files > MAX_TEXT_FILES) {
        throw new Error(`Searching the full texts would load ${files} text files; narrow the filter first (at most ${MAX_TEXT_FILES}).`);
      }
      await fullTexts(rest);
    }
    out = out.filter((r) => lowerText(r).includes(q) || (f.full && Object.values(textsOf(r))
      .some((t) => String(t).toLowerCase().includes(q))));
  }
  lastMatch = {key, rows: out};
  return out;
}

function sortRows(rows, sort) {
  if (!sort) return rows;
  const desc = sort.startsWith("-"), name = desc ? sort.slice(1) : sort;
  if (!col[name]) return rows;
  const numeric = ["number", "flag"].includes(col[name].kind);
  const keyed = rows.map((r) => [value(r, name), r]);
  keyed.sort(([a], [b]) => {
    if (a == null || (numeric && !isNum(+a))) return b == null ? 0 : 1;  // nulls last, both ways
    if (b == null || (numeric && !isNum(+b))) return -1;
    const c = numeric ? +a - +b : String(a).localeCompare(String(b), undefined, {numeric: true});
    return desc ? -c : c;
  });
  return keyed.map(([, r]) => r);
}

function decode(row) {
  const o = {};
  for (const c of M.columns) o[c.name] = c.kind === "flag" ? (isTrue(row[col[c.name].i]) ? 1 : 0) : value(row, c.name);
  return o;
}

// CSV of the rows: id, decoded keys, numbers, flags, snippet (text columns).
function toCsv(rows) {
  const shown = M.columns.filter((c) => c.kind !== "texts");
  const cell = (v) => {
    const s = v == null ? "" : String(v);
    return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  };
  const lines = [shown.map((c) => cell(c.name)).join(",")];
  for (const r of rows) {
    const d = decode(r);
    lines.push(shown.map((c) => cell(d[c.name])).join(","));
  }
  return lines.join("\r\n") + "\r\n";
}

// ---- URL fragments <-> filters --------------------------------------------------------------

function parseFragment(hash) {
  const text = (hash || "").replace(/^#/, "") || "home";
  const at = text.indexOf("?");
  const view = at < 0 ? text : text.slice(0, at);
  const params = new URLSearchParams(at < 0 ? "" : text.slice(at + 1));
  const filter = {eq: {}, range: {}, flags: [], q: params.get("q") || "", full: params.get("full") === "1"};
  for (const [k, v] of params) {
    if (col[k] && col[k].kind === "key") (filter.eq[k] = filter.eq[k] || []).push(v);
    else if (/^(min|max)\./.test(k) && col[k.slice(4)] && v !== "" && isNum(+v)) {
      const r = (filter.range[k.slice(4)] = filter.range[k.slice(4)] || [null, null]);
      r[k.startsWith("min") ? 0 : 1] = +v;
    } else if (k === "flag" && col[v]) filter.flags.push(v);
  }
  return {view, params, filter, sort: params.get("sort") || "", page: Math.max(1, parseInt(params.get("page"), 10) || 1)};
}

function fragment(view, filter, extra) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(extra || {})) if (v != null && v !== "") p.append(k, v);
  const f = normal(filter);
  for (const [name, values] of Object.entries(f.eq)) for (const v of values) p.append(name, v);
  for (const [name, [lo, hi]] of Object.entries(f.range)) {
    if (lo != null) p.append("min." + name, lo);
    if (hi != null) p.append("max." + name, hi);
  }
  for (const name of f.flags) p.append("flag", name);
  if (f.q) p.append("q", f.q);
  if (f.q && f.full) p.append("full", "1");
  const s = p.toString();
  return "#" + view + (s ? "?" + s : "");
}

// ---- DOM helpers (text only) ----------------------------------------------------------------

// el("a", {href: "#x", class: "c"}, "text", child...): strings become text nodes.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k in node && typeof node[k] !== "string" && k !== "href") node[k] = v;
    else node.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) if (c != null) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}
function fmt(v, kind) {
  if (v == null || v === "") return kind === "number" ? "–" : "";
  if (kind === "flag") return isTrue(v) ? "✓" : "";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(+v.toFixed(3));
  return String(v);
}
const $ = (id) => document.getElementById(id);
function progress(text) { const p = $("progress"); if (p) { p.textContent = text; p.hidden = !text; } }
function showError(message) { $("error").textContent = message; $("error").hidden = !message; }

// ---- Views ----------------------------------------------------------------------------------

const state = {view: null, hash: null, filter: null, matching: 0, shown: [], error: null};

function viewHome() {
  const out = [el("h1", {}, M.title || "Explorer")];
  if ((M.summary || []).length) {
    out.push(el("dl", {class: "summary"}, M.summary.map(([k, v]) => [el("dt", {}, k), el("dd", {}, fmt(v))])));
  }
  if ((M.presets || []).length) {
    out.push(el("h2", {}, "Presets"), el("ul", {class: "presets"},
      M.presets.map((p) => el("li", {}, el("a", {href: fragment("rows", p.filter), class: "preset"}, p.label)))));
  }
  (M.tables || []).forEach((t, ti) => {
    out.push(el("h2", {}, t.title || "Table"));
    if (t.note) out.push(el("p", {class: "note"}, t.note));
    const body = (t.rows || []).map((r, ri) => el("tr", {}, r.map((v, ci) => {
      const link = t.links && t.links[ri] && t.links[ri][ci];
      const text = fmt(v);
      return el("td", {class: typeof v === "number" ? "num" : null},
        link ? el("a", {href: fragment("rows", link), class: "cell-link", "data-table": ti}, text || "·") : text);
    })));
    out.push(el("table", {class: "summary-table"}, el("thead", {}, el("tr", {}, (t.header || []).map((h) => el("th", {}, h)))),
      el("tbody", {}, body)));
  });
  state.matching = 0; state.shown = [];
  return out;
}

// Filter controls of the rows and compare views; submitting navigates to the new fragment.
function filterForm(view, f, extra, sort) {
  const controls = [];
  for (const c of cols("key")) {
    if (view === "compare" && c.name === M.compare_column) continue;
    const dict = M.dictionaries && M.dictionaries[c.name], chosen = f.eq[c.name] || [];
    const label = el("label", {}, c.label);
    if (dict && dict.length <= SELECT_LIMIT) {
      label.append(el("select", {multiple: true, name: c.name, size: Math.min(6, dict.length)},
        dict.map((v) => el("option", {value: String(v), selected: chosen.includes(String(v))}, v))));
    } else {
      label.append(el("input", {type: "text", name: c.name, value: chosen.join(", "), placeholder: "values, comma-separated"}));
    }
    controls.push(label);
  }
  for (const c of cols("number")) {
    const [lo, hi] = f.range[c.name] || [null, null];
    controls.push(el("label", {class: "range"}, c.label,
      el("input", {type: "number", step: "any", name: "min." + c.name, value: lo ?? "", placeholder: "min"}),
      el("input", {type: "number", step: "any", name: "max." + c.name, value: hi ?? "", placeholder: "max"})));
  }
  for (const c of cols("flag")) {
    controls.push(el("label", {class: "flag"}, el("input", {type: "checkbox", name: "flag", value: c.name, checked: f.flags.includes(c.name)}), c.label));
  }
  controls.push(el("label", {class: "search"}, "Search", el("input", {type: "search", name: "q", value: f.q})));
  const form = el("form", {class: "filters", id: "filters"}, controls,
    el("div", {class: "buttons"},
      el("button", {type: "submit", name: "apply"}, "Apply"),
      el("button", {type: "submit", name: "full"}, "Search full texts"),
      el("a", {href: fragment(view, {}, extra), class: "reset"}, "Reset")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form), nf = {eq: {}, range: {}, flags: data.getAll("flag"), q: (data.get("q") || "").trim()};
    nf.full = !!(event.submitter && event.submitter.name === "full" && nf.q);
    for (const c of cols("key")) {
      const vs = data.getAll(c.name).flatMap((v) => (form.elements[c.name].tagName === "INPUT" ? v.split(",") : [v]))
        .map((v) => v.trim()).filter(Boolean);
      if (vs.length) nf.eq[c.name] = vs;
    }
    for (const c of cols("number")) {
      const lo = data.get("min." + c.name), hi = data.get("max." + c.name);
      if (lo || hi) nf.range[c.name] = [lo ? +lo : null, hi ? +hi : null];
    }
    location.hash = fragment(view, nf, Object.assign({}, extra, {sort}));
  });
  return form;
}

function pager(view, f, extra, page, pages) {
  const link = (p, text) => el("a", {href: fragment(view, f, Object.assign({}, extra, {page: p})), class: "page"}, text);
  return el("nav", {class: "pager"}, page > 1 ? link(page - 1, "‹ previous") : null,
    el("span", {}, ` page ${page} of ${Math.max(1, pages)} `), page < pages ? link(page + 1, "next ›") : null);
}

function rowCells(row, skip) {
  const inst = M.instance_column;
  return M.columns.filter((c) => !["id", "texts"].includes(c.kind) && !(skip || []).includes(c.name)).map((c) => {
    const v = value(row, c.name), text = fmt(v, c.kind);
    const content = c.name === inst && v != null ? el("a", {href: fragment("instance", {}, {id: v}), class: "instance-link"}, text) : text;
    return el("td", {class: c.kind, "data-column": c.name}, content);
  });
}

function headerCells(view, f, extra, sort, skip) {
  return M.columns.filter((c) => !["id", "texts"].includes(c.kind) && !(skip || []).includes(c.name)).map((c) => {
    const next = sort === c.name ? "-" + c.name : c.name;
    const mark = sort === c.name ? " ▲" : sort === "-" + c.name ? " ▼" : "";
    return el("th", {class: c.kind}, el("a", {href: fragment(view, f, Object.assign({}, extra, {sort: next})), class: "sort"}, c.label + mark));
  });
}

async function viewRows(r) {
  const f = normal(r.filter), rows = sortRows(await match(f), r.sort);
  const pages = Math.ceil(rows.length / PAGE), page = Math.min(r.page, Math.max(1, pages));
  const shown = rows.slice((page - 1) * PAGE, page * PAGE);
  state.matching = rows.length; state.shown = shown.map((x) => x[idCol().i]);
  const download = el("button", {type: "button", id: "download", onclick: () => downloadCsv(f)}, "Download CSV");
  return [el("h1", {}, "Rows"), filterForm("rows", f, {}, r.sort),
    el("p", {class: "count"}, el("span", {id: "count"}, String(rows.length)), ` matching row${rows.length === 1 ? "" : "s"} `, download),
    el("table", {class: "rows", id: "rows-table"}, el("thead", {}, el("tr", {}, headerCells("rows", f, {}, r.sort))),
      el("tbody", {}, shown.map((x) => el("tr", {"data-id": x[idCol().i]}, rowCells(x))))),
    pager("rows", f, {sort: r.sort}, page, pages)];
}

async function downloadCsv(filter) {
  const text = toCsv(await match(filter));
  const url = URL.createObjectURL(new Blob([text], {type: "text/csv;charset=utf-8"}));
  const a = el("a", {href: url, download: `${M.study}-${M.dataset}-rows.csv`});
  document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

// One row's numbers, flags and full texts, as a card.
function rowCard(row, skip) {
  const facts = M.columns.filter((c) => ["key", "number", "flag"].includes(c.kind) && !skip.includes(c.name))
    .map((c) => el("span", {class: "fact " + c.kind, "data-column": c.name}, `${c.label}: `, el("b", {}, fmt(value(row, c.name), c.kind) || "–")));
  const texts = textsOf(row);
  const fields = (M.text_fields || []).filter((t) => texts[t.name] != null && texts[t.name] !== "");
  const body = fields.length ? fields.map((t) => el("div", {class: "text-field"}, el("h4", {}, t.label || t.name), el("pre", {class: "text", "data-field": t.name}, texts[t.name])))
    : cols("text").map((c) => el("pre", {class: "text snippet"}, fmt(value(row, c.name))));
  return el("div", {class: "card", "data-id": row[idCol().i]}, el("div", {class: "facts"}, facts), body);
}

async function viewInstance(r) {
  const id = r.params.get("id") || "", k = (M.instances || {})[id];
  const out = [];
  if (k != null) {
    const info = (await loadData("instances-" + k))[id] || {};
    out.push(el("h1", {}, info.title || `${M.instance_label || "instance"} ${id}`));
    for (const s of info.sections || []) out.push(el("section", {class: "instance-section"}, el("h2", {}, s.label), el("ul", {}, (s.items || []).map((i) => el("li", {}, i)))));
  } else out.push(el("h1", {}, `${M.instance_label || "instance"} ${id}`));
  const filter = {eq: {[M.instance_column]: [id]}};
  const others = cols("key").map((c) => c.name).filter((n) => n !== M.instance_column);
  const rows = await match(filter);
  let sorted = rows;
  for (const n of others.slice().reverse()) sorted = sortRows(sorted, n);
  await fullTexts(sorted);
  state.matching = sorted.length; state.shown = sorted.map((x) => x[idCol().i]);
  out.push(el("p", {class: "count"}, el("span", {id: "count"}, String(sorted.length)), " rows"));
  const group = others[0];  // grouped by the first other key, then the rest label each card
  let current;
  for (const row of sorted) {
    const g = group ? value(row, group) : "";
    if (!current || current.dataset.group !== String(g)) {
      current = el("section", {class: "group", "data-group": g}, el("h2", {}, group ? `${col[group].label}: ${fmt(g)}` : "Rows"));
      out.push(current);
    }
    current.append(rowCard(row, [M.instance_column, group]));
  }
  if (!k && !rows.length) showError(`No ${M.instance_label || "instance"} ${id} in this explorer.`);
  return out;
}

async function viewCompare(r) {
  const cmp = M.compare_column, dict = (M.dictionaries || {})[cmp];
  const a = r.params.get("a") || "", b = r.params.get("b") || "";
  const f = normal(r.filter);
  delete f.eq[cmp];
  const choices = dict || [...new Set(M.chunks.map((c) => c.value))];
  const pick = (name, chosen) => el("label", {}, `${col[cmp].label} ${name.toUpperCase()} `,
    el("select", {name, id: "compare-" + name}, el("option", {value: ""}, "—"), choices.map((v) => el("option", {value: String(v), selected: String(v) === chosen}, v))));
  const picker = el("form", {class: "compare-pick"}, pick("a", a), pick("b", b), el("button", {type: "submit"}, "Compare"));
  picker.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = fragment("compare", f, {a: picker.elements.a.value, b: picker.elements.b.value});
  });
  const out = [el("h1", {}, "Side by side"), picker, filterForm("compare", f, {a, b}, "")];
  state.matching = 0; state.shown = [];
  if (!a || !b) return out;
  const side = async (v) => match(Object.assign({}, f, {eq: Object.assign({}, f.eq, {[cmp]: [v]})}));
  const rowsA = await side(a), rowsB = await side(b);
  const keyOf = (row) => M.match_columns.map((n) => String(value(row, n))).join("\u0001");
  const byKey = new Map();
  for (const row of rowsB) { const k = keyOf(row); if (!byKey.has(k)) byKey.set(k, []); byKey.get(k).push(row); }
  const pairs = [];
  for (const row of rowsA) { const list = byKey.get(keyOf(row)); if (list && list.length) pairs.push([row, list.shift()]); }
  const pages = Math.ceil(pairs.length / COMPARE_PAGE), page = Math.min(r.page, Math.max(1, pages));
  const shown = pairs.slice((page - 1) * COMPARE_PAGE, page * COMPARE_PAGE);
  await fullTexts(shown.flat());
  state.matching = pairs.length; state.shown = shown.flat().map((x) => x[idCol().i]);
  out.push(el("p", {class: "count"}, el("span", {id: "count"}, String(pairs.length)), ` matched pairs (${rowsA.length - pairs.length} rows of ${a} and ${rowsB.length - pairs.length} of ${b} without a match)`));
  const skip = [cmp, ...M.match_columns];
  out.push(el("table", {class: "compare"}, el("thead", {}, el("tr", {}, el("th", {}, M.match_columns.map((n) => col[n].label).join(" · ")), el("th", {}, a), el("th", {}, b))),
    el("tbody", {}, shown.map(([x, y]) => el("tr", {class: "pair"},
      el("td", {class: "match"}, M.match_columns.map((n) => n === M.instance_column
        ? el("div", {}, el("a", {href: fragment("instance", {}, {id: value(x, n)}), class: "instance-link"}, fmt(value(x, n))))
        : el("div", {}, fmt(value(x, n))))),
      el("td", {class: "side a"}, rowCard(x, skip)), el("td", {class: "side b"}, rowCard(y, skip)))))));
  out.push(pager("compare", f, {a, b}, page, pages));
  return out;
}

// ---- Routing --------------------------------------------------------------------------------

let seq = 0, current = Promise.resolve(), lastHash = null;
const VIEWS = {home: viewHome, rows: viewRows, instance: viewInstance, compare: viewCompare};

function route(hash) {
  const mine = ++seq;
  lastHash = hash;
  current = (async () => {
    const r = parseFragment(hash), view = VIEWS[r.view] ? r.view : "home";
    Object.assign(state, {view, hash, filter: normal(r.filter), error: null});
    showError("");
    for (const a of document.querySelectorAll("#nav a")) a.classList.toggle("active", a.getAttribute("href") === "#" + view);
    try {
      const nodes = await VIEWS[view](r);
      if (mine !== seq) return;  // a newer navigation took over
      $("main").replaceChildren(...nodes.flat());
    } catch (err) {
      if (mine !== seq) return;
      progress(""); Object.assign(state, {error: err.message, matching: 0, shown: []});
      showError(err.message);
    }
  })();
  return current;
}

function go(frag) {
  const hash = frag.startsWith("#") ? frag : "#" + frag;
  if (location.hash !== hash) location.hash = hash;
  return route(location.hash || hash);
}

window.explorer = {
  go, state,
  idle: () => current,
  rows: async (filter) => (await match(filter)).map(decode),
  csv: async (filter) => toCsv(await match(filter === undefined ? state.filter : filter)),
  fragment,
};

// After the first view the rows load in the background, one file at a time, so that a later
// filter over every chunk (or an instance view) finds them loaded; no view waits for them.
const PREFETCH_ROWS = 1000000;
async function prefetchRows() {
  const total = M.chunks.reduce((sum, c) => sum + (c.rows || 0), 0);
  if (total > PREFETCH_ROWS) return;
  for (const c of M.chunks) {
    try { await loadData(c.name); } catch (err) { return; }  // a view will say what failed
  }
}

function start() {
  const manifest = loaded.get("manifest");
  if (!manifest) {
    showError("data/manifest.js did not load: this folder is not a complete explorer.");
    return Promise.resolve();
  }
  setup(manifest);
  document.title = M.title || "Explorer";
  $("footer").textContent = `${M.study} · ${M.dataset} · generated ${M.generated || "?"}`;
  window.addEventListener("hashchange", () => { if (location.hash !== lastHash) route(location.hash); });
  return route(location.hash || "#home").then(() => { setTimeout(prefetchRows, 0); });
}

window.explorer.ready = new Promise((resolve) => {
  const begin = () => start().then(resolve);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", begin);
  else begin();
});
})();
