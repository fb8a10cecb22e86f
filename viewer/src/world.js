// world.js: a world in 3D (docs/viewer.md, "Worlds"): a three.js replay of
// the run from the world's logged poses (world_pose.js), its bodies drawn
// with their collision shapes (cli/page_world.lua), a ground grid, and
// play, pause, scrub, speed and a camera that follows a body.  One panel
// per world; drawWorlds returns an object per world for tests and the
// console (window.diagcWorlds).
import "./world.css";
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { packPoses, packContacts } from "./world_pose.js";
import { shapeMeshes, markerMeshes } from "./world_shapes.js";
import { meshGeometries, visualMeshes } from "./world_visuals.js";

function h(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

// a Matrix4 from the pose at X[o] (R row-major, then the origin)
function poseMatrix(X, o, m) {
  return m.set(X[o], X[o + 1], X[o + 2], X[o + 9], X[o + 3], X[o + 4], X[o + 5], X[o + 10],
    X[o + 6], X[o + 7], X[o + 8], X[o + 11], 0, 0, 0, 1);
}

// the largest index f with times[f] <= t (0 if none)
function frameAt(times, t) {
  let lo = 0, hi = times.length - 1;
  if (t >= times[hi]) return hi;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (times[mid] <= t) lo = mid; else hi = mid - 1;
  }
  return lo;
}

const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 4];

// software rasterizers: Chromium's SwiftShader, Mesa's llvmpipe and softpipe
const SOFTWARE = /swiftshader|llvmpipe|softpipe|software/i;

function rendererName(r) {
  const gl = r.getContext();
  const ext = gl.getExtension("WEBGL_debug_renderer_info");
  return String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
}

