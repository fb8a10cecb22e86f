-- tests/lua/world_support.lua: shared by the world_*_test.lua files (loaded
-- with dofile).  Compiles a world's generated dynamics in-process with
-- TinyCC behind exported wrappers, and gives small dense linear algebra,
-- the tangent-space ODE q' = G(q) v and RK4 for the physical checks.
local ffi = require("ffi")
local host = require("diagc_host")
local dyn = require("diagc.world.dynamics")

local S = {}

-- exported wrappers around the static functions (and an accel = M^-1 (tau - c))
-- A state or output of context c as a list (a size-1 one reads as a number).
function S.values(c, name)
  local x = c:get(name)
  return type(x) == "table" and x or { x }
end

-- The step Jacobians of world "w" in context c against guarded central
-- differences (world.md §7): no kink among the differences, status 0, and
-- every finite entry within tol (default 1e-8) relative to max(1, |fd|).
-- Returns the model's Jacobians.
function S.grad_agrees(c, tol)
  local J = c:step_jacobians("w")
  local F = c:step_jacobians("w", { jacobian = "fd" })
  assert(#F.fd_kinks == 0, "the differences crossed " .. #F.fd_kinks .. " kink(s)")
  assert(J.status == 0, "step_jacobians status " .. tostring(J.status))
  local e = 0
  for i = 1, #F.T do
    for j = 1, #F.T[i] do
      local r = F.T[i][j]
      if r == r then e = math.max(e, math.abs(J.T[i][j] - r) / math.max(1, math.abs(r))) end
    end
  end
  assert(e <= (tol or 1e-8), string.format("|model - fd| = %.3g (contacts %d, clamped %d)", e, J.contacts, J.clamped))
  return J
end

-- the world's joint damping, one value per moving joint in body order (the
-- d of PFX_damping: docs/world.md §6)
function S.damping(world)
  local f, d = dyn.facts(world), {}
  for i, b in ipairs(world.bodies) do
    if f.nqi[i] > 0 then d[#d + 1] = b.joint.damping or 0 end
  end
  return d
end

-- the inertial numbers of the bodies a dof moves, in body order, 10 per
-- body: m, com, inertia (the parameters mass, com and inertia packed as the
-- generated functions take them: docs/world.md §6)
function S.masses(world)
  local f, m = dyn.facts(world), {}
  for i, b in ipairs(world.bodies) do
    if #f.chain[i] > 0 then
      local c, I = b.com or { 0, 0, 0 }, b.inertia
      for _, x in ipairs({ b.mass, c[1], c[2], c[3], I[1], I[2], I[3], I[4] or 0, I[5] or 0, I[6] or 0 }) do
        m[#m + 1] = x
      end
    end
  end
  return m
end

local function clist(t)
  local out = {}
  for i, x in ipairs(t) do out[i] = string.format("%.17g", x) end
  if #out == 0 then out[1] = "0.0" end
  return #out, table.concat(out, ", ")
end

-- the wrappers pass the world's own masses (P_tmass) and damping
function S.wrappers(world, P)
  local f = dyn.facts(world)
  local nb = math.max(f.nb, 1)
  local nd, dl = clist(S.damping(world))
  local nm, ml = clist(S.masses(world))
  return table.concat({
    string.format("static const double %s_tmass[%d] = { %s };", P, nm, ml),
    string.format("void %s_t_kinematics(const double *q, double *X) { %s_kinematics(q, X); }", P, P),
    string.format("void %s_t_mass_matrix(const double *q, const double *X, double *M) { %s_mass_matrix(q, X, %s_tmass, M); }", P, P, P),
    string.format("void %s_t_bias(const double *q, const double *v, const double *X, double *c) { %s_bias(q, v, X, %s_tmass, c); }",
      P, P, P),
    string.format("void %s_t_damping(const double *d, const double *v, double *c) { %s_damping(d, v, c); }", P, P),
    string.format("void %s_t_factor(double *M) { %s_factor(M); }", P, P),
    string.format("void %s_t_solve(const double *LDL, double *x) { %s_solve(LDL, x); }", P, P),
    string.format("void %s_t_solve_cols(const double *LDL, double *X, int ncol, int ld) "
      .. "{ %s_solve_cols(LDL, X, ncol, ld); }", P, P),
    string.format("void %s_t_solve_tree(const double *LDL, int tree, double *x) { %s_solve_tree(LDL, tree, x); }", P, P),
    string.format("void %s_t_solve_tree3(const double *LDL, int tree, double *x, int stride) "
      .. "{ %s_solve_tree3(LDL, tree, x, stride); }", P, P),
    string.format("void %s_t_point_jacobian(int b, const double *q, const double *X, const double *p, double *J) "
      .. "{ %s_point_jacobian(b, q, X, p, J); }", P, P),
    string.format("void %s_t_point_jacobian_tree(int b, const double *q, const double *X, const double *p, double *J) "
      .. "{ %s_point_jacobian_tree(b, q, X, p, J); }", P, P),
    string.format("void %s_t_integrate(const double *q, const double *v, double dt, double *qn) "
      .. "{ %s_integrate(q, v, dt, qn); }", P, P),
    string.format("double %s_t_energy(const double *q, const double *v, const double *X) "
      .. "{ return %s_energy(q, v, X, %s_tmass); }", P, P, P),
    string.format("void %s_t_velocities(const double *q, const double *v, const double *X, double *V) "
      .. "{ %s_velocities(q, v, X, V); }", P, P),
    string.format([[
void %s_t_accel(const double *q, const double *v, const double *tau, double *a)
{
  static const double d[%d] = { %s };
  double X[%d], M[%d];
  int k;
  %s_kinematics(q, X);
  %s_mass_bias(q, v, X, %s_tmass, M, a); /* the step's way: both at once */
  %s_damping(d, v, a);
  for (k = 0; k < %d; ++k) a[k] = tau[k] - a[k];
  %s_factor(M);
  %s_solve(M, a);
}]], P, nd, dl, 12 * nb, math.max(f.nm, 1), P, P, P, P, f.nv, P, P),
  }, "\n") .. "\n"
end

local NAMES = {
  kinematics = "void (*)(const double *, double *)",
  mass_matrix = "void (*)(const double *, const double *, double *)",
  bias = "void (*)(const double *, const double *, const double *, double *)",
  damping = "void (*)(const double *, const double *, double *)",
  factor = "void (*)(double *)",
  solve = "void (*)(const double *, double *)",
  solve_cols = "void (*)(const double *, double *, int, int)",
  solve_tree = "void (*)(const double *, int, double *)",
  solve_tree3 = "void (*)(const double *, int, double *, int)",
  point_jacobian = "void (*)(int, const double *, const double *, const double *, double *)",
  point_jacobian_tree = "void (*)(int, const double *, const double *, const double *, double *)",
  integrate = "void (*)(const double *, const double *, double, double *)",
  energy = "double (*)(const double *, const double *, const double *)",
  velocities = "void (*)(const double *, const double *, const double *, double *)",
  accel = "void (*)(const double *, const double *, const double *, double *)",
}

-- the C unit of a world: generated text + wrappers
function S.unit(world, P)
  return dyn.emit(world, P, { functions = dyn.ORDER }) .. "\n" .. S.wrappers(world, P)
end

-- compiles a world; returns { f = facts, fn = {name = cfunction}, state = }
function S.compile(world, P)
  P = P or "w"
  local state, msgs = host.tcc_compile(S.unit(world, P), { options = "-Wall -Werror", name = P .. ".c",
    defines = { __STRICT_ANSI__ = true } })
  assert(state, msgs)
  local w = { f = dyn.facts(world), fn = {}, state = state, damp = S.damping(world) }
  for name, ty in pairs(NAMES) do
    w.fn[name] = ffi.cast(ty, host.tcc_symbol(state, P .. "_t_" .. name))
  end
  return w
end

function S.arr(n, init)
  local a = ffi.new("double[?]", math.max(n, 1))
  for i = 1, #(init or {}) do a[i - 1] = init[i] end
  return a
end

function S.list(a, n)
  local t = {}
  for i = 1, n do t[i] = a[i - 1] end
  return t
end

-- M(q) as a dense Lua matrix (1-based rows) from its blocks per subtree
-- (f.mindex; the entries between subtrees are not stored: 0)
function S.mass(w, q)
  local f = w.f
  local X, M = S.arr(12 * f.nb), S.arr(f.nm)
  w.fn.kinematics(S.arr(f.nq, q), X)
  w.fn.mass_matrix(S.arr(f.nq, q), X, M)
  local out = {}
  for i = 1, f.nv do
    out[i] = {}
    for j = 1, f.nv do
      local k = f.mindex(i - 1, j - 1)
      out[i][j] = k and M[k] or 0
    end
  end
  return out
end

function S.bias(w, q, v)
  local f = w.f
  local X, c = S.arr(12 * f.nb), S.arr(f.nv)
  local qa = S.arr(f.nq, q)
  w.fn.kinematics(qa, X)
  w.fn.bias(qa, S.arr(f.nv, v), X, c)
  -- with the joints' damping at the world's values (PFX_damping; not in
  -- the tangent tests' table, whose d_rnea differentiates the bias alone)
  if w.fn.damping then w.fn.damping(S.arr(#w.damp, w.damp), S.arr(f.nv, v), c) end
  return S.list(c, f.nv)
end

function S.energy(w, q, v)
  local f = w.f
  local X = S.arr(12 * f.nb)
  local qa = S.arr(f.nq, q)
  w.fn.kinematics(qa, X)
  return w.fn.energy(qa, S.arr(f.nv, v), X)
end

function S.poses(w, q)
  local X = S.arr(12 * w.f.nb)
  w.fn.kinematics(S.arr(w.f.nq, q), X)
  return S.list(X, 12 * w.f.nb)
end

-- dense solve by Gaussian elimination with partial pivoting
function S.dense_solve(A, b)
  local n = #b
  local M, x = {}, {}
  for i = 1, n do M[i] = {}; for j = 1, n do M[i][j] = A[i][j] end; x[i] = b[i] end
  for k = 1, n do
    local p = k
    for i = k + 1, n do if math.abs(M[i][k]) > math.abs(M[p][k]) then p = i end end
    M[k], M[p], x[k], x[p] = M[p], M[k], x[p], x[k]
    for i = k + 1, n do
      local r = M[i][k] / M[k][k]
      for j = k, n do M[i][j] = M[i][j] - r * M[k][j] end
      x[i] = x[i] - r * x[k]
    end
  end
  for i = n, 1, -1 do
    local s = x[i]
    for j = i + 1, n do s = s - M[i][j] * x[j] end
    x[i] = s / M[i][i]
  end
  return x
end

-- Cholesky succeeds (symmetric positive definite)?
function S.spd(A)
  local n, L = #A, {}
  for i = 1, n do
    L[i] = {}
    for j = 1, i do
      local s = A[i][j]
      for k = 1, j - 1 do s = s - L[i][k] * L[j][k] end
      if i == j then
        if s <= 0 then return false end
        L[i][i] = math.sqrt(s)
      else
        L[i][j] = s / L[j][j]
      end
    end
  end
  return true
end

-- q' = G(q) v: the coordinates' time derivative (quaternion: q (0, w) / 2)
function S.qdot(world, f, q, v)
  local d = {}
  for i = 1, f.nq do d[i] = 0 end
  for i, b in ipairs(world.bodies) do
    local q0, v0, ty = f.q0[i], f.v0[i], b.joint.type
    if ty == "revolute" or ty == "prismatic" then d[q0 + 1] = v[v0 + 1] end
    if ty == "free" then
      for e = 1, 3 do d[q0 + e] = v[v0 + e] end
      q0, v0 = q0 + 3, v0 + 3
    end
    if ty == "ball" or ty == "free" then
      local qw, qx, qy, qz = q[q0 + 1], q[q0 + 2], q[q0 + 3], q[q0 + 4]
      local wx, wy, wz = v[v0 + 1], v[v0 + 2], v[v0 + 3]
      d[q0 + 1] = 0.5 * (-qx * wx - qy * wy - qz * wz)
      d[q0 + 2] = 0.5 * (qw * wx + qy * wz - qz * wy)
      d[q0 + 3] = 0.5 * (qw * wy + qz * wx - qx * wz)
      d[q0 + 4] = 0.5 * (qw * wz + qx * wy - qy * wx)
    end
  end
  return d
end

-- RK4 of (q, v) with vdot = M^-1 (-c), n steps of h; returns q, v
function S.rk4(world, w, q, v, h, n)
  local f = w.f
  local nq, nv = f.nq, f.nv
  local qa, va, tau, acc = S.arr(nq), S.arr(nv), S.arr(nv), S.arr(nv)
  local function deriv(qq, vv)
    for i = 1, nq do qa[i - 1] = qq[i] end
    for i = 1, nv do va[i - 1] = vv[i] end
    w.fn.accel(qa, va, tau, acc)
    return S.qdot(world, f, qq, vv), S.list(acc, nv)
  end
  local function add(x, dx, s)
    local y = {}
    for i = 1, #x do y[i] = x[i] + s * dx[i] end
    return y
  end
  for _ = 1, n do
    local k1q, k1v = deriv(q, v)
    local k2q, k2v = deriv(add(q, k1q, h / 2), add(v, k1v, h / 2))
    local k3q, k3v = deriv(add(q, k2q, h / 2), add(v, k2v, h / 2))
    local k4q, k4v = deriv(add(q, k3q, h), add(v, k3v, h))
    for i = 1, nq do q[i] = q[i] + h / 6 * (k1q[i] + 2 * k2q[i] + 2 * k3q[i] + k4q[i]) end
    for i = 1, nv do v[i] = v[i] + h / 6 * (k1v[i] + 2 * k2v[i] + 2 * k3v[i] + k4v[i]) end
  end
  return q, v
end

-- 3x3 helpers on flat row-major Lua arrays
function S.rot_of(X, i) local o = 12 * (i - 1); return { unpack(X, o + 1, o + 9) } end
function S.pos_of(X, i) local o = 12 * (i - 1); return { X[o + 10], X[o + 11], X[o + 12] } end
function S.mv(R, x)
  return { R[1] * x[1] + R[2] * x[2] + R[3] * x[3], R[4] * x[1] + R[5] * x[2] + R[6] * x[3],
    R[7] * x[1] + R[8] * x[2] + R[9] * x[3] }
end
function S.mtv(R, x)
  return { R[1] * x[1] + R[4] * x[2] + R[7] * x[3], R[2] * x[1] + R[5] * x[2] + R[8] * x[3],
    R[3] * x[1] + R[6] * x[2] + R[9] * x[3] }
end
function S.cross(a, b) return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] } end
function S.inertia(I) return { I[1], I[4], I[5], I[4], I[2], I[6], I[5], I[6], I[3] } end

-- n cubes of 0.2 m and 1 kg stacked at rest on the ground (friction 0.6,
-- 1 ms steps, no gradients), `settings` added to the world's: the world
-- "tower" as system `sys` of diagram `name`, compiled in-process by the
-- test's diagc (`dg`: a dofile'd chunk does not see the test's globals)
function S.cube_stack(dg, n, settings, sys, name)
  local dsl, a = dg.dsl, 0.2
  local I = a * a / 6
  local items = { time_step = 1e-3, friction = 0.6, gradients = false }
  for k, v in pairs(settings or {}) do items[k] = v end
  items[#items + 1] = dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } }
  for i = 1, n do
    items[#items + 1] = dsl.body { "box" .. i, mass = 1, inertia = { I, I, I },
      joint = { "free", q = { 0, 0, a / 2 + (i - 1) * a, 1, 0, 0, 0 } },
      shapes = { { "box", size = { a, a, a } } } }
  end
  return dg.jit(dsl.diagram(name) { dsl.system { sys, dsl.world "tower" (items) } })
end

return S
