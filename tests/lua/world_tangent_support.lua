-- tests/lua/world_tangent_support.lua: shared by world_tangent_test.lua and
-- tests/cli/world_tangent_cc.lua (loaded with dofile).  Compiles a world's
-- dynamics with its tangent derivatives (generator/diagc/world/tangent.lua)
-- in-process with TinyCC, and gives the primal quantities the derivatives
-- are checked against, computed from the generated dynamics only:
-- tau = M a + c, M y, the body velocities and J^T W from the point
-- Jacobians; the exact tangent increment q (+) d; central differences.
local ffi = require("ffi")
local host = require("diagc_host")
local tangent = require("diagc.world.tangent")
local S = dofile("tests/lua/world_support.lua")

local T = { S = S }

T.SIGS = {
  kinematics = { "void (*)(const double *, double *)", "const double *q, double *o1", "q, o1" },
  rnea = { "void (*)(const double *, const double *, const double *, double *, double *)",
    "const double *q, const double *v, const double *a, double *o1, double *o2", "q, v, a, MASS, o1, o2" },
  mvec = { "void (*)(const double *, const double *, double *)", "const double *q, const double *y, double *o1",
    "q, y, MASS, o1" },
  bvel = { "void (*)(const double *, const double *, double *)", "const double *q, const double *y, double *o1",
    "q, y, o1" },
  gforce = { "void (*)(const double *, const double *, double *)", "const double *q, const double *W, double *o1",
    "q, W, o1" },
}

