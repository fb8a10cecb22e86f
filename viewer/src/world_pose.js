// world_pose.js: the bodies' poses at every logged sample of a world, packed
// into one Float64Array (docs/viewer.md, "Worlds").  A pose is 12 numbers:
// R (row-major, world <- body) then the body's origin, as the world's
// `poses` port gives them.  The source, by preference:
//   "poses"    the world's `poses` port is logged: taken as it is;
//   "position" its `position` (q) is logged: the forward kinematics of the
//              generated C (world/kinematics.lua), from the same constant
//              joint frames (cli/page_world.lua), in double precision;
//   "body"     some bodies' own `B.pose` ports are logged: those bodies
//              move, the others stay where the initial q puts them;
//   "none"     nothing: every body at the initial q.
// Every sample the source holds is a frame (rows where it is empty, from a
// logger of another period, are not): nothing is decimated.

// C = A B (3x3, row-major)
function mul33(A, B, C) {
  for (let i = 0; i < 3; i++) {
    for (let k = 0; k < 3; k++) {
      C[3 * i + k] = A[3 * i] * B[k] + A[3 * i + 1] * B[3 + k] + A[3 * i + 2] * B[6 + k];
    }
  }
  return C;
}

// R of a unit quaternion w x y z (world/spatial.lua's quat_rot)
export function quatRot(w, x, y, z, R) {
  R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z); R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z); R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y); R[7] = 2 * (y * z + w * x); R[8] = 1 - 2 * (x * x + y * y);
  return R;
}

// R = Rz(yaw) Ry(pitch) Rx(roll) (URDF's rpy; world/fold.lua's rpy)
export function rpyRot(r, p, y, R) {
  const cr = Math.cos(r), sr = Math.sin(r), cp = Math.cos(p), sp = Math.sin(p), cy = Math.cos(y), sy = Math.sin(y);
  R[0] = cy * cp; R[1] = cy * sp * sr - sy * cr; R[2] = cy * sp * cr + sy * sr;
  R[3] = sy * cp; R[4] = sy * sp * sr + cy * cr; R[5] = sy * sp * cr - cy * sr;
  R[6] = -sp; R[7] = cp * sr; R[8] = cp * cr;
  return R;
}

// the poses of every body for one q, into X at offset off (12 per body)
export function kinematics(bodies, q, qoff, X, off) {
  const L = new Float64Array(9), M = new Float64Array(9), t = new Float64Array(3);
  for (let i = 0; i < bodies.length; i++) {
    const b = bodies[i], Ro = b.R, a = b.axis, k = qoff + b.q;
    t[0] = b.o[0]; t[1] = b.o[1]; t[2] = b.o[2];
    if (b.joint === "revolute") {
      // aa' + cos q (I - aa') + sin q [a]x
      const c = Math.cos(q[k]), s = Math.sin(q[k]);
      for (let r = 0; r < 3; r++) {
        for (let col = 0; col < 3; col++) M[3 * r + col] = a[r] * a[col] * (1 - c) + (r === col ? c : 0);
      }
      M[1] -= s * a[2]; M[2] += s * a[1]; M[3] += s * a[2]; M[5] -= s * a[0]; M[6] -= s * a[1]; M[7] += s * a[0];
      mul33(Ro, M, L);
    } else if (b.joint === "ball" || b.joint === "free") {
      const j = b.joint === "free" ? k + 3 : k;
      mul33(Ro, quatRot(q[j], q[j + 1], q[j + 2], q[j + 3], M), L);
      if (b.joint === "free") {
        for (let r = 0; r < 3; r++) t[r] += Ro[3 * r] * q[k] + Ro[3 * r + 1] * q[k + 1] + Ro[3 * r + 2] * q[k + 2];
      }
    } else {
      L.set(Ro);
      if (b.joint === "prismatic") {
        for (let r = 0; r < 3; r++) t[r] += (Ro[3 * r] * a[0] + Ro[3 * r + 1] * a[1] + Ro[3 * r + 2] * a[2]) * q[k];
      }
    }
    const o = off + 12 * i;
    if (b.parent < 0) {
      for (let r = 0; r < 9; r++) X[o + r] = L[r];
      for (let r = 0; r < 3; r++) X[o + 9 + r] = t[r];
    } else {
      const p = off + 12 * b.parent;
      for (let r = 0; r < 3; r++) {
        for (let c = 0; c < 3; c++) {
          X[o + 3 * r + c] = X[p + 3 * r] * L[c] + X[p + 3 * r + 1] * L[3 + c] + X[p + 3 * r + 2] * L[6 + c];
        }
        X[o + 9 + r] = X[p + 9 + r] + X[p + 3 * r] * t[0] + X[p + 3 * r + 1] * t[1] + X[p + 3 * r + 2] * t[2];
      }
    }
  }
}