function drawWorld(data, w, host) {
  const P = packPoses(data, w);
  const CT = packContacts(data, w);
  const nb = w.bodies.length, n = P.times.length;
  const panel = h("section", "world", host);
  panel.dataset.world = w.path;
  const head = h("div", "world-head", panel);
  h("span", "world-title", head, `${w.path}: world "${w.name}", ${nb} bodies`);
  const note = h("span", "world-note", head);
  if (P.source === "none") {
    note.textContent = `no poses logged: add log { "${w.position}" } (or "${w.poses}") to the diagram to replay it; ` +
      "the bodies are drawn at their initial positions";
  } else if (P.missing.length > 0) {
    note.textContent = `not logged, drawn at their initial poses: ${P.missing.join(", ")} (log { "${w.position}" } moves them all)`;
  } else {
    note.textContent = `${n} frames from ${P.source === "poses" ? w.poses : P.source === "position" ? w.position + " (q)" : "the bodies' poses"}`;
  }
  const view = h("div", "world-view", panel);
  const bar = h("div", "world-bar", panel);
  const play = h("button", "world-play", bar, "▶");
  const scrub = h("input", "world-scrub", bar);
  Object.assign(scrub, { type: "range", min: 0, max: Math.max(0, n - 1), step: 1, value: 0 });
  const clock = h("span", "world-time", bar);
  const speed = h("select", "world-speed", bar);
  for (const s of SPEEDS) { const o = h("option", null, speed, `${s}×`); o.value = s; if (s === 1) o.selected = true; }
  h("label", null, bar, "follow");
  const follow = h("select", "world-follow", bar);
  h("option", null, follow, "nothing").value = "-1";
  w.bodies.forEach((b, i) => { if (b.pose) h("option", null, follow, b.name).value = String(i); });
  // visual geometry (a URDF's <visual>s) where a body has it, else its
  // collision shapes; the toggle shows every body's collision shapes
  const hasVisuals = w.bodies.some((b) => b.visuals);
  let geometry = null;
  if (hasVisuals) {
    const label = h("label", "world-geometry", bar, "show ");
    geometry = h("select", null, label);
    h("option", null, geometry, "visual").value = "visual";
    h("option", null, geometry, "collision").value = "collision";
  }
  if (w.visual_notes) {
    const vn = h("div", "world-visual-note", panel, w.visual_notes.length === 1 ? w.visual_notes[0]
      : `visual geometry: ${w.visual_notes.length} notes (all in this line's tooltip); the first: ${w.visual_notes[0]}`);
    vn.title = w.visual_notes.join("\n");
  }
  // the contacts of the current step, on request, when the run logged them
  let showContacts = null;
  if (CT) {
    const label = h("label", "world-contacts", bar);
    showContacts = h("input", null, label);
    showContacts.type = "checkbox";
    label.appendChild(document.createTextNode(" contacts"));
  }

  // the scene: z up, as the world's frame
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xf4f6f8);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x8d8d8d, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 1.6);
  sun.position.set(3, -5, 8);
  scene.add(sun);
  // the extent of the motion (every frame's origins) and the shapes
  const box = new THREE.Box3();
  const v = new THREE.Vector3();
  for (let k = 0; k < n * nb; k++) box.expandByPoint(v.set(P.X[12 * k + 9], P.X[12 * k + 10], P.X[12 * k + 11]));
  const geos = meshGeometries(w);
  const collisionParts = [], visualParts = [];
  const groups = w.bodies.map((b, i) => {
    const g = new THREE.Group();
    g.name = b.name;
    g.matrixAutoUpdate = false;
    const col = new THREE.Group(), vis = new THREE.Group();
    const meshes = b.shapes.length > 0 ? shapeMeshes(b, i) : markerMeshes(b, i);
    for (const m of meshes) col.add(m);
    for (const m of visualMeshes(b, geos, w)) vis.add(m);
    g.add(col, vis);
    collisionParts.push(col);
    visualParts.push(b.visuals ? vis : null);
    scene.add(g);
    return g;
  });
  // visual: each body with visuals shows them instead of its collision shapes
  function setGeometry(mode) {
    const visual = mode === "visual" && hasVisuals;
    groups.forEach((g, i) => {
      const vis = visualParts[i];
      if (vis) vis.visible = visual;
      collisionParts[i].visible = !(visual && vis);
    });
    if (geometry) geometry.value = visual ? "visual" : "collision";
  }
  setGeometry("visual");
  const size = new THREE.Vector3();
  box.getSize(size);
  const reach = Math.max(0.5, size.length() / 2 + 0.3);
  const center = new THREE.Vector3();
  box.getCenter(center);
  // a ground grid on z = 0 in cells of a power of ten, 10 to 100 across
  const span = Math.max(2, 2 * Math.ceil(Math.max(Math.abs(box.min.x), Math.abs(box.max.x), Math.abs(box.min.y),
    Math.abs(box.max.y), reach)));
  const cell = Math.pow(10, Math.floor(Math.log10(span / 10)));
  const grid = new THREE.GridHelper(span, Math.round(span / cell), 0x78909c, 0xc5ced4);
  grid.rotation.x = Math.PI / 2;
  grid.material.transparent = true; // drawn after the ground plane, over it
  grid.renderOrder = 1;
  scene.add(grid);
  for (const g of groups) g.traverse((m) => { if (m.userData.plane) m.scale.set(span, span, 1); });
  scene.add(new THREE.AxesHelper(Math.min(1, span / 8)));

  // contact points (red balls) and normals (lines from the point along the
  // normal, which points from the pair's second shape to its first)
  let points = null, normals = null;
  if (CT) {
    points = new THREE.InstancedMesh(new THREE.SphereGeometry(reach / 150, 12, 8),
      new THREE.MeshBasicMaterial({ color: 0xd32f2f }), Math.max(1, CT.slots));
    points.count = 0;
    points.frustumCulled = false;
    const geo = new THREE.BufferGeometry();
    geo.setAttribute("position", new THREE.BufferAttribute(new Float32Array(6 * Math.max(1, CT.slots)), 3));
    normals = new THREE.LineSegments(geo, new THREE.LineBasicMaterial({ color: 0xd32f2f }));
    normals.frustumCulled = false;
    scene.add(points, normals);
  }
  let drawnContacts = { t: null, list: [] };
  function contactsAt(time) {
    const on = CT && showContacts.checked;
    const list = on ? CT.at(frameAt(CT.times, time)) : [];
    const arrow = reach / 8, pos = normals && normals.geometry.attributes.position;
    list.forEach((c, k) => {
      points.setMatrixAt(k, new THREE.Matrix4().makeTranslation(c.p[0], c.p[1], c.p[2]));
      for (let r = 0; r < 3; r++) { pos.array[6 * k + r] = c.p[r]; pos.array[6 * k + 3 + r] = c.p[r] + arrow * c.n[r]; }
    });
    if (CT) {
      points.count = list.length;
      points.instanceMatrix.needsUpdate = true;
      pos.needsUpdate = true;
      normals.geometry.setDrawRange(0, 2 * list.length);
    }
    drawnContacts = { t: on ? CT.times[frameAt(CT.times, time)] : null, list };
  }
  const camera = new THREE.PerspectiveCamera(45, 16 / 9, reach / 100, reach * 100);
  camera.up.set(0, 0, 1);
  camera.position.set(center.x + 1.6 * reach, center.y - 2.4 * reach, center.z + 1.2 * reach);
  let renderer = null, gpu = null;
  try {
    renderer = new THREE.WebGLRenderer({ antialias: true });
    gpu = rendererName(renderer);
    // a software rasterizer (no GPU) pays for every sample of
    // multisampling on the CPU: there the canvas is drawn without it
    if (SOFTWARE.test(gpu)) {
      renderer.dispose();
      renderer.forceContextLoss();
      renderer = new THREE.WebGLRenderer({ antialias: false });
    }
  } catch (e) {
    h("p", "world-error", view, `this browser cannot draw WebGL (${e.message}): the 3D view is off; the replay's poses are still read`);
  }
  let controls = null;
  if (renderer) {
    // at most 2 pixels a CSS pixel: a 3x screen would draw 2.25 times as many for no visible gain
    renderer.setPixelRatio(Math.min(2, window.devicePixelRatio || 1));
    view.appendChild(renderer.domElement);
    controls = new OrbitControls(camera, renderer.domElement);
    controls.target.copy(center);
    controls.update();
    controls.addEventListener("change", () => request());
  }
  function resize() {
    if (!renderer) return;
    const width = view.clientWidth || 800, height = view.clientHeight || 450;
    renderer.setSize(width, height, false);
    renderer.domElement.style.width = "100%";
    renderer.domElement.style.height = "100%";
    camera.aspect = width / height;
    camera.updateProjectionMatrix();
    request();
  }

  let frame = 0, t = P.times[0], playing = false, last = null, pending = false, dirty = false;
  // renders: frames drawn; script: ms of script in the animation frames
  // (poses, three.js's draw calls); renderer: what draws them
  const stats = { renders: 0, script: 0, renderer: gpu, antialias: !!renderer && renderer.getContextAttributes().antialias };
  function show(f) {
    frame = Math.max(0, Math.min(n - 1, f));
    const off = frame * nb * 12;
    groups.forEach((g, i) => {
      poseMatrix(P.X, off + 12 * i, g.matrix);
      g.matrixWorldNeedsUpdate = true;
    });
    const k = Number(follow.value);
    if (k >= 0 && controls) {
      const o = off + 12 * k;
      v.set(P.X[o + 9], P.X[o + 10], P.X[o + 11]);
      camera.position.add(v.clone().sub(controls.target));
      controls.target.copy(v);
      controls.update();
    }
    if (CT) contactsAt(P.times[frame]);
    scrub.value = frame;
    clock.textContent = `t = ${P.times[frame].toFixed(3)} s  (frame ${frame + 1} / ${n})`;
    request();
  }
  function render() {
    dirty = false;
    if (!renderer) return;
    scene.updateMatrixWorld();
    renderer.render(scene, camera);
    stats.renders++;
  }
  // an animation frame, to draw (redraw: something changed) or, while
  // playing, to see whether the frame due now is another
  function request(redraw = true) {
    if (redraw) dirty = true;
    if (!pending) { pending = true; requestAnimationFrame(tick); }
  }
  function tick(now) {
    const t0 = performance.now();
    pending = false;
    if (playing) {
      if (last !== null) t += ((now - last) / 1000) * Number(speed.value);
      last = now;
      if (t >= P.times[n - 1]) { t = P.times[n - 1]; pause(); }
      const f = frameAt(P.times, t);
      if (f !== frame) show(f);
    }
    // drawn only when the frame or the view changed (a 0.1x replay of a
    // 100 Hz log shows a new sample every 0.1 s, not every redraw)
    if (dirty) render();
    stats.script += performance.now() - t0;
    if (playing) request(false);
  }
  function start() {
    if (n < 2) return;
    if (frame >= n - 1) { frame = 0; t = P.times[0]; }
    playing = true; last = null; play.textContent = "❚❚"; request();
  }
  function pause() { playing = false; play.textContent = "▶"; }
  play.addEventListener("click", () => (playing ? pause() : start()));
  scrub.addEventListener("input", () => { pause(); t = P.times[Number(scrub.value)]; show(Number(scrub.value)); });
  follow.addEventListener("change", () => show(frame));
  if (showContacts) showContacts.addEventListener("change", () => show(frame));
  if (geometry) geometry.addEventListener("change", () => { setGeometry(geometry.value); request(); });
  if (typeof ResizeObserver !== "undefined") new ResizeObserver(resize).observe(view);
  resize();
  show(0);

  return {
    path: w.path, source: P.source, frames: n, times: P.times, bodies: w.bodies.map((b) => b.name),
    play: start, pause, playing: () => playing, stats,
    setFrame: (f) => { pause(); t = P.times[f]; show(f); render(); },
    setTime: (time) => { pause(); t = time; show(frameAt(P.times, time)); render(); },
    setSpeed: (s) => { speed.value = String(s); },
    follow: (name) => { follow.value = String(w.bodies.findIndex((b) => b.name === name)); show(frame); },
    time: () => P.times[frame], frame: () => frame,
    // each body's drawn pose: R (row-major) and origin, from its group's matrix
    drawn: () => groups.map((g) => {
      g.updateMatrixWorld(true);
      const e = g.matrixWorld.elements; // column-major
      return { name: g.name, R: [e[0], e[4], e[8], e[1], e[5], e[9], e[2], e[6], e[10]], p: [e[12], e[13], e[14]] };
    }),
    // the contacts drawn now: the time of their sample and each one's point
    // and normal as drawn (read back from the instances and the lines)
    showContacts: (on) => { if (showContacts) { showContacts.checked = on; show(frame); } return !!showContacts; },
    contacts: () => {
      if (!CT) return null;
      const m = new THREE.Matrix4(), pos = normals.geometry.attributes.position.array, out = [];
      for (let k = 0; k < points.count; k++) {
        points.getMatrixAt(k, m);
        const e = m.elements, arrow = reach / 8;
        out.push({ p: [e[12], e[13], e[14]], n: [0, 1, 2].map((r) => (pos[6 * k + 3 + r] - pos[6 * k + r]) / arrow) });
      }
      return { t: drawnContacts.t, drawn: out };
    },
    // visual or collision geometry: what the toggle shows, and the visual
    // meshes drawn now (count, triangles) with each one's world matrix
    geometry: () => (geometry ? geometry.value : "collision"),
    setGeometry: (mode) => { setGeometry(mode); render(); },
    visuals: () => {
      let meshes = 0, triangles = 0;
      const drawn = [];
      groups.forEach((g, i) => {
        g.updateMatrixWorld(true);
        const vis = visualParts[i];
        if (!vis || !vis.visible) return;
        for (const m of vis.children) {
          meshes++;
          triangles += m.userData.triangles;
          const e = m.matrixWorld.elements;
          drawn.push({ body: g.name, type: m.userData.visual, M: [e[0], e[4], e[8], e[12], e[1], e[5], e[9], e[13], e[2], e[6], e[10], e[14]] });
        }
      });
      const collision = collisionParts.filter((c) => c.visible).length;
      return { meshes, triangles, files: geos.length, pageTriangles: w.triangles || 0, collisionBodies: collision, drawn };
    },
    camera: () => ({ position: camera.position.toArray(), target: controls ? controls.target.toArray() : null }),
    // the drawn canvas: its size and how many pixels differ from the background
    pixels: () => {
      if (!renderer) return null;
      render();
      const gl = renderer.getContext(), W = gl.drawingBufferWidth, H = gl.drawingBufferHeight;
      const px = new Uint8Array(W * H * 4);
      gl.readPixels(0, 0, W, H, gl.RGBA, gl.UNSIGNED_BYTE, px);
      const bg = scene.background.clone().convertLinearToSRGB();
      const b = [Math.round(bg.r * 255), Math.round(bg.g * 255), Math.round(bg.b * 255)];
      let differ = 0;
      const colours = new Set();
      for (let i = 0; i < px.length; i += 4) {
        if (Math.abs(px[i] - b[0]) + Math.abs(px[i + 1] - b[1]) + Math.abs(px[i + 2] - b[2]) > 12) differ++;
        if (i % 64 === 0) colours.add((px[i] >> 4) * 256 + (px[i + 1] >> 4) * 16 + (px[i + 2] >> 4));
      }
      return { width: W, height: H, differ, colours: colours.size };
    },
    // ms per frame to show and render `count` frames in a row: `js`, the
    // script's part (poses, three.js's draw calls); `drawn`, until the
    // pixels are there (a one-pixel read waits for the rasterizer)
    bench: (count) => {
      const one = new Uint8Array(4);
      const run = (wait) => {
        const t0 = performance.now();
        for (let k = 0; k < count; k++) {
          show(k % n);
          render();
          if (wait && renderer) { const gl = renderer.getContext(); gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, one); }
        }
        return (performance.now() - t0) / count;
      };
      return { js: run(false), drawn: run(true) };
    },
  };
}

// one panel per world; [] for a model without worlds
export function drawWorlds(data, host) {
  return (data.worlds || []).map((w) => drawWorld(data, w, host));
}
