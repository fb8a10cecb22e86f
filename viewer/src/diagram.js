// diagram.js: one diagram level drawn as blocks with ports on their sides
// (inputs left, outputs right) and orthogonal wires, laid out by dagre;
// the level's exported ports are drawn at its boundary.  A subdiagram is
// a block that can be opened in place (its + button; − closes it again),
// drawn as a frame around its own blocks and exported ports, or entered
// (double click or its ▸ button); the breadcrumb goes back out.
import dagre from "@dagrejs/dagre";

const SVG = "http://www.w3.org/2000/svg";
const PORT_GAP = 18;
const CHAR_W = 7.2;

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function blockSize(s) {
  const n = Math.max(s.inputs.length, s.outputs.length, 1);
  const label = Math.max(s.name.length, (s.type || "").length);
  const ports = Math.max(0, ...s.inputs.map((p) => p.name.length)) + Math.max(0, ...s.outputs.map((p) => p.name.length));
  return { width: Math.max(90, label * CHAR_W + ports * 6.5 + 34), height: Math.max(48, n * PORT_GAP + 24) };
}

// Lays out diagram `d` (a system of kind diagram) with the subdiagrams in
// `expanded` drawn open, inside it (dagre's compound graph: a cluster per
// open subdiagram, holding its children and one small node per exported
// port).  Node ids: "b:PATH" a block, "c:PATH" an open subdiagram,
// "p:PATH|in|PORT" / "p:PATH|out|PORT" an exported port of the level
// itself or of an open subdiagram.
function layout(m, d, expanded) {
  const g = new dagre.graphlib.Graph({ multigraph: true, compound: true });
  g.setGraph({ rankdir: "LR", nodesep: 30, ranksep: 60, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  const open = (s) => s.kind === "diagram" && expanded.has(s.path);
  const ports = (s, parent) => {
    for (const p of s.inputs) { g.setNode(`p:${s.path}|in|${p.name}`, { width: 60, height: 20 }); if (parent) g.setParent(`p:${s.path}|in|${p.name}`, parent); }
    for (const p of s.outputs) { g.setNode(`p:${s.path}|out|${p.name}`, { width: 60, height: 20 }); if (parent) g.setParent(`p:${s.path}|out|${p.name}`, parent); }
  };
  const levels = []; // the diagrams whose wires are drawn: d and the open ones
  const add = (s, parent) => {
    levels.push(s);
    for (const c of s.children) {
      if (open(c)) {
        g.setNode("c:" + c.path, { clusterLabelPos: "top" });
        if (parent) g.setParent("c:" + c.path, parent);
        ports(c, "c:" + c.path);
        add(c, "c:" + c.path);
      } else {
        g.setNode("b:" + c.path, blockSize(c));
        if (parent) g.setParent("b:" + c.path, parent);
      }
    }
  };
  ports(d, null);
  add(d, null);
  // a wire's end -> {node, key}: the node dagre places, the anchor's key
  const end = (lv, e, role) => {
    const s = m.systems.get(e.system);
    if (e.system === lv.path || open(s)) {
      // a port node: a wire leaves it on the right and arrives on the left
      const dir = e.system === lv.path ? (role === "from" ? "in" : "out") : (role === "from" ? "out" : "in");
      const id = `p:${e.system}|${dir}|${e.port}`;
      return { node: id, key: id + "|" + (role === "from" ? "right" : "left") };
    }
    return { node: "b:" + e.system, key: `b:${e.system}|${e.port}|${role === "from" ? "output" : "input"}` };
  };
  const wires = [];
  for (const lv of levels) {
    for (const w of m.wires.get(lv.path) || []) {
      const a = end(lv, w.from, "from"), b = end(lv, w.to, "to");
      g.setEdge(a.node, b.node, { minlen: 1 }, "w" + wires.length);
      wires.push({ w, a, b });
    }
  }
  dagre.layout(g);
  const pos = {};
  for (const v of g.nodes()) pos[v] = g.node(v);
  // exported inputs on the left edge of their frame, outputs on the right
  // (dagre ranks a port that a feedback wire reaches after its source)
  const W = g.graph().width;
  for (const v in pos) {
    if (!v.startsWith("p:")) continue;
    const [path, dir] = v.slice(2).split("|");
    const box = path === d.path ? { x: W / 2, width: W - 40 } : pos["c:" + path];
    pos[v].x = dir === "in" ? box.x - box.width / 2 + 34 : box.x + box.width / 2 - 34;
  }
  return { g: g.graph(), pos, wires, open };
}

// An orthogonal path from an output anchor a to an input anchor b.
function route(a, b, boxA, boxB) {
  if (b.x >= a.x + 20) {
    const xm = Math.round((a.x + b.x) / 2);
    return `M${a.x},${a.y} H${xm} V${b.y} H${b.x}`;
  }
  // backwards (a feedback loop): out right, around below both blocks, in left
  const below = Math.max(boxA ? boxA.y + boxA.height / 2 : a.y, boxB ? boxB.y + boxB.height / 2 : b.y) + 16;
  return `M${a.x},${a.y} H${a.x + 12} V${below} H${b.x - 12} V${b.y} H${b.x}`;
}

export function drawDiagram(m, d, host, ui, expanded = new Set()) {
  host.textContent = "";
  const L = layout(m, d, expanded);
  const W = Math.max(L.g.width || 200, 200), H = Math.max(L.g.height || 100, 100);
  // as wide as the pane, magnified at most 1.6 times
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", class: "diagram", "data-path": d.path,
    style: `max-width: ${Math.round(W * 1.6)}px` }, host);
  const clustersG = el("g", { class: "clusters" }, svg);
  const wiresG = el("g", { class: "wires" }, svg);
  const blocksG = el("g", { class: "blocks" }, svg);
  const anchors = {}; // key (see layout's end) -> {x, y}
  const boxes = {};
  const button = (g, x, text, title, fn) => {
    const b = el("text", { x, y: 16, class: "enter" }, g);
    b.textContent = text;
    el("title", {}, b).textContent = title;
    b.addEventListener("click", (ev) => { ev.stopPropagation(); fn(); });
    b.addEventListener("dblclick", (ev) => ev.stopPropagation());
    return b;
  };
  for (const id in L.pos) {
    const p = L.pos[id];
    if (id.startsWith("c:")) {
      // an open subdiagram: its frame, its name, − to close it, ▸ to enter it
      const c = m.systems.get(id.slice(2));
      const g = el("g", { class: "cluster", "data-path": c.path, transform: `translate(${p.x - p.width / 2},${p.y - p.height / 2})` }, clustersG);
      el("rect", { width: p.width, height: p.height, rx: 6 }, g);
      const t = el("text", { x: 8, y: 14, class: "cluster-name" }, g);
      t.textContent = `${c.name} (${c.type})`;
      const col = button(g, p.width - 30, "−", "close " + c.name, () => ui.collapse(c.path));
      col.setAttribute("class", "enter collapse");
      col.dataset.collapse = c.path;
      const en = button(g, p.width - 14, "▸", "enter " + c.name, () => ui.enter(c.path));
      en.dataset.enter = c.path;
      g.addEventListener("click", () => ui.select(c.path));
      continue;
    }
    if (!id.startsWith("b:")) continue;
    const c = m.systems.get(id.slice(2));
    const x0 = p.x - p.width / 2, y0 = p.y - p.height / 2;
    boxes[id] = p;
    const g = el("g", { class: "block " + c.kind, "data-path": c.path, transform: `translate(${x0},${y0})` }, blocksG);
    el("rect", { width: p.width, height: p.height, rx: 4 }, g);
    const t = el("text", { x: p.width / 2, y: 16, class: "name" }, g);
    t.textContent = c.name;
    const ty = el("text", { x: p.width / 2, y: 30, class: "type" }, g);
    ty.textContent = c.type;
    const put = (list, side) => list.forEach((port, i) => {
      const py = (p.height - 24) * (i + 0.5) / list.length + 24 - (list.length === 1 ? 6 : 0);
      const px = side === "input" ? 0 : p.width;
      el("rect", { x: px - 4, y: py - 4, width: 8, height: 8, class: "port " + side }, g);
      const lt = el("text", { x: side === "input" ? 7 : p.width - 7, y: py + 3.5,
        class: "port-label " + side }, g);
      lt.textContent = port.name + (port.size > 1 ? `[${port.size}]` : "");
      anchors[`${id}|${port.name}|${side}`] = { x: x0 + px + (side === "input" ? -4 : 4), y: y0 + py };
    });
    put(c.inputs, "input");
    put(c.outputs, "output");
    if (c.kind === "diagram") {
      const ex = button(g, p.width - 30, "+", "open " + c.name + " here", () => ui.expand(c.path));
      ex.dataset.expand = c.path;
      const en = button(g, p.width - 14, "▸", "enter " + c.name, () => ui.enter(c.path));
      en.dataset.enter = c.path;
      g.addEventListener("dblclick", () => ui.enter(c.path));
    }
    g.addEventListener("click", () => ui.select(c.path));
  }
  // exported ports: the level's own (class boundary) and those of the
  // open subdiagrams (class boundary inner)
  for (const id in L.pos) {
    if (!id.startsWith("p:")) continue;
    const [path, dir, name] = id.slice(2).split("|");
    const p = L.pos[id];
    const inner = path !== d.path;
    const g = el("g", { class: `boundary ${dir}${inner ? " inner" : ""}`, "data-port": name, "data-system": path }, blocksG);
    el("path", { d: dir === "in"
      ? `M${p.x - 28},${p.y - 9} H${p.x + 20} L${p.x + 28},${p.y} L${p.x + 20},${p.y + 9} H${p.x - 28} Z`
      : `M${p.x - 28},${p.y} L${p.x - 20},${p.y - 9} H${p.x + 28} V${p.y + 9} H${p.x - 20} Z` }, g);
    const t = el("text", { x: p.x, y: p.y + 4 }, g);
    t.textContent = name;
    anchors[id + "|left"] = { x: p.x - 28, y: p.y };
    anchors[id + "|right"] = { x: p.x + 28, y: p.y };
  }
  for (const { w, a: ea, b: eb } of L.wires) {
    const a = anchors[ea.key], b = anchors[eb.key];
    if (!a || !b) continue;
    const src = m.resolveSource(w.from);
    const logged = m.loggerBySource.get(src) ? "logged" : "";
    const dPath = route(a, b, boxes[ea.node], boxes[eb.node]);
    const hit = el("path", { d: dPath, class: "wire-hit" }, wiresG);
    const p = el("path", { d: dPath, class: "wire " + logged + (w.size > 1 ? " bus" : ""),
      "data-from": w.from.system + "." + w.from.port, "data-to": w.to.system + "." + w.to.port,
      "data-signal": src }, wiresG);
    const tip = el("title", {}, hit);
    tip.textContent = `${src} -> ${w.to.system === "" ? "" : w.to.system + "."}${w.to.port} (size ${w.size})`
      + (logged ? ": logged, click to plot" : "");
    const click = () => ui.wire(src, p);
    hit.addEventListener("click", click);
    p.addEventListener("click", click);
  }
  return svg;
}
