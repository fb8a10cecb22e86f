// plots.js: one uPlot panel per logger (a logged port): a series per
// element, named as in the CSV's columns, its own y axis labelled with the
// port's name and unit (output_port's unit = ...), time shared by every
// panel (drag to zoom, double click to reset, wheel to zoom, shift and
// drag to pan), the cursor's read-out in the legend, and a discrete
// signal (model.js isDiscrete) drawn as steps.  Every event's firings
// are marked on every panel (events.js: a thin line per firing, one colour
// per event, a line style per trigger, each event switched on and off in
// the bar above the panels, a hover read-out); an x-y panel (xy.js) draws
// one column against another.
import uPlot from "uplot";
import { drawXY } from "./xy.js";
import { markedEvents, eventBar, drawMarks, hoverMarks } from "./events.js";

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"];
// the y axis' label: the logger's name, and its port's unit in brackets
export const yLabel = (l) => (l.unit ? `${l.name} [${l.unit}]` : l.name);

export function drawPlots(m, run, host, firings) {
  host.textContent = "";
  const panels = [];
  const t = run.t;
  const tMin = t[0], tMax = t[t.length - 1];
  const events = markedEvents(m, firings);
  const bar = document.createElement("div");
  bar.className = "plot-bar";
  host.appendChild(bar);
  eventBar(bar, events, () => { for (const p of panels) p.u.redraw(false, false); });
  const xyHost = document.createElement("div");
  xyHost.className = "xy-host";
  host.appendChild(xyHost);
  let xy = null;
  let syncing = false;
  const syncX = (u) => {
    if (syncing) return;
    syncing = true;
    const { min, max } = u.scales.x;
    for (const p of panels) if (p.u !== u) p.u.setScale("x", { min, max });
    if (xy) xy.setRange(min, max);
    syncing = false;
  };
  let col = 1; // run.values[col - 1]: the column after t
  for (const l of m.desc.loggers) {
    const cols = [];
    for (let k = 0; k < l.size; k++) cols.push(col + k - 1);
    col += l.size;
    // the rows this logger sampled (loggers with other periods leave gaps)
    const keep = [];
    for (let i = 0; i < t.length; i++) if (cols.some((c) => run.values[c][i] !== null)) keep.push(i);
    const data = [keep.map((i) => t[i]), ...cols.map((c) => keep.map((i) => run.values[c][i]))];
    const discrete = m.isDiscrete(l.source);
    const panel = document.createElement("div");
    panel.className = "panel";
    panel.dataset.logger = l.name;
    panel.dataset.source = l.source;
    panel.dataset.series = String(l.size);
    panel.dataset.points = String(keep.length);
    panel.dataset.discrete = String(discrete);
    panel.dataset.ylabel = yLabel(l);
    const title = document.createElement("div");
    title.className = "panel-title";
    title.textContent = `${l.name}${l.unit ? " [" + l.unit + "]" : ""}  (${l.source}, ${l.period > 0 ? "every " + l.period + " s" : "every step"}${discrete ? ", discrete" : ""})`;
    panel.appendChild(title);
    host.appendChild(panel);
    const series = [{ label: "t [s]" }];
    l.columns.forEach((name, k) => series.push({
      label: name, stroke: COLORS[k % COLORS.length], width: 1.5, spanGaps: true,
      paths: discrete ? uPlot.paths.stepped({ align: 1 }) : undefined,
    }));
    const opts = {
      width: Math.max(300, host.clientWidth - 20), height: 180, series,
      scales: { x: { time: false, min: tMin, max: tMax } },
      axes: [{ label: "t [s]", size: 36 }, { label: yLabel(l), size: 60 }],
      cursor: { sync: { key: "diagc-t", setSeries: false }, drag: { x: true, y: false } },
      legend: { live: true },
      hooks: { setScale: [(u, key) => { if (key === "x") syncX(u); }], draw: [(u) => { entry.marks = drawMarks(u, events); }] },
    };
    const entry = { logger: l, panel, marks: [] };
    const u = new uPlot(opts, data, panel);
    entry.u = u;
    panels.push(entry);
    hoverMarks(u, panel, () => entry.marks);
    wheelAndPan(u, tMin, tMax);
  }
  xyBar(bar, m, run, (xc, yc) => {
    const { min, max } = panels.length ? panels[0].u.scales.x : { min: tMin, max: tMax };
    xy = xc === null ? null : drawXY(xyHost, run, xc, yc, m, min, max);
    if (xc === null) xyHost.textContent = "";
    return xy;
  });
  window.addEventListener("resize", () => {
    for (const p of panels) p.u.setSize({ width: Math.max(300, host.clientWidth - 20), height: 180 });
  });
  panels.xy = () => xy;
  return panels;
}

// x-y mode: two column choosers and a button; draw(xCol, yCol) (indices
// into run.values) or draw(null) to close the x-y panel.
function xyBar(bar, m, run, draw) {
  const box = document.createElement("span");
  box.className = "xy-bar";
  bar.appendChild(box);
  const cols = run.columns.slice(1);
  if (cols.length < 2) return;
  box.appendChild(document.createTextNode("x-y plot: "));
  const pick = (cls, k) => {
    const s = document.createElement("select");
    s.className = cls;
    cols.forEach((c, i) => { const o = document.createElement("option"); o.value = String(i); o.textContent = c; s.appendChild(o); });
    s.value = String(k);
    box.appendChild(s);
    return s;
  };
  const xs = pick("xy-x", 0);
  box.appendChild(document.createTextNode(" against "));
  const ys = pick("xy-y", 1);
  const go = document.createElement("button");
  go.className = "xy-draw";
  go.textContent = "draw";
  go.addEventListener("click", () => draw(Number(xs.value), Number(ys.value)));
  box.appendChild(go);
  const close = document.createElement("button");
  close.className = "xy-close";
  close.textContent = "close";
  close.addEventListener("click", () => draw(null));
  box.appendChild(close);
}

// wheel: zoom time around the cursor; shift + drag: pan
function wheelAndPan(u, tMin, tMax) {
  const over = u.over;
  over.addEventListener("wheel", (e) => {
    e.preventDefault();
    const { min, max } = u.scales.x;
    const x = u.posToVal(e.offsetX, "x");
    const f = e.deltaY < 0 ? 0.8 : 1.25;
    let a = x - (x - min) * f, b = x + (max - x) * f;
    if (b - a >= tMax - tMin) { a = tMin; b = tMax; }
    u.setScale("x", { min: a, max: b });
  }, { passive: false });
  over.addEventListener("mousedown", (e) => {
    if (!e.shiftKey) return;
    e.stopPropagation();
    e.preventDefault();
    const x0 = e.clientX, { min, max } = u.scales.x;
    const per = (max - min) / over.clientWidth;
    const move = (ev) => {
      const dx = (ev.clientX - x0) * per;
      u.setScale("x", { min: min - dx, max: max - dx });
    };
    const up = () => { window.removeEventListener("mousemove", move); window.removeEventListener("mouseup", up); };
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
  }, true);
}
