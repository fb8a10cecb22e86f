// model.js: the model as the viewer draws it, from the description that
// `diagc info --json` prints (generator/diagc/cli/info.lua's describe):
// the system tree, each diagram's blocks and wires, what each logger
// plots, and which logged signals are discrete (drawn as steps).

// "a.b.pn:k" -> ["a.b", "pn:k"]; "time" at the root -> ["", "time"]
export function splitTicket(path) {
  const colon = path.indexOf(":");
  const dot = path.lastIndexOf(".", colon < 0 ? path.length : colon);
  return dot < 0 ? ["", path] : [path.slice(0, dot), path.slice(dot + 1)];
}

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
  m.isDiscrete = discreteTest(d, systems);
  return m;
}

const CONTINUOUS = new Set(["time", "q", "v", "z", "xc", "x", "xcdot", "all_state"]);
const CONSTANT = new Set(["pn", "pa", "xd", "xa", "fixed", "accuracy", "numeric_parameters",
  "abstract_parameters", "all_parameters", "xd_all", "xa_all"]);

// Whether an output changes only at discrete updates: none of the tickets
// it depends on (through the cache entries' prerequisites and the wiring)
// is time or a continuous state.  Unknown tickets count as continuous.
function discreteTest(d, systems) {
  const entries = new Map();
  for (const e of d.cache_entries || []) entries.set(e.system + "|" + e.ticket, e);
  const memo = new Map();
  const ticket = (sys, tk, depth) => {
    if (depth > 200) return true;
    const kind = tk.split(":")[0];
    if (CONTINUOUS.has(tk)) return true;
    if (CONSTANT.has(kind)) return false;
    const s = systems.get(sys);
    if (kind === "input") return input(s, tk.slice(6), depth + 1);
    if (tk === "all_input_ports") return s ? s.inputs.some((p) => input(s, p.name, depth + 1)) : true;
    if (kind === "output") return output(sys, tk.slice(7), depth + 1);
    const e = entries.get(sys + "|" + tk);
    if (!e) return true;
    return e.prerequisites.some((p) => { const [a, b] = splitTicket(p); return ticket(a, b, depth + 1); });
  };
  const input = (s, name, depth) => {
    if (!s) return true;
    const p = s.inputs.find((q) => q.name === name);
    if (!p) return true;
    if (!p.source) return !/^fixed/.test(p.from); // a model input may change at any time
    return output(p.source.system, p.source.port, depth + 1);
  };
  const output = (sys, port, depth) => {
    const key = sys + "|" + port;
    if (memo.has(key)) return memo.get(key);
    memo.set(key, true); // (a cycle: continuous, conservatively)
    const s = systems.get(sys);
    let r = true;
    const p = s && s.outputs.find((q) => q.name === port);
    if (p && p.source) r = output(p.source.system, p.source.port, depth + 1);
    else if (entries.has(sys + "|outcache:" + port)) r = ticket(sys, "outcache:" + port, depth + 1);
    memo.set(key, r);
    return r;
  };
  // a logger's source path -> discrete?
  return (sourcePath) => {
    const [sys, port] = splitTicket(sourcePath);
    return !output(sys, port, 0);
  };
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
