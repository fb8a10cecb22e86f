// model.js: the model as the viewer draws it, from the description that
// `diagc info --json` prints (generator/diagc/cli/info.lua's describe):
// the system tree, each diagram's blocks and wires, what each logger
// plots, and which logged signals are discrete (drawn as steps: the
// description's loggers say).

export function join(a, b) { return a === "" ? b : a + "." + b; }

export function buildModel(d) {
  const systems = new Map(); // path -> {path, name, kind, type, parent, children, inputs, outputs}
  const visit = (n, parent) => {
    const s = { path: n.path, name: n.name, kind: n.kind, type: n.type, parent,
      children: [], inputs: [], outputs: [] };
    systems.set(n.path, s);
    for (const c of n.systems) s.children.push(visit(c, s));
    return s;
  };
  const root = visit(d.systems, null);
  for (const p of d.ports) {
    const s = systems.get(p.system);
    if (!s) continue;
    (p.direction === "input" ? s.inputs : s.outputs).push(p);
  }
  // wires, by the diagram they are drawn in: {from: {system, port}, to: {system, port}}
  // (a diagram's own path as system: its boundary port)
  const wires = new Map();
  const add = (diagram, w) => {
    if (!wires.has(diagram)) wires.set(diagram, []);
    wires.get(diagram).push(w);
  };
  for (const p of d.ports) {
    if (!p.source) continue;
    const s = systems.get(p.system);
    if (p.direction === "input" && s.parent) {
      add(s.parent.path, { from: p.source, to: { system: p.system, port: p.name }, size: p.size });
    } else if (p.direction === "output" && s.kind === "diagram") {
      add(p.system, { from: p.source, to: { system: p.system, port: p.name }, size: p.size });
    }
  }
  const loggerBySource = new Map();
  for (const l of d.loggers) loggerBySource.set(l.source, l);
  const m = { desc: d, root, systems, wires, loggerBySource };
  // whether a logged signal changes only at discrete updates: no change
  // of time, continuous state or a model input marks it stale (the masks;
  // cli/info.lua computes it for each logger)
  m.isDiscrete = (sourcePath) => { const l = loggerBySource.get(sourcePath); return !!(l && l.discrete); };
  return m;
}

// The signal a wire carries, as a logger names it: follows exported ports
// (a diagram's input to where it comes from, a diagram's output to the
// port it exports) until a logged port is found; else the wire's own port.
export function resolveSource(m, from) {
  const first = join(from.system, from.port);
  let cur = from;
  for (let depth = 0; cur && depth < 100; depth++) {
    const s = m.systems.get(cur.system);
    if (!s) break;
    const input = s.kind === "diagram" ? s.inputs.find((p) => p.name === cur.port) : null;
    const out = s.outputs.find((p) => p.name === cur.port);
    const path = join(cur.system, cur.port);
    if (!input && m.loggerBySource.has(path)) return path;
    cur = input ? input.source : out ? out.source : null;
  }
  return first;
}
