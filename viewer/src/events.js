// events.js: the event marks of the time panels (plots.js).  Every event
// of the model is marked where it fired: a periodic event at offset +
// k period (its times follow from the model), every other one (witness
// crossings, per-step, next_update_time and initialization events) at the
// times the run recorded (data.firings: cli/firings.lua, the side file of
// diagc run --csv).  Each event has a colour and a line style by its
// trigger (periodic dashed, witness solid with a triangle on top, timed
// dash-dot, per-step dotted, initialization solid), a check box in the bar
// above the panels, and a hover read-out: its name, trigger and time.
// An event with more than MAX_MARKS firings in the range shown is not
// marked there (the bar says so: zoom in); an event whose later firings
// were not recorded says up to when it is marked.

const EVENT_COLORS = ["#ef6c00", "#6a1b9a", "#00838f", "#c62828", "#558b2f", "#4e342e"];
// an event's marks are drawn when at most this many fall in the time range shown
export const MAX_MARKS = 200;

// the line of each trigger: dashes (canvas setLineDash), width
export const STYLES = {
  periodic: { dash: [3, 3], width: 1 },
  witness: { dash: [], width: 1.5, triangle: true },
  timed: { dash: [6, 3, 1, 3], width: 1.5 },
  per_step: { dash: [1, 3], width: 1 },
  initialization: { dash: [], width: 1 },
};
const WORDS = { periodic: "periodic", witness: "witness", timed: "next update time", per_step: "per step",
  initialization: "initialization" };

// The firings of periodic event e ({period, offset}) in [a, b], or null
// when there are more than MAX_MARKS.
export function eventTimes(e, a, b) {
  const p = e.period, o = e.offset || 0, eps = 1e-9 * p;
  const k0 = Math.max(0, Math.ceil((a - o - eps) / p)), k1 = Math.floor((b - o + eps) / p);
  const out = [];
  if (k1 - k0 + 1 > MAX_MARKS) return null;
  for (let k = k0; k <= k1; k++) out.push(o + k * p);
  return out;
}

