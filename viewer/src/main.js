// main.js: the viewer's entry point (bundled by esbuild into
// build/viewer/viewer.js; docs/viewer.md).  The page that `diagc view`
// writes holds the data as JSON in <script id="diagc-data">: {model: the
// description of `diagc info --json`, run: the CSV's columns, title}.
//
// The page is a set of views, each a module with its own part of the
// page: the diagram (diagram.js, with inspector.js beside it) and the
// plots (plots.js), and worlds in 3D (world.js), drawn when the page has
// worlds (data.worlds: cli/page_world.lua).
import "./style.css";
import { drawWorlds } from "./world.js";
import { unpackRun } from "./run_data.js";
import { buildModel, resolveSource } from "./model.js";
import { drawDiagram } from "./diagram.js";
import { showSystem, staleBlocks } from "./inspector.js";
import { drawPlots } from "./plots.js";
import { drawCacheGraph } from "./cachegraph.js";

function h(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function start() {
  const data = JSON.parse(document.getElementById("diagc-data").textContent);
  unpackRun(data.run);
  const m = buildModel(data.model);
  m.resolveSource = (from) => resolveSource(m, from);
  const app = document.getElementById("diagc-app");
  const head = h("header", null, app);
  h("h1", null, head, `${data.title}`);
  h("span", "summary", head, `model ${data.model.model}: ${m.systems.size - 1} systems, ` +
    `${data.model.loggers.length} logged ports, ${data.run.rows} samples, t = ${data.run.t[0]} .. ${data.run.t[data.run.t.length - 1]} s`);
  const top = h("div", "top", app);
  const left = h("div", "diagram-pane", top);
  const crumbs = h("nav", "crumbs", left);
  const views = h("nav", "views", left); // the diagram pane's views: blocks, cache graph
  const canvas = h("div", "diagram-host", left);
  const inspector = h("aside", "inspector", top);
  const plots = h("div", "plots", app);
  const worldHost = h("div", "worlds"); // worlds in 3D (world.js), above the plots
  if (data.worlds) app.insertBefore(worldHost, plots);
  window.diagcWorlds = drawWorlds(data, worldHost); // for tests and the console: one object per world

  let shown = "", selected = "", view = "blocks";
  const expanded = new Set(); // the subdiagrams drawn open in place
  const ui = {
    enter(path) { shown = path; render(); ui.select(path); },
    expand(path) { expanded.add(path); render(); ui.select(path); },
    collapse(path) {
      for (const p of [...expanded]) if (p === path || p.startsWith(path + ".")) expanded.delete(p);
      render();
      ui.select(path);
    },
    select(path) {
      selected = path;
      if (view === "cache") ui.cache = drawCacheGraph(m, data.graph, path, canvas, ui);
      for (const b of canvas.querySelectorAll(".block, .cluster")) b.classList.toggle("selected", b.dataset.path === path);
      for (const b of canvas.querySelectorAll(".block, .cluster")) b.classList.remove("stale");
      showSystem(m, path, inspector, ui);
    },
    highlight(source) {
      const set = staleBlocks(m, shown, source);
      for (const b of canvas.querySelectorAll(".block, .cluster")) b.classList.toggle("stale", set.has(b.dataset.path));
      for (const b of inspector.querySelectorAll("button.source")) b.classList.toggle("on", b.dataset.source === source.name);
      // and the entries themselves, by bit
      const entries = new Map((m.desc.cache_entries || []).map((e) => [e.index, e]));
      let list = inspector.querySelector(".stale-list");
      if (!list) list = h("p", "stale-list", inspector.querySelector(".info-sources"));
      list.textContent = `a change of ${source.name} marks stale: ` + (source.stale.length === 0 ? "nothing" :
        source.stale.map((i) => { const e = entries.get(i); return `bit ${i} ${e.system === "" ? "" : e.system + "."}${e.ticket}`; }).join(", "));
      // in the cache view: the stale entries' nodes
      const stale = new Set(source.stale.map((i) => entries.get(i).system + "|" + entries.get(i).ticket));
      for (const n of canvas.querySelectorAll(".cg-node")) n.classList.toggle("stale", stale.has(n.dataset.system + "|" + n.dataset.name));
    },
    wire(signal, path) {
      for (const w of canvas.querySelectorAll(".wire")) w.classList.toggle("selected", w === path);
      for (const p of plots.querySelectorAll(".panel")) p.classList.remove("selected");
      const panel = [...plots.querySelectorAll(".panel")].find((p) => p.dataset.source === signal);
      if (panel) {
        panel.classList.add("selected");
        panel.scrollIntoView({ block: "nearest" });
      }
      inspector.textContent = "";
      h("h2", null, inspector, signal);
      h("p", "wire-info", inspector, panel ? `logged as ${panel.dataset.logger}: its plot is highlighted below`
        : "not logged; add log { \"" + signal + "\" } to the diagram to plot it");
    },
  };
  for (const [v, label] of [["blocks", "blocks"], ["cache", "cache graph of the selection"]]) {
    const b = h("button", "view", views, label);
    b.dataset.view = v;
    b.addEventListener("click", () => ui.view(v));
  }
  const markView = (v) => {
    view = v;
    for (const b of views.querySelectorAll("button.view")) b.classList.toggle("on", b.dataset.view === v);
  };
  ui.view = (v) => {
    markView(v);
    if (v === "blocks") render();
    ui.select(selected);
  };
  function render() {
    markView("blocks"); // entering or opening a subdiagram shows the blocks
    crumbs.textContent = "";
    const chain = [];
    for (let s = m.systems.get(shown); s; s = s.parent) chain.unshift(s);
    chain.forEach((s, i) => {
      const a = h("a", "crumb", crumbs, s.path === "" ? s.type : s.name);
      a.dataset.path = s.path;
      a.href = "#";
      a.addEventListener("click", (e) => { e.preventDefault(); ui.enter(s.path); });
      if (i < chain.length - 1) h("span", "sep", crumbs, " › ");
    });
    drawDiagram(m, m.systems.get(shown), canvas, ui, expanded);
  }
  render();
  ui.view("blocks");
  const panels = drawPlots(m, data.run, plots, data.firings);
  // for tests and the console: what was drawn
  window.diagcViewer = { model: m, panels, enter: ui.enter, expand: ui.expand, collapse: ui.collapse,
    select: ui.select, view: ui.view, cache: () => ui.cache };
  document.body.dataset.ready = "true";
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
