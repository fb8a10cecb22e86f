// tests/cli/viewer_world.mjs PAGE CSV EXPECT.json SHOT.png: opens a page of
// `diagc view` that holds a world in headless Chromium (playwright-core from
// viewer/, network off, software WebGL) and checks its 3D replay against the
// CSV that `diagc run` wrote (tests/cli/viewer_world.sh):
//   - the canvas is not blank (pixels read back from WebGL);
//   - one frame per logged sample (nothing decimated);
//   - at each scrub time the bodies' drawn poses (their three.js matrices)
//     equal the CSV's at the last sample at or before it: a free body's q
//     (x y z qw qx qy qz) or a body's pose port, turned into R here;
//   - playing advances the time and draws frames; the following camera
//     keeps its target on the body;
//   - the note of a world with no logged poses says what to log;
//   - a robot's visual meshes: drawn by default (their count and
//     triangles), posed from the CSV's poses and each visual's origin, and
//     the toggle to the collision shapes.
// Prints "ok NAME" / "FAIL NAME: why" lines and "note" lines with figures.
import { createRequire } from "node:module";
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { launch, watchedPage } from "./viewer_page.mjs";

const [page, csvPath, expectPath, shot] = process.argv.slice(2);
const E = JSON.parse(readFileSync(expectPath, "utf8"));
const require = createRequire(resolve("viewer/package.json"));
const { chromium } = require("playwright-core");
const name = E.name;
let failures = 0;
const check = (what, ok, why) => {
  if (ok) console.log(`ok viewer_world.${name}.${what}`);
  else { failures++; console.log(`FAIL viewer_world.${name}.${what}: ${why}`); }
};

// the CSV: header -> column index; rows of numbers (NaN for empty cells)
const lines = readFileSync(csvPath, "utf8").trim().split("\n");
const header = lines[0].split(",");
const col = new Map(header.map((c, i) => [c, i]));
const rows = lines.slice(1).map((l) => l.split(",").map((x) => (x === "" ? NaN : Number(x))));

// R (row-major) of a quaternion, normalized here (the CSV's is unit to rounding)
function rotation(w, x, y, z) {
  const n = Math.hypot(w, x, y, z);
  w /= n; x /= n; y /= n; z /= n;
  return [w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z];
}
// the last row with t <= time where column c has a value
function rowAt(time, c) {
  let best = null;
  for (const r of rows) if (r[0] <= time + 1e-12 && !Number.isNaN(r[c])) best = r;
  return best;
}
// the expected pose of a body from its columns PREFIX.x ... PREFIX.qz
function expected(prefix, time) {
  const c = ["x", "y", "z", "qw", "qx", "qy", "qz"].map((s) => col.get(`${prefix}.${s}`));
  if (c.some((i) => i === undefined)) throw new Error(`no columns ${prefix}.x .. qz in the CSV`);
  const r = rowAt(time, c[0]);
  return { t: r[0], R: rotation(r[c[3]], r[c[4]], r[c[5]], r[c[6]]), p: [r[c[0]], r[c[1]], r[c[2]]] };
}

