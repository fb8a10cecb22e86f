// inspector.js: what `diagc info` knows about the selected system (its
// ports with sizes and units, states with names and initial values, parameters,
// events with periods, cache entries with their tickets), and the sources
// a change of which marks cache entries stale (the invalidation masks):
// choosing one highlights the blocks whose entries it invalidates.
import { join } from "./model.js";

function h(tag, cls, text, parent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

// items whose path is the system's own (a leaf) or lies under it (a diagram)
function under(list, s, key = "path") {
  return list.filter((x) => {
    const p = x[key];
    if (s.path === "") return true;
    if (!p.startsWith(s.path + ".")) return false;
    return s.kind === "diagram" || p.indexOf(".", s.path.length + 1) < 0 || key === "system";
  });
}

function rel(s, path) { return s.path === "" ? path : path.slice(s.path.length + 1); }

function table(parent, title, cols, rows, cls) {
  const sec = h("section", "info-" + cls, undefined, parent);
  h("h3", null, `${title} (${rows.length})`, sec);
  if (rows.length === 0) { h("p", "none", "none", sec); return sec; }
  const t = h("table", null, undefined, sec);
  const tr = h("tr", null, undefined, t);
  for (const c of cols) h("th", null, c, tr);
  for (const r of rows) {
    const row = h("tr", null, undefined, t);
    for (const c of r) h("td", null, c, row);
  }
  return sec;
}

const fmt = (a) => (a || []).map((x) => (x === null ? "NaN" : String(x))).join(", ");

export function showSystem(m, path, host, ui) {
  const d = m.desc;
  const s = m.systems.get(path);
  host.textContent = "";
  host.dataset.path = path;
  h("h2", null, path === "" ? `diagram ${s.type}` : `${path}`, host);
  h("p", "kind", `${s.kind} ${s.type}`, host);
  table(host, "ports", ["port", "dir", "size", "unit", "wiring"],
    [...s.inputs, ...s.outputs].map((p) => [p.name, p.direction, String(p.size), p.unit || "",
      p.direction === "input" ? "<- " + p.from : (p.from ? "= " + p.from + " " : "") + (p.to && p.to.length ? "-> " + p.to.join(", ") : "")]),
    "ports");
  table(host, "states", ["state", "kind", "elements", "initial"],
    under(d.states, s).map((x) => [rel(s, x.path), x.kind, (x.elements || []).join(", "), x.kind === "abstract" ? x.ctype : fmt(x.initial)]),
    "states");
  table(host, "parameters", ["parameter", "size", "default"],
    under(d.parameters, s).map((x) => [rel(s, x.path), x.kind === "abstract" ? x.ctype : String(x.size), x.kind === "abstract" ? "" : fmt(x.default)]),
    "parameters");
  table(host, "events", ["event", "trigger", "kind", "period", "offset"],
    under(d.events, s).map((x) => [rel(s, x.path), x.trigger, x.kind, x.period === undefined ? "" : String(x.period), x.offset === undefined ? "" : String(x.offset)]),
    "events");
  const entries = (d.cache_entries || []).filter((e) => s.path === "" || e.system === s.path || e.system.startsWith(s.path + "."));
  table(host, "cache entries", ["bit", "ticket", "system", "prerequisites"],
    entries.map((e) => [String(e.index), e.ticket, e.system === "" ? "(root)" : rel(s, e.system) || "(this)", e.prerequisites.join(", ")]),
    "cache");
  const srcs = (d.sources || []).filter((x) => x.system !== undefined && (s.path === "" ? true : x.system === s.path || x.system.startsWith(s.path + ".")));
  const sec = h("section", "info-sources", undefined, host);
  h("h3", null, `what a change invalidates (${srcs.length} sources)`, sec);
  for (const x of srcs) {
    const b = h("button", "source", `${rel(s, x.name)} (${x.kind}): ${x.stale.length} entries`, sec);
    b.dataset.source = x.name;
    b.addEventListener("click", () => ui.highlight(x));
  }
  return host;
}

// The blocks (at the shown level) whose subtree owns one of the entries.
export function staleBlocks(m, shownPath, source) {
  const bySystem = new Map();
  for (const e of m.desc.cache_entries || []) bySystem.set(e.index, e.system);
  const out = new Set();
  for (const idx of source.stale) {
    // every drawn block or open frame at or above the entry's system
    const sys = bySystem.get(idx);
    if (shownPath !== "" && !sys.startsWith(shownPath + ".")) continue; // not drawn here
    for (let s = m.systems.get(sys); s && s.path !== shownPath; s = s.parent) out.add(s.path);
  }
  return out;
}

export { join };
