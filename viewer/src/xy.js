// xy.js: the x-y panel: one logged column against another (a ball's x
// against its z), over the samples where both were logged and that lie in
// the time range the other panels show (zoom there, and the trajectory
// follows).  Axes labelled with the columns' names and their ports' units,
// "equal scales" for positions, the start marked with a circle, and the
// cursor's nearest sample read out as t, x, y.
const PAD = { left: 70, right: 20, top: 14, bottom: 42 };

// the unit of column c (an index into run.values), from its logger
function unitOf(m, c) {
  let k = 0;
  for (const l of m.desc.loggers) {
    if (c < k + l.size) return l.unit;
    k += l.size;
  }
  return undefined;
}

function ticks(a, b, n) {
  const span = b - a || 1;
  const raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((f) => f * mag).find((s) => s >= raw) || 10 * mag;
  const out = [];
  for (let v = Math.ceil(a / step) * step; v <= b + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return out;
}

const fmt = (v) => String(Number(v.toPrecision(6)));

export function drawXY(host, run, xc, yc, m, tA, tB) {
  host.textContent = "";
  const panel = document.createElement("div");
  panel.className = "panel xy";
  const names = run.columns.slice(1);
  const label = (c) => { const u = unitOf(m, c); return u ? `${names[c]} [${u}]` : names[c]; };
  const title = document.createElement("div");
  title.className = "panel-title";
  title.textContent = `x-y: ${names[yc]} against ${names[xc]}`;
  panel.appendChild(title);
  const tools = document.createElement("label");
  tools.className = "xy-equal";
  const eq = document.createElement("input");
  eq.type = "checkbox";
  tools.appendChild(eq);
  tools.appendChild(document.createTextNode(" equal scales"));
  title.appendChild(tools);
  const canvas = document.createElement("canvas");
  const W = Math.max(320, Math.min(900, host.clientWidth - 20)), H = 360;
  const dpr = window.devicePixelRatio || 1;
  canvas.width = W * dpr; canvas.height = H * dpr;
  canvas.style.width = W + "px"; canvas.style.height = H + "px";
  panel.appendChild(canvas);
  const readout = document.createElement("div");
  readout.className = "xy-readout";
  readout.textContent = "\u00a0";
  panel.appendChild(readout);
  host.appendChild(panel);
  panel.dataset.x = names[xc];
  panel.dataset.y = names[yc];
  panel.dataset.xlabel = label(xc);
  panel.dataset.ylabel = label(yc);

  let pts = [], map = null;
  const draw = () => {
    const X = run.values[xc], Y = run.values[yc], t = run.t;
    pts = [];
    for (let i = 0; i < t.length; i++) {
      if (t[i] < tA || t[i] > tB) continue;
      if (X[i] === null || Y[i] === null) continue;
      pts.push([t[i], X[i], Y[i]]);
    }
    panel.dataset.points = String(pts.length);
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    ctx.font = "11px system-ui, sans-serif";
    if (pts.length === 0) { ctx.fillText("no samples with both columns in this time range", PAD.left, H / 2); return; }
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const [, x, y] of pts) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
    const grow = (a, b) => { const d = (b - a) || Math.abs(a) || 1; return [a - 0.05 * d, b + 0.05 * d]; };
    [x0, x1] = grow(x0, x1); [y0, y1] = grow(y0, y1);
    const pw = W - PAD.left - PAD.right, ph = H - PAD.top - PAD.bottom;
    if (eq.checked) { // one length per pixel on both axes
      const s = Math.max((x1 - x0) / pw, (y1 - y0) / ph);
      const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
      x0 = cx - s * pw / 2; x1 = cx + s * pw / 2; y0 = cy - s * ph / 2; y1 = cy + s * ph / 2;
    }
    const px = (x) => PAD.left + (x - x0) / (x1 - x0) * pw;
    const py = (y) => PAD.top + (y1 - y) / (y1 - y0) * ph;
    map = { px, py };
    ctx.strokeStyle = "#ddd"; ctx.fillStyle = "#444"; ctx.lineWidth = 1;
    ctx.textAlign = "center";
    for (const v of ticks(x0, x1, 8)) {
      ctx.beginPath(); ctx.moveTo(px(v), PAD.top); ctx.lineTo(px(v), PAD.top + ph); ctx.stroke();
      ctx.fillText(fmt(v), px(v), PAD.top + ph + 14);
    }
    ctx.textAlign = "right";
    for (const v of ticks(y0, y1, 6)) {
      ctx.beginPath(); ctx.moveTo(PAD.left, py(v)); ctx.lineTo(PAD.left + pw, py(v)); ctx.stroke();
      ctx.fillText(fmt(v), PAD.left - 6, py(v) + 4);
    }
    ctx.strokeStyle = "#888";
    ctx.strokeRect(PAD.left, PAD.top, pw, ph);
    ctx.textAlign = "center";
    ctx.fillText(label(xc), PAD.left + pw / 2, H - 8);
    ctx.save(); ctx.translate(14, PAD.top + ph / 2); ctx.rotate(-Math.PI / 2); ctx.fillText(label(yc), 0, 0); ctx.restore();
    ctx.strokeStyle = "#1f77b4"; ctx.lineWidth = 1.5;
    ctx.beginPath();
    pts.forEach(([, x, y], i) => (i ? ctx.lineTo(px(x), py(y)) : ctx.moveTo(px(x), py(y))));
    ctx.stroke();
    ctx.fillStyle = "#1f77b4";
    ctx.beginPath(); ctx.arc(px(pts[0][1]), py(pts[0][2]), 4, 0, 2 * Math.PI); ctx.fill();
  };
  eq.addEventListener("change", draw);
  canvas.addEventListener("mousemove", (e) => {
    if (!map || pts.length === 0) return;
    const r = canvas.getBoundingClientRect(), mx = e.clientX - r.left, my = e.clientY - r.top;
    let best = null, bd = Infinity;
    for (const p of pts) {
      const d = (map.px(p[1]) - mx) ** 2 + (map.py(p[2]) - my) ** 2;
      if (d < bd) { bd = d; best = p; }
    }
    readout.textContent = `t = ${best[0]} s, ${names[xc]} = ${best[1]}, ${names[yc]} = ${best[2]}`;
  });
  draw();
  return {
    panel, canvas,
    setRange(a, b) { tA = a; tB = b; draw(); },
    points: () => pts.length,
  };
}
