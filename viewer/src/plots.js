// plots.js: one uPlot panel per logger (a logged port): a series per
// element, named as in the CSV's columns, its own y axis labelled with the
// port's name and unit (output_port's unit = ...), time shared by every
// panel (drag to zoom, double click to reset, wheel to zoom, shift and
// drag to pan), the cursor's read-out in the legend, and a discrete
// signal (model.js isDiscrete) drawn as steps.  The periodic events' times
// are marked on every panel (a thin line per firing, one colour per event,
// each event switched on and off in the bar above the panels); an x-y
// panel (xy.js) draws one column against another.
import uPlot from "uplot";
import { drawXY } from "./xy.js";

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"];
const EVENT_COLORS = ["#ef6c00", "#6a1b9a", "#00838f", "#c62828", "#558b2f", "#4e342e"];
// an event's marks are drawn when at most this many fall in the time range shown
export const MAX_MARKS = 200;

// the y axis' label: the logger's name, and its port's unit in brackets
export const yLabel = (l) => (l.unit ? `${l.name} [${l.unit}]` : l.name);

// The firings of periodic event e ({period, offset}) in [a, b].
export function eventTimes(e, a, b) {
  const p = e.period, o = e.offset || 0, eps = 1e-9 * p;
  const k0 = Math.max(0, Math.ceil((a - o - eps) / p)), k1 = Math.floor((b - o + eps) / p);
  const out = [];
  if (k1 - k0 + 1 > MAX_MARKS) return null;
  for (let k = k0; k <= k1; k++) out.push(o + k * p);
  return out;
}

export function drawPlots(m, run, host) {
  host.textContent = "";
  const panels = [];
  const t = run.t;
  const tMin = t[0], tMax = t[t.length - 1];
  const events = (m.desc.events || []).filter((e) => e.period > 0)
    .map((e, i) => ({ ...e, color: EVENT_COLORS[i % EVENT_COLORS.length], on: true }));
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
  // the event marks of one panel, in its plotting area
  const marks = (u) => {
    const { min, max } = u.scales.x;
    const { left, top, width, height } = u.bbox;
    const ctx = u.ctx;
    let drawn = 0, hidden = 0;
    ctx.save();
    ctx.lineWidth = 1;
    ctx.setLineDash([3, 3]);
    for (const e of events) {
      if (!e.on) continue;
      const ts = eventTimes(e, min, max);
      if (e.note) e.note.textContent = ts === null ? ` (over ${MAX_MARKS} firings in this range, not marked: zoom in)` : "";
      if (ts === null) { hidden++; continue; }
      ctx.strokeStyle = e.color;
      ctx.globalAlpha = 0.45;
      ctx.beginPath();
      for (const x of ts) {
        const px = Math.round(u.valToPos(x, "x", true)) + 0.5;
        if (px < left - 1 || px > left + width + 1) continue;
        ctx.moveTo(px, top);
        ctx.lineTo(px, top + height);
        drawn++;
      }
      ctx.stroke();
    }
    ctx.restore();
    u.root.parentNode.dataset.marks = String(drawn);
    u.root.parentNode.dataset.marksHidden = String(hidden);
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
      hooks: { setScale: [(u, key) => { if (key === "x") syncX(u); }], draw: [marks] },
    };
    const u = new uPlot(opts, data, panel);
    panels.push({ logger: l, u, panel });
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

// The periodic events, each with its colour and a check box.
function eventBar(bar, events, redraw) {
  const box = document.createElement("span");
  box.className = "event-list";
  bar.appendChild(box);
  if (events.length === 0) { box.textContent = "no periodic events to mark"; return; }
  box.appendChild(document.createTextNode("event marks: "));
  for (const e of events) {
    const lab = document.createElement("label");
    lab.className = "event";
    lab.style.color = e.color;
    const cb = document.createElement("input");
    cb.type = "checkbox";
    cb.checked = true;
    cb.dataset.event = e.path;
    cb.addEventListener("change", () => { e.on = cb.checked; redraw(); });
    lab.appendChild(cb);
    lab.appendChild(document.createTextNode(` ${e.path} (${e.kind.replace(/_/g, " ")}, every ${e.period} s` +
      `${e.offset ? " from " + e.offset + " s" : ""})`));
    e.note = document.createElement("span");
    e.note.className = "event-note";
    lab.appendChild(e.note);
    box.appendChild(lab);
  }
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
