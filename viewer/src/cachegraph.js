// cachegraph.js: the cache view, a second view of the diagram pane: the
// ticket graph of `diagc graph` (the page's data.graph: cli/page.lua,
// cli/graph.lua's data) filtered to the selected system: its own trackers
// (the ports, tickets and cache entries of its context) and those one edge
// away in other contexts (drawn grey, named with their system), laid out
// left to right by dagre.  Edges point from a prerequisite to its
// subscriber, the way invalidation travels: blue between contexts, dashed
// for a prerequisite list diagc inferred from a calc, purple into a
// generated Jacobian.  Clicking a grey node selects its system.
import dagre from "@dagrejs/dagre";

const SVG = "http://www.w3.org/2000/svg";
const CHAR_W = 6.6;

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// The part of graph g ({nodes: [[system, name, kind]], edges: [[from, to,
// kind]]}) around system `path`: {own: Set, near: Set, edges: [...]} (node
// indices; the edges between two own nodes or an own node and another
// system's).  Unless `all`, the own nodes are its cache entries and ports
// and its own trackers they depend on (the others, time, all_state,
// all_sources, ..., are there for every system alike).
export function around(g, path, all) {
  let own = new Set();
  g.nodes.forEach((n, i) => { if (n[0] === path) own.add(i); });
  if (!all) {
    const pres = new Map();
    for (const [a, b] of g.edges) {
      if (!own.has(a) || !own.has(b)) continue;
      (pres.get(b) || pres.set(b, []).get(b)).push(a);
    }
    const keep = new Set();
    const seeds = [...own].filter((i) => g.nodes[i][2] !== "ticket" && g.nodes[i][2] !== "fixed");
    const stack = [...seeds];
    const seen = new Set(seeds);
    while (stack.length) {
      const i = stack.pop();
      keep.add(i);
      for (const j of pres.get(i) || []) if (!seen.has(j)) { seen.add(j); stack.push(j); }
    }
    own = keep;
  }
  const mine = (i) => g.nodes[i][0] === path;
  const near = new Set(), edges = [];
  for (const e of g.edges) {
    const [a, b] = e;
    if (!(own.has(a) && (own.has(b) || !mine(b))) && !(own.has(b) && !mine(a))) continue;
    edges.push(e);
    for (const i of [a, b]) if (!own.has(i)) near.add(i);
  }
  return { own, near, edges };
}

let showAll = false; // every tracker of the system, not only those on its entries' paths

export function drawCacheGraph(m, g, path, host, ui) {
  host.textContent = "";
  const part = around(g, path, showAll);
  const note = document.createElement("p");
  note.className = "cache-note";
  note.textContent = `cache graph of ${path === "" ? "the root diagram" : path}: ${part.own.size} trackers ` +
    `(${showAll ? "all of them" : "its cache entries, its ports and what they depend on"}), ` +
    `${part.near.size} in other systems one edge away, ${part.edges.length} edges (prerequisite → subscriber) `;
  const lab = document.createElement("label");
  const cb = document.createElement("input");
  cb.type = "checkbox";
  cb.className = "cache-all";
  cb.checked = showAll;
  cb.addEventListener("change", () => { showAll = cb.checked; ui.select(path); });
  lab.appendChild(cb);
  lab.appendChild(document.createTextNode(" every tracker"));
  note.appendChild(lab);
  host.appendChild(note);
  if (part.own.size === 0) {
    note.appendChild(document.createTextNode("; nothing here takes part in a subscription"));
    return { own: 0, near: 0, edges: 0 };
  }
  const d = new dagre.graphlib.Graph({ multigraph: true });
  d.setGraph({ rankdir: "LR", nodesep: 14, ranksep: 50, marginx: 16, marginy: 16 });
  d.setDefaultEdgeLabel(() => ({}));
  const label = (i) => (part.own.has(i) ? g.nodes[i][1] : `${g.nodes[i][0] || "(root)"}: ${g.nodes[i][1]}`);
  for (const i of [...part.own, ...part.near]) d.setNode("n" + i, { width: label(i).length * CHAR_W + 18, height: 24 });
  part.edges.forEach((e, k) => d.setEdge("n" + e[0], "n" + e[1], {}, "e" + k));
  dagre.layout(d);
  const gr = d.graph();
  const svg = el("svg", { class: "cachegraph", width: gr.width, height: gr.height, "data-path": path }, host);
  const defs = el("defs", {}, svg);
  const marker = el("marker", { id: "cg-arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7,
    markerHeight: 7, orient: "auto-start-reverse" }, defs);
  el("path", { d: "M0,0 L10,5 L0,10 z", class: "cg-arrowhead" }, marker);
  part.edges.forEach((e, k) => {
    const pts = d.edge({ v: "n" + e[0], w: "n" + e[1], name: "e" + k }).points;
    el("path", { class: "cg-edge" + (e[2] ? " " + e[2] : ""), "marker-end": "url(#cg-arrow)",
      d: "M" + pts.map((p) => `${p.x},${p.y}`).join(" L") }, svg);
  });
  for (const i of [...part.own, ...part.near]) {
    const n = d.node("n" + i);
    const [system, name, kind] = g.nodes[i];
    const grp = el("g", { class: `cg-node ${kind}${part.own.has(i) ? "" : " near"}`, "data-system": system,
      "data-name": name, transform: `translate(${n.x - n.width / 2},${n.y - n.height / 2})` }, svg);
    el("rect", { width: n.width, height: n.height, rx: kind === "ticket" ? 12 : 3 }, grp);
    const t = el("text", { x: n.width / 2, y: 16 }, grp);
    t.textContent = label(i);
    if (!part.own.has(i)) grp.addEventListener("click", () => ui.select(system));
  }
  return { own: part.own.size, near: part.near.size, edges: part.edges.length };
}