const browser = await launch(chromium, { webgl: true });
try {
  const { p, requests, errors } = await watchedPage(browser);
  const t0 = Date.now();
  await p.goto("file://" + resolve(page));
  await p.waitForSelector("body[data-ready=true]", { timeout: 30000 });
  const loadMs = Date.now() - t0;
  check("no_errors", errors.length === 0, errors.join(" | "));
  check("no_network", requests.length === 0, "requests: " + requests.join(", "));
  const total = statSync(page).size;
  const data = await p.evaluate(() => new TextEncoder().encode(document.getElementById("diagc-data").textContent).length);
  console.log(`note viewer_world.${name}: page ${total} bytes (data ${data}, the rest ${total - data}), ` +
    `loaded and drawn in ${loadMs} ms`);
  check("size_budget", total - data <= E.budget, `${total - data} bytes without the data, budget ${E.budget}`);

  const w = await p.evaluate(() => {
    const w = window.diagcWorlds[0];
    return w && { source: w.source, frames: w.frames, bodies: w.bodies, note: document.querySelector(".world-note").textContent };
  });
  check("world_drawn", !!w, "no world panel");
  if (!w) throw new Error("no world");
  check("source", w.source === E.source, `poses from ${w.source}, expected ${E.source}`);
  if (E.visualNote) {
    const vn = await p.evaluate(() => (document.querySelector(".world-visual-note") || {}).textContent || "");
    check("visual_note", vn.includes(E.visualNote), `status '${vn}' lacks '${E.visualNote}'`);
  }
  if (E.note) check("note", w.note.includes(E.note), `note '${w.note}' lacks '${E.note}'`);
  if (E.frames !== undefined) check("frames", w.frames === E.frames, `${w.frames} frames, expected ${E.frames} (the CSV's samples)`);

  // the canvas is not blank: pixels unlike the background, in several colours
  const px = await p.evaluate(() => window.diagcWorlds[0].pixels());
  check("canvas_not_blank", px && px.differ > 0.01 * px.width * px.height && px.colours >= 6,
    JSON.stringify(px));
  if (px) console.log(`note viewer_world.${name}: canvas ${px.width}x${px.height}, ${px.differ} pixels drawn over the background, ${px.colours} colours`);

  // scrubbing: the drawn poses against the CSV
  for (const s of E.scrub || []) {
    const got = await p.evaluate((s) => {
      const w = window.diagcWorlds[0];
      if (s.slider) { // through the page's own slider, as a person drags it
        const el = document.querySelector(".world-scrub");
        el.value = String(w.times.findLastIndex((t) => t <= s.t + 1e-12));
        el.dispatchEvent(new Event("input"));
      } else w.setTime(s.t);
      return { t: w.time(), drawn: w.drawn(), clock: document.querySelector(".world-time").textContent };
    }, s);
    let worst = 0, where = "";
    for (const [body, prefix] of Object.entries(s.bodies)) {
      const e = expected(prefix, s.t);
      const d = got.drawn.find((x) => x.name === body);
      if (Math.abs(e.t - got.t) > 1e-12) { worst = Infinity; where = `time ${got.t} drawn, the CSV's ${e.t}`; break; }
      for (let k = 0; k < 9; k++) if (Math.abs(d.R[k] - e.R[k]) > worst) { worst = Math.abs(d.R[k] - e.R[k]); where = `${body} R[${k}]`; }
      for (let k = 0; k < 3; k++) if (Math.abs(d.p[k] - e.p[k]) > worst) { worst = Math.abs(d.p[k] - e.p[k]); where = `${body} p[${k}]`; }
    }
    check(`poses_at_${s.t}`, worst <= E.tol, `largest difference ${worst} at ${where} (tolerance ${E.tol})`);
    console.log(`note viewer_world.${name}: at t = ${s.t}: ${Object.keys(s.bodies).length} bodies, largest difference ${worst.toExponential(2)} (${got.clock})`);
  }

  // playing: time advances at the chosen speed, frames are drawn; then the rate
  if (E.play) {
    const r = await p.evaluate(async (ms) => {
      const w = window.diagcWorlds[0];
      w.setFrame(0);
      w.setSpeed(1);
      const r0 = w.stats.renders, s0 = w.stats.script, t0 = performance.now();
      w.play();
      await new Promise((res) => setTimeout(res, ms));
      const wall = (performance.now() - t0) / 1000, sim = w.time(), renders = w.stats.renders - r0;
      const script = (w.stats.script - s0) / Math.max(1, renders);
      w.pause();
      return { wall, sim, renders, script, bench: w.bench(100), renderer: w.stats.renderer, antialias: w.stats.antialias };
    }, E.play);
    check("play_advances", r.sim > 0.5 * r.wall && r.renders > 10, JSON.stringify(r));
    console.log(`note viewer_world.${name}: played ${r.sim.toFixed(2)} s of the run in ${r.wall.toFixed(2)} s at 1x: ` +
      `${(r.renders / r.wall).toFixed(1)} frames/s drawn, ${r.script.toFixed(2)} ms of script a frame while playing; one frame costs ${r.bench.js.toFixed(2)} ms of script ` +
      `(poses and three.js's draw calls) and ${r.bench.drawn.toFixed(1)} ms until its pixels are there ` +
      `(${(1000 / r.bench.drawn).toFixed(0)} frames/s in this browser's software WebGL: ${r.renderer}, ` +
      `antialias ${r.antialias ? "on" : "off"})`);
  }
  // contacts, on request: none drawn until asked; then at each scrub time
  // those of the CSV's sample at that time (drawn in single precision)
  if (E.contacts) {
    const off = await p.evaluate(() => window.diagcWorlds[0].contacts());
    check("contacts_off", off && off.drawn.length === 0, JSON.stringify(off));
    const nCol = col.get(`${E.contacts.port}.n`);
    for (const t of E.contacts.t) {
      const got = await p.evaluate((t) => {
        const w = window.diagcWorlds[0];
        w.showContacts(true);
        w.setTime(t);
        return w.contacts();
      }, t);
      const r = rowAt(t, nCol), n = r[nCol];
      let worst = 0;
      for (let k = 0; k < Math.min(n, got.drawn.length); k++) {
        const v = (e) => r[col.get(`${E.contacts.port}.c${k}.${e}`)];
        const want = [v("x"), v("y"), v("z"), v("nx"), v("ny"), v("nz")];
        const have = [...got.drawn[k].p, ...got.drawn[k].n];
        for (let j = 0; j < 6; j++) worst = Math.max(worst, Math.abs(want[j] - have[j]));
      }
      check(`contacts_at_${t}`, n > 0 && got.drawn.length === n && got.t === r[0] && worst < 1e-6,
        `${got.drawn.length} drawn at the sample of t = ${got.t}, the CSV has ${n} at ${r[0]}; largest difference ${worst}`);
      console.log(`note viewer_world.${name}: contacts at t = ${t}: ${n}, largest difference ${worst.toExponential(2)}`);
    }
  }
  // following a body: the camera's target is the body's origin at each frame
  if (E.follow) {
    const f = await p.evaluate((body) => {
      const w = window.diagcWorlds[0];
      w.follow(body);
      const out = [];
      for (const k of [0, Math.floor(w.frames / 2), w.frames - 1]) {
        w.setFrame(k);
        out.push({ target: w.camera().target, p: w.drawn().find((x) => x.name === body).p });
      }
      w.follow(null);
      return out;
    }, E.follow);
    const off = Math.max(...f.map((x) => Math.max(...x.target.map((v, i) => Math.abs(v - x.p[i])))));
    check("follow", off < 1e-9, `camera target off the body by ${off}: ${JSON.stringify(f)}`);
  }
  // visual geometry (a URDF's <visual>s): drawn by default, posed from the
  // bodies' poses (the CSV's, times each visual's origin read by hand from
  // the URDF), the collision shapes by the toggle
  if (E.visuals) {
    const V = E.visuals;
    const on = await p.evaluate(() => { const w = window.diagcWorlds[0]; return { g: w.geometry(), v: w.visuals() }; });
    check("visuals_by_default", on.g === "visual" && on.v.meshes === V.meshes && on.v.collisionBodies === V.collisionBodies,
      `showing ${on.g}: ${on.v.meshes} visual meshes, ${on.v.collisionBodies} bodies with collision shapes; expected ` +
      `${V.meshes} and ${V.collisionBodies}`);
    check("visual_triangles", on.v.triangles === V.triangles && on.v.pageTriangles === V.pageTriangles,
      `${on.v.triangles} triangles drawn (${on.v.pageTriangles} in the page), expected ${V.triangles} (${V.pageTriangles})`);
    console.log(`note viewer_world.${name}: ${on.v.meshes} visual meshes of ${on.v.files} files drawn, ` +
      `${on.v.triangles} triangles (${on.v.pageTriangles} in the page)`);
    const got = await p.evaluate((t) => { const w = window.diagcWorlds[0]; w.setTime(t); return w.visuals().drawn; }, V.t);
    const pc = col.get(`${V.poses}[0]`);
    const r = rowAt(V.t, pc);
    let worst = 0, where = "", seen = 0;
    for (const [body, o] of Object.entries(V.origins)) {
      // the body's pose from the CSV (R row-major, origin), then the visual's
      const X = (k) => r[pc + 12 * o.index + k];
      const R = [0, 1, 2, 3, 4, 5, 6, 7, 8].map(X), P = [X(9), X(10), X(11)];
      const [cr, sr, cp, sp, cy, sy] = [Math.cos(o.rpy[0]), Math.sin(o.rpy[0]), Math.cos(o.rpy[1]), Math.sin(o.rpy[1]),
        Math.cos(o.rpy[2]), Math.sin(o.rpy[2])];
      // URDF: Rz(yaw) Ry(pitch) Rx(roll)
      const L = [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr, sy * cp, sy * sp * sr + cy * cr,
        sy * sp * cr - cy * sr, -sp, cp * sr, cp * cr];
      const want = [];
      for (let i = 0; i < 3; i++) {
        for (let j = 0; j < 3; j++) want.push(R[3 * i] * L[j] + R[3 * i + 1] * L[3 + j] + R[3 * i + 2] * L[6 + j]);
        want.push(P[i] + R[3 * i] * o.xyz[0] + R[3 * i + 1] * o.xyz[1] + R[3 * i + 2] * o.xyz[2]);
      }
      for (let k = 0; k < 12; k++) want[k] *= k % 4 === 3 ? 1 : o.scale[k % 4];
      for (const d of got.filter((x) => x.body === body)) {
        seen++;
        for (let k = 0; k < 12; k++) {
          if (Math.abs(d.M[k] - want[k]) > worst) { worst = Math.abs(d.M[k] - want[k]); where = `${body} M[${k}]`; }
        }
      }
    }
    check(`visual_poses_at_${V.t}`, seen === Object.keys(V.origins).length && worst <= E.tol,
      `${seen} visuals compared; largest difference ${worst} at ${where} (tolerance ${E.tol})`);
    await p.locator(".world").screenshot({ path: shot.replace(/\.png$/, "_visual.png") });
    // the toggle, as a person uses it: every body with its collision shapes, no visual
    const off = await p.evaluate(() => {
      const sel = document.querySelector(".world-geometry select");
      sel.value = "collision";
      sel.dispatchEvent(new Event("change"));
      const w = window.diagcWorlds[0];
      return { g: w.geometry(), v: w.visuals(), nb: w.bodies.length };
    });
    check("toggle_collision", off.g === "collision" && off.v.meshes === 0 && off.v.collisionBodies === off.nb,
      `showing ${off.g}: ${off.v.meshes} visual meshes, ${off.v.collisionBodies} of ${off.nb} bodies with collision shapes`);
  }
  await p.locator(".world").screenshot({ path: shot });
  check("screenshot", statSync(shot).size > 5000, `${shot} has ${statSync(shot).size} bytes`);
} catch (e) {
  failures++;
  console.log(`FAIL viewer_world.${name}: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failures ? 1 : 0);
