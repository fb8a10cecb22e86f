// diagram.js: one diagram level drawn as blocks with ports on their sides
// (inputs left, outputs right) and orthogonal wires, laid out by dagre;
// the level's exported ports are drawn at its boundary (left and right
// columns).  A subdiagram is a block that can be entered (double click or
// its ▸ button); the breadcrumb goes back out.
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

// Lays out diagram `d` (a system of kind diagram): positions of blocks,
// boundary ports and every port's anchor point.
function layout(m, d) {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: "LR", nodesep: 30, ranksep: 70, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const c of d.children) g.setNode("b:" + c.path, blockSize(c));
  // the boundary: one small node per exported port, inputs first in rank
  for (const p of d.inputs) g.setNode("in:" + p.name, { width: 60, height: 20 });
  for (const p of d.outputs) g.setNode("out:" + p.name, { width: 60, height: 20 });
  const node = (end, dir) => end.system === d.path ? (dir === "from" ? "in:" : "out:") + end.port : "b:" + end.system;
  const wires = m.wires.get(d.path) || [];
  wires.forEach((w, i) => g.setEdge(node(w.from, "from"), node(w.to, "to"), { minlen: 1 }, "w" + i));
  dagre.layout(g);
  const pos = {};
  for (const v of g.nodes()) pos[v] = g.node(v);
  return { g: g.graph(), pos, wires };
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

export function drawDiagram(m, d, host, ui) {
  host.textContent = "";
  const L = layout(m, d);
  const W = Math.max(L.g.width || 200, 200), H = Math.max(L.g.height || 100, 100);
  // as wide as the pane, magnified at most 1.6 times
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", class: "diagram", "data-path": d.path,
    style: `max-width: ${Math.round(W * 1.6)}px` }, host);
  const wiresG = el("g", { class: "wires" }, svg);
  const blocksG = el("g", { class: "blocks" }, svg);
  const anchors = {}; // "sys|port|dir" -> {x, y}
  const boxes = {};
  for (const c of d.children) {
    const p = L.pos["b:" + c.path];
    const x0 = p.x - p.width / 2, y0 = p.y - p.height / 2;
    boxes[c.path] = p;
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
      anchors[c.path + "|" + port.name + "|" + side] = { x: x0 + px + (side === "input" ? -4 : 4), y: y0 + py };
    });
    put(c.inputs, "input");
    put(c.outputs, "output");
    if (c.kind === "diagram") {
      const b = el("text", { x: p.width - 14, y: 16, class: "enter", "data-enter": c.path }, g);
      b.textContent = "▸";
      const tip = el("title", {}, b);
      tip.textContent = "enter " + c.name;
      b.addEventListener("click", (ev) => { ev.stopPropagation(); ui.enter(c.path); });
      g.addEventListener("dblclick", () => ui.enter(c.path));
    }
    g.addEventListener("click", () => ui.select(c.path));
  }
  // the boundary's exported ports
  const boundary = (list, dir) => list.forEach((port) => {
    const p = L.pos[(dir === "in" ? "in:" : "out:") + port.name];
    const g = el("g", { class: "boundary " + dir, "data-port": port.name }, blocksG);
    el("path", { d: dir === "in"
      ? `M${p.x - 28},${p.y - 9} H${p.x + 20} L${p.x + 28},${p.y} L${p.x + 20},${p.y + 9} H${p.x - 28} Z`
      : `M${p.x - 28},${p.y} L${p.x - 20},${p.y - 9} H${p.x + 28} V${p.y + 9} H${p.x - 20} Z` }, g);
    const t = el("text", { x: p.x, y: p.y + 4 }, g);
    t.textContent = port.name;
    anchors[d.path + "|" + port.name + "|" + (dir === "in" ? "output" : "input")] =
      { x: dir === "in" ? p.x + 28 : p.x - 28, y: p.y };
  });
  boundary(d.inputs, "in");
  boundary(d.outputs, "out");
  for (const w of L.wires) {
    const a = anchors[w.from.system + "|" + w.from.port + "|output"];
    const b = anchors[w.to.system + "|" + w.to.port + "|input"];
    if (!a || !b) continue;
    const src = m.resolveSource(w.from);
    const logged = m.loggerBySource.get(src) ? "logged" : "";
    const dPath = route(a, b, boxes[w.from.system], boxes[w.to.system]);
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