-- exported wrappers of the tangent functions (MASS: the world's masses,
-- world_support.lua's P_tmass)
function T.wrappers(P)
  local out = {}
  for _, name in ipairs(tangent.FUNCTIONS) do
    local sig = T.SIGS[name]
    out[#out + 1] = string.format("void %s_t_d_%s(%s) { %s_d_%s(%s); }", P, name, sig[2], P, name,
      (sig[3]:gsub("MASS", P .. "_tmass")))
  end
  return table.concat(out, "\n") .. "\n"
end

-- the world compiled with its tangent functions: S.compile's table plus
-- w.d[name] and w.gen_seconds (the generation time of tangent.emit);
-- bjac: with the looped tangents' d_bjac too (w.d.bjac(X, Jb))
function T.compile(world, P, bjac)
  local t0 = os.clock()
  local fns = { unpack(tangent.FUNCTIONS) }
  if bjac then fns[#fns + 1] = "bjac" end
  local text = tangent.emit(world, P, { functions = fns })
  local gen = os.clock() - t0
  local unit = S.unit(world, P) .. "\n" .. text .. "\n" .. T.wrappers(P)
  if bjac then
    unit = unit .. string.format("void %s_t_d_bjac(const double *X, double *o1) { %s_d_bjac(X, o1); }\n", P, P)
  end
  local state, msgs = host.tcc_compile(unit, { options = "-Wall -Werror", name = P .. "_tangent.c",
    defines = { __STRICT_ANSI__ = true } })
  assert(state, msgs)
  local w = { f = require("diagc.world.dynamics").facts(world), fn = {}, d = {}, state = state, gen_seconds = gen,
    text = text }
  local NAMES = {
    kinematics = "void (*)(const double *, double *)",
    mass_matrix = "void (*)(const double *, const double *, double *)",
    bias = "void (*)(const double *, const double *, const double *, double *)",
    point_jacobian = "void (*)(int, const double *, const double *, const double *, double *)",
  }
  for name, ty in pairs(NAMES) do w.fn[name] = ffi.cast(ty, host.tcc_symbol(state, P .. "_t_" .. name)) end
  for name, sig in pairs(T.SIGS) do w.d[name] = ffi.cast(sig[1], host.tcc_symbol(state, P .. "_t_d_" .. name)) end
  if bjac then w.d.bjac = ffi.cast("void (*)(const double *, double *)", host.tcc_symbol(state, P .. "_t_d_bjac")) end
  return w
end

-- q (x) (cos |d|/2, sin |d|/2 d/|d|), normalized
local function turn(q, o, d)
  local n = math.sqrt(d[1] ^ 2 + d[2] ^ 2 + d[3] ^ 2)
  local c, s = math.cos(n / 2), n > 0 and math.sin(n / 2) / n or 0.5
  local bw, bx, by, bz = c, s * d[1], s * d[2], s * d[3]
  local w, x, y, z = q[o + 1], q[o + 2], q[o + 3], q[o + 4]
  local r = { w * bw - x * bx - y * by - z * bz, w * bx + x * bw + y * bz - z * by,
    w * by - x * bz + y * bw + z * bx, w * bz + x * by - y * bx + z * bw }
  local m = math.sqrt(r[1] ^ 2 + r[2] ^ 2 + r[3] ^ 2 + r[4] ^ 2)
  for k = 1, 4 do q[o + k] = r[k] / m end
end

-- q (+) d: the tangent increment of GRAD_API.md, exactly
function T.retract(world, f, q, d)
  local out = { unpack(q) }
  for i, b in ipairs(world.bodies) do
    local ty, q0, v0 = b.joint.type, f.q0[i], f.v0[i]
    if ty == "revolute" or ty == "prismatic" then out[q0 + 1] = q[q0 + 1] + d[v0 + 1] end
    if ty == "free" then
      for e = 1, 3 do out[q0 + e] = q[q0 + e] + d[v0 + e] end
      q0, v0 = q0 + 3, v0 + 3
    end
    if ty == "ball" or ty == "free" then turn(out, q0, { d[v0 + 1], d[v0 + 2], d[v0 + 3] }) end
  end
  return out
end

-- a deterministic generator (Park-Miller), uniform in [0, 1)
function T.rng(seed)
  local s = seed % 2147483647
  return function()
    s = (s * 16807) % 2147483647
    return (s - 1) / 2147483646
  end
end

-- a random state: q (unit quaternions), and vectors of the sizes asked
function T.random_q(world, f, rnd)
  local q = {}
  for k = 1, f.nq do q[k] = 3 * rnd() - 1.5 end
  for i, b in ipairs(world.bodies) do
    local ty, o = b.joint.type, f.q0[i]
    if ty == "free" then o = o + 3 end
    if ty == "ball" or ty == "free" then
      local n = math.sqrt(q[o + 1] ^ 2 + q[o + 2] ^ 2 + q[o + 3] ^ 2 + q[o + 4] ^ 2)
      for k = 1, 4 do q[o + k] = q[o + k] / n end
    end
  end
  return q
end

function T.random(n, rnd)
  local x = {}
  for k = 1, n do x[k] = 4 * rnd() - 2 end
  return x
end

-- the 6 x nv Jacobian of body b's spatial velocity (omega, v_o), from the
-- generated point Jacobians at the world origin and at e1, e2
function T.body_jacobian(w, q, b)
  local f = w.f
  local nv = f.nv
  local qa, X = S.arr(f.nq, q), S.arr(12 * f.nb)
  w.fn.kinematics(qa, X)
  local function pj(p)
    local J = S.arr(3 * nv)
    w.fn.point_jacobian(b, qa, X, S.arr(3, p), J)
    return S.list(J, 3 * nv)
  end
  local J0, J1, J2 = pj({ 0, 0, 0 }), pj({ 1, 0, 0 }), pj({ 0, 1, 0 })
  local Jb = {}
  for k = 1, nv do
    Jb[k] = J2[2 * nv + k] - J0[2 * nv + k]             -- omega_x = (v(e2) - v_o)_z
    Jb[nv + k] = -(J1[2 * nv + k] - J0[2 * nv + k])     -- omega_y = -(v(e1) - v_o)_z
    Jb[2 * nv + k] = J1[nv + k] - J0[nv + k]            -- omega_z = (v(e1) - v_o)_y
    for r = 0, 2 do Jb[(3 + r) * nv + k] = J0[r * nv + k] end
  end
  return Jb
end

-- the primal quantities the tangent functions differentiate (Lua lists)
function T.tau(w, q, v, a)
  local M, c = S.mass(w, q), S.bias(w, q, v)
  local out = {}
  for i = 1, w.f.nv do
    local s = c[i]
    for j = 1, w.f.nv do s = s + M[i][j] * a[j] end
    out[i] = s
  end
  return out
end

function T.mvec(w, q, y)
  local M = S.mass(w, q)
  local out = {}
  for i = 1, w.f.nv do
    local s = 0
    for j = 1, w.f.nv do s = s + M[i][j] * y[j] end
    out[i] = s
  end
  return out
end

function T.bvel(w, q, y)
  local out, nv = {}, w.f.nv
  for b = 1, w.f.nb do
    local Jb = T.body_jacobian(w, q, b)
    for r = 0, 5 do
      local s = 0
      for k = 1, nv do s = s + Jb[r * nv + k] * y[k] end
      out[#out + 1] = s
    end
  end
  return out
end

function T.gforce(w, q, W)
  local nv = w.f.nv
  local out = {}
  for k = 1, nv do out[k] = 0 end
  for b = 1, w.f.nb do
    local Jb = T.body_jacobian(w, q, b)
    for k = 1, nv do
      for r = 0, 5 do out[k] = out[k] + Jb[r * nv + k] * W[6 * (b - 1) + r + 1] end
    end
  end
  return out
end

-- central differences of F (a list-valued function of a tangent increment
-- d of length n): rows x n row-major, Richardson-extrapolated (h, h/2)
function T.fd(F, n, h)
  h = h or 1e-4
  local cols = {}
  local rows
  for k = 1, n do
    local function diff(s)
      local dp, dm = {}, {}
      for j = 1, n do dp[j], dm[j] = 0, 0 end
      dp[k], dm[k] = s, -s
      local yp, ym = F(dp), F(dm)
      local d = {}
      for r = 1, #yp do d[r] = (yp[r] - ym[r]) / (2 * s) end
      return d
    end
    local d1, d2 = diff(h), diff(h / 2)
    cols[k] = {}
    for r = 1, #d1 do cols[k][r] = (4 * d2[r] - d1[r]) / 3 end
    rows = #d1
  end
  local out = {}
  for r = 1, rows or 0 do
    for k = 1, n do out[(r - 1) * n + k] = cols[k][r] end
  end
  return out
end

-- runs a tangent function; outputs start as NaN so an unwritten entry shows
function T.call(w, name, args, sizes)
  local outs = {}
  for k, n in ipairs(sizes) do
    outs[k] = S.arr(n)
    for i = 0, n - 1 do outs[k][i] = 0 / 0 end
  end
  local cargs = {}
  for k, a in ipairs(args) do cargs[k] = S.arr(#a, a) end
  for k, o in ipairs(outs) do cargs[#args + k] = o end
  w.d[name](unpack(cargs, 1, #args + #sizes))
  local res = {}
  for k, n in ipairs(sizes) do res[k] = S.list(outs[k], n) end
  return res
end

return T
