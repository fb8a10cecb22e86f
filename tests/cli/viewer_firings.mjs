// tests/cli/viewer_firings.mjs PAGE EXPECT.json SHOT.png: opens a page of
// `diagc view` in headless Chromium (playwright-core from viewer/, network
// off) and checks its event marks against EXPECT (tests/cli/viewer_firings.sh
// writes it from analytic times and the spec's numbers, never from the
// page): on every time panel, each event's marks at the expected times
// (within a tolerance per firing), the bar's line of each event, the hover
// read-out over a mark, the witness mark's colour on the canvas, switching
// an event off, and the marks of a zoomed range.  Prints "ok NAME" /
// "FAIL NAME: why" lines.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { launch, watchedPage } from "./viewer_page.mjs";

const [page, expectPath, shot] = process.argv.slice(2);
const E = JSON.parse(readFileSync(expectPath, "utf8"));
const require = createRequire(resolve("viewer/package.json"));
const { chromium } = require("playwright-core");
let failures = 0;
const check = (what, ok, why) => {
  if (ok) console.log(`ok firings.${E.name}.${what}`);
  else { failures++; console.log(`FAIL firings.${E.name}.${what}: ${why}`); }
};

const browser = await launch(chromium);
// the marks each panel drew: [{path: [t, ...]}] (in time order)
const drawn = (p) => p.evaluate(() => window.diagcViewer.panels.map((q) => {
  const by = {};
  for (const k of q.marks) (by[k.event.path] = by[k.event.path] || []).push(k.t);
  for (const v of Object.values(by)) v.sort((a, b) => a - b);
  return by;
}));
try {
  const { p, requests, errors } = await watchedPage(browser);
  await p.goto("file://" + resolve(page));
  await p.waitForSelector("body[data-ready=true]", { timeout: 15000 });
  check("no_errors", errors.length === 0, errors.join(" | "));
  check("no_network", requests.length === 0, "requests: " + requests.join(", "));
  const npanels = await p.evaluate(() => window.diagcViewer.panels.length);
  check("panels", npanels === E.panels, `${npanels} panels, expected ${E.panels}`);

  // every panel: each event's marks at the expected times
  const marksMatch = (got, ev, what) => {
    for (let i = 0; i < got.length; i++) {
      const g = got[i][ev.path] || [];
      if (g.length !== ev.times.length) return `panel ${i}: ${g.length} marks of ${ev.path}, expected ${ev.times.length} (${what})`;
      for (let k = 0; k < g.length; k++) {
        const tol = Array.isArray(ev.tol) ? ev.tol[k] : ev.tol || 0;
        if (!(Math.abs(g[k] - ev.times[k]) <= tol)) {
          return `panel ${i}: ${ev.path} firing ${k + 1} at t = ${g[k]}, expected ${ev.times[k]} within ${tol}`;
        }
      }
    }
    return null;
  };
  const got = await drawn(p);
  for (const ev of E.events) {
    const why = marksMatch(got, ev, "whole run");
    let worst = 0;
    for (let k = 0; k < ev.times.length && got[0] && got[0][ev.path]; k++) worst = Math.max(worst, Math.abs(got[0][ev.path][k] - ev.times[k]));
    console.log(`note firings.${E.name}: ${ev.path}: ${ev.times.length} marks, largest |t - expected| ${worst.toExponential(3)} s`);
    check(`marks_${ev.path}`, why === null, why);
    if (ev.label) {
      const text = await p.evaluate((path) => document.querySelector(`input[data-event="${path}"]`).parentNode.textContent, ev.path);
      const trig = await p.evaluate((path) => document.querySelector(`input[data-event="${path}"]`).parentNode.dataset.trigger, ev.path);
      check(`label_${ev.path}`, ev.label.every((s) => text.includes(s)) && trig === ev.trigger,
        `'${text}' (trigger ${trig}), expected ${JSON.stringify(ev.label)} and ${ev.trigger}`);
    }
  }
  await p.screenshot({ path: shot, fullPage: true });

  // hover over the first mark of an event: its name, trigger and time
  if (E.hover) {
    const at = await p.evaluate((path) => {
      const q = window.diagcViewer.panels[0];
      const k = q.marks.find((m) => m.event.path === path);
      const r = q.u.over.getBoundingClientRect();
      return k && { x: r.left + k.px, y: r.top + 20, t: k.t };
    }, E.hover.path);
    if (!at) check("hover", false, `no mark of ${E.hover.path}`);
    else {
      await p.mouse.move(at.x, at.y);
      const text = await p.evaluate(() => window.diagcViewer.panels[0].panel.dataset.hover || "");
      const tip = await p.evaluate(() => { const t = window.diagcViewer.panels[0].panel.querySelector(".mark-tip"); return t && t.style.display; });
      const want = `${E.hover.path} (${E.hover.word}) at t = ${at.t} s`;
      check("hover", text.split("; ").includes(want) && tip === "block", `hover '${text}' (tip ${tip}), expected '${want}'`);
      await p.screenshot({ path: shot.replace(/\.png$/, "_hover.png") });
      await p.mouse.move(5, 5);
    }
  }

  // a witness mark's triangle on the canvas, in its event's colour
  if (E.pixel) {
    const px = await p.evaluate((path) => {
      const q = window.diagcViewer.panels[0];
      const k = q.marks.find((m) => m.event.path === path);
      const dpr = q.u.ctx.canvas.width / q.u.ctx.canvas.clientWidth;
      const x = Math.round(q.u.valToPos(k.t, "x", true)), y = Math.round(q.u.bbox.top + 2 * dpr);
      const d = q.u.ctx.getImageData(x - 1, y, 3, 1).data;
      return [d[4], d[5], d[6], k.event.color];
    }, E.pixel.path);
    const c = px[3], rgb = [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
    check("witness_triangle", rgb.every((v, i) => Math.abs(v - px[i]) < 70), `pixel ${px.slice(0, 3)}, colour ${c}`);
  }

  // switching an event off takes its marks away from every panel
  if (E.off) {
    await p.click(`input[data-event="${E.off}"]`);
    const off = await drawn(p);
    check("switch_off", off.every((b) => !b[E.off]), JSON.stringify(off.map((b) => Object.keys(b))));
    await p.click(`input[data-event="${E.off}"]`);
    const on = await drawn(p);
    check("switch_on", on.every((b) => (b[E.off] || []).length === (got[0][E.off] || []).length), "marks not back");
  }

  // a zoom: the marks of the range shown
  for (const z of E.zooms || []) {
    await p.evaluate(([a, b]) => window.diagcViewer.panels[0].u.setScale("x", { min: a, max: b }), [z.min, z.max]);
    const zg = await drawn(p);
    for (const ev of z.events) {
      const why = marksMatch(zg, ev, `zoom ${z.min} .. ${z.max}`);
      check(`zoom_${z.min}_${z.max}_${ev.path}`, why === null, why);
    }
    if (z.note) {
      const note = await p.evaluate((path) => document.querySelector(`input[data-event="${path}"]`).parentNode.querySelector(".event-note").textContent, z.note.path);
      check(`zoom_${z.min}_${z.max}_note`, note.includes(z.note.has), `note '${note}', expected '${z.note.has}'`);
    }
  }
} catch (e) {
  failures++;
  console.log(`FAIL firings.${E.name}.browser: ${String(e).split("\n")[0]}`);
} finally {
  await browser.close();
}
process.exit(failures ? 1 : 0);