// the run's columns of the logger whose source is `port`, or null
function columnsOf(data, port) {
  const l = data.model.loggers.find((x) => x.source === port);
  if (!l) return null;
  return l.columns.map((c) => data.run.values[data.run.columns.indexOf(c) - 1]);
}

// the rows where column `col` holds a number
function rowsOf(col) {
  const rows = [];
  for (let i = 0; i < col.length; i++) if (col[i] !== null && col[i] === col[i]) rows.push(i);
  return rows;
}

// {source, times: Float64Array(n), X: Float64Array(n * bodies * 12), missing:
// [the moving bodies whose poses are not logged]} for world w
export function packPoses(data, w) {
  const nb = w.bodies.length, t = data.run.t;
  const q0 = Float64Array.from(w.q);
  const poses = columnsOf(data, w.poses), position = columnsOf(data, w.position);
  const bodyCols = w.bodies.map((b) => (b.pose ? columnsOf(data, b.pose) : null));
  const moving = w.bodies.filter((b) => b.pose);
  let source, rows;
  if (poses) { source = "poses"; rows = rowsOf(poses[0]); }
  else if (position && position.length > 0) { source = "position"; rows = rowsOf(position[0]); }
  else if (position) { source = "position"; rows = t.map((_, i) => i); } // nq = 0: nothing moves
  else if (bodyCols.some((c) => c)) { source = "body"; rows = rowsOf(bodyCols.find((c) => c)[0]); }
  else { source = "none"; rows = [0]; }
  const n = rows.length;
  const times = new Float64Array(n), X = new Float64Array(n * nb * 12);
  const q = Float64Array.from(q0), R = new Float64Array(9);
  const rest = new Float64Array(nb * 12);
  kinematics(w.bodies, q0, 0, rest, 0);
  for (let f = 0; f < n; f++) {
    const row = rows[f], off = f * nb * 12;
    times[f] = t[row];
    if (source === "poses") {
      for (let k = 0; k < nb * 12; k++) X[off + k] = poses[k][row];
    } else if (source === "position") {
      for (let k = 0; k < position.length; k++) q[k] = position[k][row];
      kinematics(w.bodies, q, 0, X, off);
    } else {
      X.set(rest, off);
      if (source === "none") continue;
      bodyCols.forEach((c, i) => {
        if (!c || c[0][row] === null) return;
        const o = off + 12 * i;
        if (c.length === 7) quatRot(c[3][row], c[4][row], c[5][row], c[6][row], R);
        else rpyRot(c[3][row], c[4][row], c[5][row], R);
        X.set(R, o);
        X[o + 9] = c[0][row]; X[o + 10] = c[1][row]; X[o + 11] = c[2][row];
      });
    }
  }
  const missing = source === "body" ? moving.filter((b) => !bodyCols[w.bodies.indexOf(b)]).map((b) => b.name)
    : source === "none" ? moving.map((b) => b.name) : [];
  return { source, times, X, missing };
}

// the logged contacts of world w (its `contacts` port: the number n, then
// x y z nx ny nz depth pn per slot), or null when they are not logged:
// {times, at(f) -> [{p, n, depth, pn}] of sample f}
export function packContacts(data, w) {
  const c = w.contacts ? columnsOf(data, w.contacts) : null;
  if (!c) return null;
  const rows = rowsOf(c[0]);
  return {
    times: Float64Array.from(rows, (r) => data.run.t[r]),
    slots: (c.length - 1) / 8,
    at(f) {
      const r = rows[f], n = Math.min(c[0][r], (c.length - 1) / 8), out = [];
      for (let k = 0; k < n; k++) {
        const v = (j) => c[1 + 8 * k + j][r];
        out.push({ p: [v(0), v(1), v(2)], n: [v(3), v(4), v(5)], depth: v(6), pn: v(7) });
      }
      return out;
    },
  };
}
