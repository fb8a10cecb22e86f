// tests/cli/viewer_browser.mjs PAGE EXPECT.json SHOT.png: opens a page of
// `diagc view` in headless Chromium (playwright-core from viewer/, Debian's
// /usr/bin/chromium) with the network off, and checks it against EXPECT
// (tests/cli/viewer.sh writes it: counts taken from the spec by hand and
// from the CSV).  Prints "ok NAME" / "FAIL NAME: why" lines.
import { createRequire } from "node:module";
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { launch, watchedPage } from "./viewer_page.mjs";

const [page, expectPath, shot] = process.argv.slice(2);
const E = JSON.parse(readFileSync(expectPath, "utf8"));
const require = createRequire(resolve("viewer/package.json"));
const { chromium } = require("playwright-core");
const name = E.name;
let failures = 0;
const check = (what, ok, why) => {
  if (ok) console.log(`ok viewer.${name}.${what}`);
  else { failures++; console.log(`FAIL viewer.${name}.${what}: ${why}`); }
};

const browser = await launch(chromium);
try {
  const { p, requests, errors } = await watchedPage(browser);
  await p.goto("file://" + resolve(page));
  await p.waitForSelector("body[data-ready=true]", { timeout: 15000 });
  check("no_errors", errors.length === 0, errors.join(" | "));
  check("no_network", requests.length === 0, "requests: " + requests.join(", "));

  // the page's size without its data (the budget: 2 MB)
  const total = statSync(page).size;
  const data = await p.evaluate(() => new TextEncoder().encode(document.getElementById("diagc-data").textContent).length);
  console.log(`note viewer.${name}: page ${total} bytes, data ${data} bytes, the rest ${total - data} bytes`);
  check("size_budget", total - data <= E.budget, `${total - data} bytes without the data, budget ${E.budget}`);

  // blocks and wires at each level of the diagram
  let allBlocks = 0, allWires = 0;
  for (const lv of E.levels) {
    await p.evaluate((path) => window.diagcViewer.enter(path), lv.path);
    const n = await p.evaluate(() => ({
      blocks: document.querySelectorAll("svg.diagram .block").length,
      wires: document.querySelectorAll("svg.diagram path.wire").length,
      inputs: document.querySelectorAll("svg.diagram .boundary.in").length,
      outputs: document.querySelectorAll("svg.diagram .boundary.out").length,
    }));
    allBlocks += n.blocks; allWires += n.wires;
    check(`level_${lv.path || "root"}`, n.blocks === lv.blocks && n.wires === lv.wires &&
      n.inputs === lv.inputs && n.outputs === lv.outputs,
      `blocks ${n.blocks} wires ${n.wires} exported in ${n.inputs} out ${n.outputs}, expected ${lv.blocks} ${lv.wires} ${lv.inputs} ${lv.outputs}`);
  }
  check("all_blocks_and_wires", allBlocks === E.systems && allWires === E.wires,
    `blocks ${allBlocks} wires ${allWires}, expected ${E.systems} ${E.wires}`);

  // entering through the ▸ button and leaving through the breadcrumb
  if (E.enter) {
    await p.evaluate(() => window.diagcViewer.enter(""));
    await p.click(`.block[data-path="${E.enter}"] [data-enter]`);
    const shown = await p.getAttribute("svg.diagram", "data-path");
    await p.click(".crumbs a.crumb >> nth=0");
    const back = await p.getAttribute("svg.diagram", "data-path");
    check("enter_and_leave", shown === E.enter && back === "", `entered ${shown}, back at '${back}'`);
  }

  // opening subdiagrams in place: their blocks, frames and wires join the level's
  for (const x of E.expand || []) {
    await p.evaluate(() => window.diagcViewer.enter(""));
    for (const path of x.open) await p.click(`.block[data-path="${path}"] [data-expand]`);
    const n = await p.evaluate(() => ({
      blocks: [...document.querySelectorAll("svg.diagram .block")].map((b) => b.dataset.path).sort(),
      frames: document.querySelectorAll("svg.diagram .cluster").length,
      wires: document.querySelectorAll("svg.diagram path.wire").length,
    }));
    check(`open_${x.open.join("+")}`, JSON.stringify(n.blocks) === JSON.stringify(x.blocks) && n.frames === x.frames &&
      n.wires === x.wires, `got ${JSON.stringify(n)}, expected ${JSON.stringify(x)}`);
    if (x.shot) await p.screenshot({ path: shot.replace(/\.png$/, "_open.png") });
    await p.click(`.cluster[data-path="${x.open[0]}"] [data-collapse]`);
    const back = await p.evaluate(() => ({ frames: document.querySelectorAll("svg.diagram .cluster").length,
      blocks: document.querySelectorAll("svg.diagram .block").length }));
    check(`close_${x.open[0]}`, back.frames === 0 && back.blocks === x.closed_blocks, `after closing: ${JSON.stringify(back)}`);
  }

  // clicking a block shows its states and parameters
  for (const c of E.clicks) {
    await p.evaluate((path) => window.diagcViewer.enter(path), c.level);
    await p.click(`.block[data-path="${c.block}"] rect >> nth=0`);
    const got = await p.evaluate(() => {
      const rows = (sel) => [...document.querySelectorAll(`.inspector ${sel} tr`)].slice(1).map((r) => [...r.children].map((td) => td.textContent));
      return { path: document.querySelector(".inspector").dataset.path, states: rows(".info-states"), params: rows(".info-parameters"),
        sources: document.querySelectorAll(".inspector button.source").length };
    });
    const same = JSON.stringify(got.states) === JSON.stringify(c.states) && JSON.stringify(got.params) === JSON.stringify(c.params);
    check(`click_${c.block}`, got.path === c.block && same, `got ${JSON.stringify(got)}, expected ${JSON.stringify(c)}`);
    // the masks: a change of the first parameter marks these blocks stale
    if (c.stale) {
      await p.click(`.inspector button.source[data-source="${c.stale.source}"]`);
      const stale = await p.evaluate(() => [...document.querySelectorAll(".block.stale")].map((b) => b.dataset.path).sort());
      check(`masks_${c.stale.source}`, JSON.stringify(stale) === JSON.stringify(c.stale.blocks),
        `stale blocks ${JSON.stringify(stale)}, expected ${JSON.stringify(c.stale.blocks)}`);
      await p.screenshot({ path: shot.replace(/\.png$/, "_masks.png") });
    }
  }

  // every logged port has a panel with its series and points
  const panels = await p.evaluate(() => window.diagcViewer.panels.map((q) => ({
    logger: q.logger.name, series: q.u.series.length - 1, points: q.u.data[0].length,
    discrete: q.panel.dataset.discrete === "true",
    legend: [...q.panel.querySelectorAll(".u-legend .u-series .u-label")].slice(1).map((x) => x.textContent),
  })));
  const want = E.panels.map((x) => x.logger).join(",");
  check("panels", panels.map((x) => x.logger).join(",") === want, `panels ${panels.map((x) => x.logger)}, expected ${want}`);
  for (const w of E.panels) {
    const g = panels.find((x) => x.logger === w.logger);
    check(`panel_${w.logger}`, g && g.series === w.series && g.points === w.points && g.discrete === w.discrete &&
      JSON.stringify(g.legend) === JSON.stringify(w.legend), `got ${JSON.stringify(g)}, expected ${JSON.stringify(w)}`);
  }

  // clicking a logged wire selects its plot
  if (E.wire) {
    await p.evaluate((path) => window.diagcViewer.enter(path), E.wire.level);
    await p.click(`path.wire[data-from="${E.wire.from}"]`, { force: true });
    const sel = await p.evaluate(() => [...document.querySelectorAll(".panel.selected")].map((x) => x.dataset.logger));
    check("wire_plots", sel.length === 1 && sel[0] === E.wire.logger, `selected ${JSON.stringify(sel)}, expected ${E.wire.logger}`);
  }

  // the y axes: the logger's name and its port's unit
  if (E.ylabels) {
    const got = await p.evaluate(() => window.diagcViewer.panels.map((q) => [q.u.axes[1].label, q.panel.dataset.ylabel]));
    check("units", JSON.stringify(got) === JSON.stringify(E.ylabels.map((x) => [x, x])),
      `y labels ${JSON.stringify(got)}, expected ${JSON.stringify(E.ylabels)}`);
  }

  // the periodic events' marks on every panel, over the whole run
  const marks = () => p.evaluate(() => window.diagcViewer.panels.map((q) => Number(q.panel.dataset.marks)));
  if (E.marks) {
    const m = await marks();
    check("event_marks", m.every((x) => x === E.marks.all), `marks per panel ${JSON.stringify(m)}, expected ${E.marks.all}`);
  }

  // the cache view of a block: its entries, ports and what they depend on,
  // and the trackers of other systems one edge away
  for (const c of E.cache || []) {
    await p.evaluate(() => window.diagcViewer.enter(""));
    await p.click('.views button.view[data-view="cache"]');
    await p.evaluate((path) => window.diagcViewer.select(path), c.select);
    const got = await p.evaluate(() => ({
      own: [...document.querySelectorAll(".cg-node:not(.near)")].map((n) => n.dataset.system + ":" + n.dataset.name).sort(),
      near: [...document.querySelectorAll(".cg-node.near")].map((n) => n.dataset.system + ":" + n.dataset.name).sort(),
      edges: document.querySelectorAll("svg.cachegraph path.cg-edge").length,
      path: document.querySelector("svg.cachegraph").dataset.path,
    }));
    const want = { own: [...c.own].sort(), near: [...c.near].sort(), edges: c.edges, path: c.select };
    check(`cache_${c.select || "root"}`, JSON.stringify(got) === JSON.stringify(want),
      `got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
    // the masks in the cache view: a change of the source marks these nodes stale
    if (c.stale) {
      await p.click(`.inspector button.source[data-source="${c.stale.source}"]`);
      const st = await p.evaluate(() => [...document.querySelectorAll(".cg-node.stale")].map((n) => n.dataset.system + ":" + n.dataset.name).sort());
      check(`cache_masks_${c.stale.source}`, JSON.stringify(st) === JSON.stringify([...c.stale.nodes].sort()),
        `stale nodes ${JSON.stringify(st)}, expected ${JSON.stringify(c.stale.nodes)}`);
    }
    if (c.shot) await p.screenshot({ path: shot.replace(/\.png$/, "_cache.png") });
    // a grey node selects its system
    if (c.follow) {
      await p.click(`.cg-node.near[data-system="${c.follow}"] >> nth=0`);
      const now = await p.evaluate(() => [document.querySelector("svg.cachegraph").dataset.path, document.querySelector(".inspector").dataset.path]);
      check(`cache_follow_${c.follow}`, now[0] === c.follow && now[1] === c.follow, `showing ${JSON.stringify(now)}`);
    }
    await p.click('.views button.view[data-view="blocks"]');
    const back = await p.evaluate(() => document.querySelectorAll("svg.diagram .block").length);
    check(`cache_back_to_blocks`, back > 0, `blocks ${back}`);
  }

  // x-y mode: two columns chosen, the trajectory drawn on its canvas
  if (E.xy) {
    await p.selectOption("select.xy-x", { label: E.xy.x });
    await p.selectOption("select.xy-y", { label: E.xy.y });
    await p.click("button.xy-draw");
    const got = await p.evaluate(() => {
      const q = document.querySelector(".panel.xy");
      const c = q.querySelector("canvas");
      const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      let line = 0; // pixels of the trajectory's colour (#1f77b4)
      for (let i = 0; i < px.length; i += 4) if (Math.abs(px[i] - 31) < 40 && Math.abs(px[i + 1] - 119) < 40 && px[i + 2] > 140 && px[i + 3] > 0) line++;
      return { points: Number(q.dataset.points), xlabel: q.dataset.xlabel, ylabel: q.dataset.ylabel, line };
    });
    check("xy_plot", got.points === E.xy.points && got.xlabel === E.xy.xlabel && got.ylabel === E.xy.ylabel && got.line > 200,
      `got ${JSON.stringify(got)}, expected ${JSON.stringify(E.xy)} and more than 200 pixels of the line`);
    await p.screenshot({ path: shot.replace(/\.png$/, "_xy.png"), fullPage: true });
  }

  // zoom in one panel: every panel's time axis follows
  await p.evaluate(() => window.diagcViewer.panels[0].u.setScale("x", { min: 0.2, max: 0.4 }));
  const scales = await p.evaluate(() => window.diagcViewer.panels.map((q) => [q.u.scales.x.min, q.u.scales.x.max]));
  check("shared_zoom", scales.every(([a, b]) => a === 0.2 && b === 0.4), JSON.stringify(scales));
  if (E.marks) {
    const m = await marks();
    check("event_marks_zoomed", m.every((x) => x === E.marks.zoomed), `marks per panel ${JSON.stringify(m)}, expected ${E.marks.zoomed}`);
    // switching an event off takes its marks away
    await p.click(`input[data-event="${E.marks.off}"]`);
    const off = await marks();
    check("event_marks_off", off.every((x) => x === E.marks.without), `marks per panel ${JSON.stringify(off)}, expected ${E.marks.without}`);
    await p.click(`input[data-event="${E.marks.off}"]`);
  }
  if (E.xy) {
    const n = await p.evaluate(() => Number(document.querySelector(".panel.xy").dataset.points));
    check("xy_follows_zoom", n === E.xy.zoomed, `${n} points in 0.2 .. 0.4 s, expected ${E.xy.zoomed}`);
  }
  await p.evaluate(() => { const q = window.diagcViewer.panels[0]; q.u.setScale("x", { min: q.u.data[0][0], max: q.u.data[0][q.u.data[0].length - 1] }); });
  await p.evaluate(() => window.diagcViewer.enter(""));
  await p.screenshot({ path: shot, fullPage: true });
  const png = statSync(shot).size;
  check("screenshot", png > 10000, `${shot} has ${png} bytes`);
} catch (e) {
  failures++;
  console.log(`FAIL viewer.${name}.browser: ${String(e).split("\n")[0]}`);
} finally {
  await browser.close();
}
process.exit(failures ? 1 : 0);