// the first index i of the sorted array ts with ts[i] >= x (or > x)
function bound(ts, x, strict) {
  let lo = 0, hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (strict ? ts[mid] <= x : ts[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// The recorded firings of e in [a, b], or null when there are more than MAX_MARKS.
export function recordedTimes(e, a, b) {
  const i = bound(e.times, a, false), j = bound(e.times, b, true);
  return j - i > MAX_MARKS ? null : Array.from(e.times.subarray(i, j));
}

// base64 of little-endian doubles (cli/pack.lua) -> Float64Array
function doubles(s) {
  const bytes = atob(s), n = bytes.length >> 3;
  const buf = new DataView(new ArrayBuffer(bytes.length));
  for (let i = 0; i < bytes.length; i++) buf.setUint8(i, bytes.charCodeAt(i));
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = buf.getFloat64(8 * i, true);
  return out;
}

// The events to mark: the model's, each with its colour, style, times
// (periodic: computed; others: data.firings) and a switch.
export function markedEvents(m, firings) {
  const rec = new Map(((firings && firings.events) || []).map((f) => [f.path, f]));
  return (m.desc.events || []).map((e, i) => {
    const ev = { ...e, color: EVENT_COLORS[i % EVENT_COLORS.length], on: true, style: STYLES[e.trigger] || STYLES.initialization };
    if (e.trigger === "periodic" && e.period > 0) {
      ev.between = (a, b) => eventTimes(ev, a, b);
    } else if (rec.has(e.path)) {
      const f = rec.get(e.path);
      ev.times = doubles(f.t);
      ev.fired = f.n + f.omitted;
      ev.omitted = f.omitted;
      ev.between = (a, b) => recordedTimes(ev, a, b);
    } else {
      ev.missing = (firings && firings.missing) || "its firings are not in the page";
      ev.between = () => [];
    }
    return ev;
  });
}

// the line of the bar that names event e
function describe(e) {
  const what = `${e.path} (${e.kind.replace(/_/g, " ")}, ${WORDS[e.trigger] || e.trigger}`;
  if (e.trigger === "periodic") return `${what}, every ${e.period} s${e.offset ? " from " + e.offset + " s" : ""})`;
  if (e.missing) return `${what}: not marked, ${e.missing})`;
  let s = `${what}, ${e.fired} firing${e.fired === 1 ? "" : "s"}`;
  if (e.omitted > 0) {
    s += `: the first ${e.times.length} recorded and marked, up to t = ${e.times[e.times.length - 1]} s; ` +
      `${e.omitted} later ones only counted`;
  }
  return s + ")";
}

// a short line in the event's colour and style, for the bar
function swatch(e) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", "10");
  svg.setAttribute("height", "14");
  svg.classList.add("event-swatch");
  const l = document.createElementNS(ns, "line");
  for (const [k, v] of [["x1", 5], ["x2", 5], ["y1", e.style.triangle ? 4 : 0], ["y2", 14]]) l.setAttribute(k, String(v));
  l.setAttribute("stroke", e.color);
  l.setAttribute("stroke-width", String(e.style.width));
  if (e.style.dash.length) l.setAttribute("stroke-dasharray", e.style.dash.join(" "));
  svg.appendChild(l);
  if (e.style.triangle) {
    const t = document.createElementNS(ns, "path");
    t.setAttribute("d", "M1 0 L9 0 L5 5 Z");
    t.setAttribute("fill", e.color);
    svg.appendChild(t);
  }
  return svg;
}

// The bar: each event with its swatch and a check box.
export function eventBar(bar, events, redraw) {
  const box = document.createElement("span");
  box.className = "event-list";
  bar.appendChild(box);
  if (events.length === 0) { box.textContent = "no events to mark"; return; }
  box.appendChild(document.createTextNode("event marks: "));
  for (const e of events) {
    const lab = document.createElement("label");
    lab.className = "event";
    lab.dataset.trigger = e.trigger;
    lab.style.color = e.color;
    const cb = document.createElement("input");
    cb.type = "checkbox";
    cb.checked = true;
    cb.dataset.event = e.path;
    cb.addEventListener("change", () => { e.on = cb.checked; redraw(); });
    lab.appendChild(cb);
    lab.appendChild(swatch(e));
    lab.appendChild(document.createTextNode(" " + describe(e)));
    e.note = document.createElement("span");
    e.note.className = "event-note";
    lab.appendChild(e.note);
    box.appendChild(lab);
  }
}

// Draws the marks of the events switched on into uPlot u's plotting area;
// returns what was drawn: [{event, t, px}] (px in CSS pixels from the
// plotting area's left), and sets the panel's data-marks, data-marks-hidden.
export function drawMarks(u, events) {
  const { min, max } = u.scales.x;
  const { left, top, width, height } = u.bbox;
  const ctx = u.ctx;
  const drawn = [];
  let hidden = 0;
  ctx.save();
  for (const e of events) {
    if (!e.on) continue;
    const ts = e.between(min, max);
    if (e.note) e.note.textContent = ts === null ? ` (over ${MAX_MARKS} firings in this range, not marked: zoom in)` : "";
    if (ts === null) { hidden++; continue; }
    ctx.strokeStyle = e.color;
    ctx.fillStyle = e.color;
    ctx.lineWidth = e.style.width;
    ctx.setLineDash(e.style.dash);
    ctx.globalAlpha = e.trigger === "periodic" ? 0.45 : 0.8;
    ctx.beginPath();
    const tri = [];
    for (const x of ts) {
      const px = Math.round(u.valToPos(x, "x", true)) + 0.5;
      if (px < left - 1 || px > left + width + 1) continue;
      ctx.moveTo(px, top);
      ctx.lineTo(px, top + height);
      if (e.style.triangle) tri.push(px);
      drawn.push({ event: e, t: x, px: u.valToPos(x, "x", false) });
    }
    ctx.stroke();
    const s = 4;
    for (const px of tri) {
      ctx.beginPath();
      ctx.moveTo(px - s, top);
      ctx.lineTo(px + s, top);
      ctx.lineTo(px, top + 1.3 * s);
      ctx.closePath();
      ctx.fill();
    }
  }
  ctx.restore();
  const panel = u.root.parentNode;
  panel.dataset.marks = String(drawn.length);
  panel.dataset.marksHidden = String(hidden);
  return drawn;
}

// The hover read-out of one panel: the mark nearest the cursor (within 4
// px), and any other drawn on its pixel column, each named with its event,
// trigger and time ("; " between them), in a tip over the plot and in the
// panel's data-hover.
export function hoverMarks(u, panel, marks) {
  const tip = document.createElement("div");
  tip.className = "mark-tip";
  tip.style.display = "none";
  u.over.appendChild(tip);
  u.over.addEventListener("mousemove", (ev) => {
    const x = ev.clientX - u.over.getBoundingClientRect().left;
    let best = null;
    for (const k of marks()) if (Math.abs(k.px - x) <= 4 && (!best || Math.abs(k.px - x) < Math.abs(best.px - x))) best = k;
    if (!best) {
      tip.style.display = "none";
      delete panel.dataset.hover;
      return;
    }
    // every mark drawn on that pixel column (events that fired together)
    const at = marks().filter((k) => Math.abs(k.px - best.px) < 1);
    const text = at.map((k) => `${k.event.path} (${WORDS[k.event.trigger] || k.event.trigger}) at t = ${k.t} s`).join("; ");
    tip.textContent = text;
    tip.style.display = "block";
    tip.style.left = `${Math.min(best.px + 6, Math.max(0, u.over.clientWidth - 260))}px`;
    tip.style.top = `${Math.max(0, ev.offsetY - 24)}px`;
    panel.dataset.hover = text;
  });
  u.over.addEventListener("mouseleave", () => { tip.style.display = "none"; delete panel.dataset.hover; });
}
