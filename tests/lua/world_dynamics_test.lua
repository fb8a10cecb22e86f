-- The generated rigid-body dynamics (generator/diagc/world/*.lua) against
-- closed forms, the Lagrangian (central differences of M and the
-- potential), conservation laws and a dense solve, JIT-compiled with tcc
-- (the gcc/clang/tcc builds at the strict flags: tests/cli/world_dynamics_cc.sh).
local S = dofile("tests/lua/world_support.lua")
local W = dofile("tests/lua/world_worlds.lua")
local G, body, cartpole, double_pendulum = W.G, W.body, W.cartpole, W.double_pendulum
local FREE_COM, FREE_I, FREE_M, free_body, quat = W.FREE_COM, W.FREE_I, W.FREE_M, W.free_body, W.quat
local BALL_COM, BALL_I, BALL_M, ball_pendulum = W.BALL_COM, W.BALL_I, W.BALL_M, W.ball_pendulum
local mixed_chain, MIXED_Q, MIXED_V, unit_quats = W.mixed_chain, W.MIXED_Q, W.MIXED_V, W.unit_quats
local branching_tree = W.branching_tree
local dyn = require("diagc.world.dynamics")

test("world.cartpole_closed_form", function()
  local mc, mp, l = 1.3, 0.45, 0.8
  local w = S.compile(cartpole(mc, mp, l), "cp")
  for _, s in ipairs({ { 0.3, 0.7, -0.4, 1.9 }, { -1.1, 2.5, 0.8, -3.1 }, { 0, 0, 0, 0 }, { 2, -3.0, 5, 0.25 } }) do
    local x, th, xd, thd = s[1], s[2], s[3], s[4]
    local M = S.mass(w, { x, th })
    near(M, { { mc + mp, mp * l * math.cos(th) }, { mp * l * math.cos(th), mp * l * l } }, { rtol = 1e-12, atol = 1e-12 })
    near(S.bias(w, { x, th }, { xd, thd }), { -mp * l * thd * thd * math.sin(th), -mp * G * l * math.sin(th) },
      { rtol = 1e-12, atol = 1e-12 })
  end
end)

-- c from the Lagrangian: Mdot v - 1/2 d(v'Mv)/dq + dV/dq (+ D v), by central
-- differences of M and of the potential (energy at v = 0); revolute and
-- prismatic joints only (q' = v)
local function lagrangian_bias(w, q, v, damping)
  local n, h = #q, 1e-6
  local zero = {}
  for i = 1, n do zero[i] = 0 end
  local dM, dV = {}, {}
  for k = 1, n do
    local qp, qm = { unpack(q) }, { unpack(q) }
    qp[k], qm[k] = q[k] + h, q[k] - h
    local Mp, Mm = S.mass(w, qp), S.mass(w, qm)
    dM[k] = {}
    for i = 1, n do
      dM[k][i] = {}
      for j = 1, n do dM[k][i][j] = (Mp[i][j] - Mm[i][j]) / (2 * h) end
    end
    dV[k] = (S.energy(w, qp, zero) - S.energy(w, qm, zero)) / (2 * h)
  end
  local c = {}
  for i = 1, n do
    local s = dV[i] + (damping or 0) * v[i]
    for j = 1, n do
      for k = 1, n do s = s + dM[k][i][j] * v[k] * v[j] - 0.5 * v[j] * dM[i][j][k] * v[k] end
    end
    c[i] = s
  end
  return c
end

test("world.double_pendulum_lagrangian", function()
  local w = S.compile(double_pendulum(0.3), "dp")
  for _, s in ipairs({ { 0.3, -0.9, 1.2, -2.1 }, { 2.0, 1.1, -0.5, 3.3 }, { -0.4, 0.2, 0, 0 } }) do
    local q, v = { s[1], s[2] }, { s[3], s[4] }
    local M = S.mass(w, q)
    near(M[1][2], M[2][1], { rtol = 0 })
    truthy(S.spd(M), "M positive definite")
    near(S.bias(w, q, v), lagrangian_bias(w, q, v, 0.3), { rtol = 1e-6, atol = 1e-6 })
  end
end)

test("world.double_pendulum_energy_rk4", function()
  local world = double_pendulum(0)
  local w = S.compile(world, "dpe")
  local q, v = { 1.2, -0.7 }, { 0.5, 1.5 }
  local e0 = S.energy(w, q, v)
  q, v = S.rk4(world, w, q, v, 1e-4, 100000)
  local e1 = S.energy(w, q, v)
  near(e1, e0, { rtol = 1e-6 })
  truthy(math.abs(q[1] - 1.2) > 1e-3, "it moved")
end)

local function skew(a) return { 0, -a[3], a[2], a[3], 0, -a[1], -a[2], a[1], 0 } end
local function mm(A, B)
  local C = {}
  for i = 0, 2 do for k = 0, 2 do
    C[3 * i + k + 1] = A[3 * i + 1] * B[k + 1] + A[3 * i + 2] * B[3 + k + 1] + A[3 * i + 3] * B[6 + k + 1]
  end end
  return C
end
local function tr(A) return { A[1], A[4], A[7], A[2], A[5], A[8], A[3], A[6], A[9] } end

test("world.free_body_closed_form", function()
  local g = { 0.3, -0.5, -G }
  local w = S.compile(free_body(g), "fb")
  local m, c, Ic = FREE_M, FREE_COM, S.inertia(FREE_I)
  for _, s in ipairs({ { { 1, 2, 3 }, quat({ 1, 2, 3 }, 0.7), { 0.5, -1, 2, 1.5, -0.3, 0.8 } },
      { { -1, 0, 0.5 }, quat({ -0.2, 1, 0.1 }, 2.9), { 0, 0, 0, -2, 3, 1 } } }) do
    local q = { s[1][1], s[1][2], s[1][3], unpack(s[2]) }
    local v = s[3]
    local X = S.poses(w, q)
    local R = S.rot_of(X, 1)
    local cx = skew(c)
    local A = mm(R, cx) -- M_la = -m R [c]x
    local B = mm(tr(cx), cx) -- M_aa = Ic + m [c]x' [c]x
    local Mx = {}
    for i = 1, 6 do Mx[i] = { 0, 0, 0, 0, 0, 0 } end
    for i = 1, 3 do
      Mx[i][i] = m
      for j = 1, 3 do
        Mx[i][3 + j] = -m * A[3 * (i - 1) + j]
        Mx[3 + j][i] = -m * A[3 * (i - 1) + j]
        Mx[3 + i][3 + j] = Ic[3 * (i - 1) + j] + m * B[3 * (i - 1) + j]
      end
    end
    near(S.mass(w, q), Mx, { rtol = 1e-12, atol = 1e-12 })
    -- c: linear m R (w x (w x c)) - m g; angular w x Ic w + c x (m w x (w x c) - m R' g)
    local om = { v[4], v[5], v[6] }
    local wwc = S.cross(om, S.cross(om, c))
    local lin = S.mv(R, wwc)
    local gb = S.mtv(R, g)
    local Iw = S.mv(Ic, om)
    local t1 = S.cross(om, Iw)
    local t2 = S.cross(c, { m * wwc[1] - m * gb[1], m * wwc[2] - m * gb[2], m * wwc[3] - m * gb[3] })
    near(S.bias(w, q, v), { m * lin[1] - m * g[1], m * lin[2] - m * g[2], m * lin[3] - m * g[3],
      t1[1] + t2[1], t1[2] + t2[2], t1[3] + t2[3] }, { rtol = 1e-12, atol = 1e-12 })
  end
end)

-- world angular momentum about the origin and linear momentum of a free body
local function free_momentum(w, q, v)
  local X = S.poses(w, q)
  local R, p = S.rot_of(X, 1), S.pos_of(X, 1)
  local m, c = FREE_M, FREE_COM
  local om = S.mv(R, { v[4], v[5], v[6] })
  local cw = S.mv(R, c)
  local pc = { p[1] + cw[1], p[2] + cw[2], p[3] + cw[3] }
  local oc = S.cross(om, cw)
  local vc = { v[1] + oc[1], v[2] + oc[2], v[3] + oc[3] }
  local Lc = S.mv(R, S.mv(S.inertia(FREE_I), { v[4], v[5], v[6] }))
  local pl = S.cross(pc, vc)
  return { Lc[1] + m * pl[1], Lc[2] + m * pl[2], Lc[3] + m * pl[3], m * vc[1], m * vc[2], m * vc[3] }
end

test("world.free_body_torque_free_rotation", function()
  local world = free_body({ 0, 0, 0 })
  local w = S.compile(world, "fr")
  local q = { 0.2, -0.1, 0.4, unpack(quat({ 0.3, -1, 0.5 }, 1.1)) }
  local v = { 0.3, 0.1, -0.2, 2.0, -1.0, 3.0 }
  local e0, h0 = S.energy(w, q, v), free_momentum(w, q, v)
  q, v = S.rk4(world, w, q, v, 1e-4, 20000)
  near(S.energy(w, q, v), e0, { rtol = 1e-6 })
  near(free_momentum(w, q, v), h0, { rtol = 1e-6, atol = 1e-6 })
end)

test("world.ball_pendulum", function()
  local world = ball_pendulum()
  local w = S.compile(world, "bp")
  local m, c, Ic, g = BALL_M, BALL_COM, S.inertia(BALL_I), { 0, 0, -G }
  local cx = skew(c)
  local B = mm(tr(cx), cx)
  local Io = {}
  for i = 1, 9 do Io[i] = Ic[i] + m * B[i] end
  local q, v = quat({ 1, 0.5, -0.2 }, 0.9), { 1.5, -0.4, 2.2 }
  -- M = Ic + m [c]x' [c]x (constant); c = w x Io w - m c x R' g
  local M = S.mass(w, q)
  near(M, { { Io[1], Io[2], Io[3] }, { Io[4], Io[5], Io[6] }, { Io[7], Io[8], Io[9] } }, { rtol = 1e-12, atol = 1e-12 })
  local R = S.rot_of(S.poses(w, q), 1)
  local t1 = S.cross(v, S.mv(Io, v))
  local t2 = S.cross(c, S.mtv(R, g))
  near(S.bias(w, q, v), { t1[1] - m * t2[1], t1[2] - m * t2[2], t1[3] - m * t2[3] }, { rtol = 1e-12, atol = 1e-12 })
  -- energy and the vertical angular momentum about the pivot are conserved
  local function Lz(qq, vv)
    local RR = S.rot_of(S.poses(w, qq), 1)
    return S.mv(RR, S.mv(Io, vv))[3]
  end
  local e0, l0 = S.energy(w, q, v), Lz(q, v)
  q, v = S.rk4(world, w, q, v, 1e-4, 20000)
  near(S.energy(w, q, v), e0, { rtol = 1e-6 })
  near(Lz(q, v), l0, { rtol = 1e-6 })
end)

test("world.mixed_chain_energy", function()
  local world = mixed_chain()
  local w = S.compile(world, "mc")
  eq({ w.f.nq, w.f.nv, w.f.nb }, { 13, 11, 5 })
  local q, v = unit_quats({ unpack(MIXED_Q) }), { unpack(MIXED_V) }
  truthy(S.spd(S.mass(w, q)), "M positive definite")
  local e0 = S.energy(w, q, v)
  q, v = S.rk4(world, w, q, v, 1e-4, 10000)
  near(S.energy(w, q, v), e0, { rtol = 1e-6 })
  -- 1/2 v' Mdot v = v' (c - g(q)): the Coriolis terms do no work
  local zero = {}
  for i = 1, 11 do zero[i] = 0 end
  local c, gq = S.bias(w, q, v), S.bias(w, q, zero)
  local function vMv(qq)
    local M, s = S.mass(w, qq), 0
    for i = 1, 11 do for j = 1, 11 do s = s + v[i] * M[i][j] * v[j] end end
    return s
  end
  local h = 1e-6
  local qd = S.qdot(world, w.f, q, v)
  local qp, qm = {}, {}
  for i = 1, 13 do qp[i], qm[i] = q[i] + h * qd[i], q[i] - h * qd[i] end
  local lhs = 0.5 * (vMv(qp) - vMv(qm)) / (2 * h)
  local rhs = 0
  for i = 1, 11 do rhs = rhs + v[i] * (c[i] - gq[i]) end
  near(lhs, rhs, { rtol = 1e-6, atol = 1e-8 })
end)

test("world.tree_ltdl_solve", function()
  local world = branching_tree()
  local w = S.compile(world, "bt")
  local f = w.f
  eq(f.dof_parent, { [0] = -1, 0, 0, 1, 2, 3, 4 })
  local nv = f.nv
  local q = { 0.3, -0.8, 0.25, 1.1, -0.4, 0.9, 2.2 }
  local A = S.mass(w, q)
  truthy(S.spd(A), "M positive definite")
  local dyn_tree = require("diagc.world.tree")
  eq(f.nm, nv * nv) -- one subtree: its block is all of M
  local M = S.arr(f.nm)
  local SENTINEL = 12345.5
  for i = 1, nv do
    for j = 1, nv do
      local structural = not dyn_tree.dof_ancestor(f, i - 1, j - 1) and not dyn_tree.dof_ancestor(f, j - 1, i - 1)
      if structural then near(A[i][j], 0, { atol = 0 }) end
      M[f.mindex(i - 1, j - 1)] = structural and SENTINEL or A[i][j]
    end
  end
  w.fn.factor(M)
  local b = { 1.5, -2, 0.3, 4, -0.7, 0.01, 3 }
  local x = S.arr(nv, b)
  w.fn.solve(M, x)
  near(S.list(x, nv), S.dense_solve(A, b), { rtol = 1e-12, atol = 1e-12 })
  for i = 1, nv do
    for j = 1, nv do
      if not dyn_tree.dof_ancestor(f, i - 1, j - 1) and not dyn_tree.dof_ancestor(f, j - 1, i - 1) then
        eq(M[f.mindex(i - 1, j - 1)], SENTINEL, "structural zero untouched")
      end
    end
  end
  -- L^T D L = M over the lower triangle
  local L, D = {}, {}
  for i = 1, nv do
    L[i] = {}
    for j = 1, nv do L[i][j] = (i == j) and 1 or (j < i and dyn_tree.dof_ancestor(f, j - 1, i - 1)
      and M[f.mindex(i - 1, j - 1)] or 0) end
    D[i] = M[f.mindex(i - 1, i - 1)]
  end
  for i = 1, nv do
    for j = 1, i do
      local s = 0
      for k = 1, nv do s = s + L[k][i] * D[k] * L[k][j] end
      near(s, A[i][j], { rtol = 1e-12, atol = 1e-12 })
    end
  end
  -- the branches' c against the Lagrangian as well
  local v = { 0.5, -1.2, 0.8, 2.0, -0.3, 1.1, -0.9 }
  near(S.bias(w, q, v), lagrangian_bias(w, q, v), { rtol = 1e-6, atol = 1e-6 })
end)

-- the world position of a point fixed to body i (r: in the body frame)
local function point(w, q, i, r)
  local X = S.poses(w, q)
  local p = S.mv(S.rot_of(X, i), r)
  local o = S.pos_of(X, i)
  return { p[1] + o[1], p[2] + o[2], p[3] + o[3] }
end

test("world.point_jacobian_central_differences", function()
  local world = mixed_chain()
  local w = S.compile(world, "pj")
  local f = w.f
  local q, v = unit_quats({ unpack(MIXED_Q) }), { unpack(MIXED_V) }
  local qa, va = S.arr(f.nq, q), S.arr(f.nv, v)
  local X = S.arr(12 * f.nb)
  w.fn.kinematics(qa, X)
  local function step(dt)
    local out = S.arr(f.nq)
    w.fn.integrate(qa, va, dt, out)
    return S.list(out, f.nq)
  end
  local h = 1e-6
  local qp, qm = step(h), step(-h)
  local r = { 0.1, -0.2, 0.3 }
  for i = 0, f.nb do
    local J = S.arr(3 * f.nv)
    local pw = i > 0 and point(w, q, i, r) or { 0.3, 0.2, 0.1 }
    w.fn.point_jacobian(i, qa, X, S.arr(3, pw), J)
    local Jv = { 0, 0, 0 }
    for row = 1, 3 do
      for k = 1, f.nv do Jv[row] = Jv[row] + J[(row - 1) * f.nv + k - 1] * v[k] end
    end
    if i == 0 then
      eq(S.list(J, 3 * f.nv), S.list(S.arr(3 * f.nv), 3 * f.nv), "world: zeros")
    else
      local a, b = point(w, qp, i, r), point(w, qm, i, r)
      near(Jv, { (a[1] - b[1]) / (2 * h), (a[2] - b[2]) / (2 * h), (a[3] - b[3]) / (2 * h) }, { rtol = 1e-6, atol = 1e-7 })
      -- columns of dofs that do not move body i are zero
      for k = 0, f.nv - 1 do
        local moves = false
        for _, d in ipairs(f.chain[i]) do moves = moves or d == k end
        if not moves then
          for row = 0, 2 do eq(J[row * f.nv + k], 0, "column " .. k .. " of body " .. i) end
        end
      end
    end
  end
end)

test("world.integrate_quaternions", function()
  local world = mixed_chain()
  local w = S.compile(world, "iq")
  local f = w.f
  local q = unit_quats({ unpack(MIXED_Q) })
  local v = { 0.7, -0.3, 30, -20, 45, 0.2, 0.1, -0.3, -50, 12, 80 }
  local qa, va, out = S.arr(f.nq, q), S.arr(f.nv, v), S.arr(f.nq)
  -- one step against R(q) exp(dt [w]) (Rodrigues), revolute/prismatic/position: q + dt v
  local dt = 0.013
  w.fn.integrate(qa, va, dt, out)
  local qn = S.list(out, f.nq)
  near({ qn[1], qn[2] }, { q[1] + dt * v[1], q[2] + dt * v[2] }, { rtol = 1e-15 })
  near({ qn[7], qn[8], qn[9] }, { q[7] + dt * v[6], q[8] + dt * v[7], q[9] + dt * v[8] }, { rtol = 1e-15 })
  local function R(qq)
    local a, b, c, d = unpack(qq)
    return { 1 - 2 * (c * c + d * d), 2 * (b * c - a * d), 2 * (b * d + a * c), 2 * (b * c + a * d), 1 - 2 * (b * b + d * d),
      2 * (c * d - a * b), 2 * (b * d - a * c), 2 * (c * d + a * b), 1 - 2 * (b * b + c * c) }
  end
  local function rodrigues(om, t)
    local n = math.sqrt(om[1] ^ 2 + om[2] ^ 2 + om[3] ^ 2)
    local a = { om[1] / n, om[2] / n, om[3] / n }
    local K = skew(a)
    local K2 = mm(K, K)
    local out2 = {}
    for i = 1, 9 do out2[i] = (i % 4 == 1 and 1 or 0) + math.sin(n * t) * K[i] + (1 - math.cos(n * t)) * K2[i] end
    return out2
  end
  for _, s in ipairs({ { 3, 3 }, { 10, 9 } }) do
    local qo, vo = s[1], s[2]
    near(R({ unpack(qn, qo, qo + 3) }), mm(R({ unpack(q, qo, qo + 3) }), rodrigues({ unpack(v, vo, vo + 2) }, dt)),
      { rtol = 1e-12, atol = 1e-12 })
  end
  -- many large steps keep both quaternions unit
  for _ = 1, 10000 do
    w.fn.integrate(qa, va, 0.01, out)
    for k = 0, f.nq - 1 do qa[k] = out[k] end
  end
  for _, o in ipairs({ 2, 9 }) do
    local n = math.sqrt(qa[o] ^ 2 + qa[o + 1] ^ 2 + qa[o + 2] ^ 2 + qa[o + 3] ^ 2)
    near(n, 1, { rtol = 0, atol = 4e-16 })
  end
  -- zero angular velocity leaves the quaternion as it is
  local z = S.arr(f.nv)
  w.fn.integrate(S.arr(f.nq, q), z, 0.1, out)
  near(S.list(out, f.nq), q, { rtol = 1e-15 })
end)

test("world.tree_facts", function()
  -- two trees, a body welded to the world, a welded child of a moving one
  local world = { gravity = { 0, 0, -G }, bodies = {
    body("table", 5, { 0, 0, 0 }, { 1, 1, 1, 0, 0, 0 }, { type = "fixed", parent = 0, xyz = { 0, 0, 1 } }),
    body("box", 1, { 0, 0, 0 }, { 1, 1, 1, 0, 0, 0 }, { type = "free", parent = 0 }),
    body("arm", 1, { 0, 0, 0 }, { 1, 1, 1, 0, 0, 0 }, { type = "revolute", parent = 1, axis = { 0, 0, 1 } }),
    body("hand", 1, { 0, 0, 0 }, { 1, 1, 1, 0, 0, 0 }, { type = "fixed", parent = 3, xyz = { 1, 0, 0 } }),
    body("ball", 1, { 0, 0, 0 }, { 1, 1, 1, 0, 0, 0 }, { type = "ball", parent = 4 }),
  } }
  local f = dyn.facts(world)
  eq({ f.nq, f.nv, f.nb }, { 12, 10, 5 })
  eq(f.q0, { 0, 0, 7, 8, 8 })
  eq(f.v0, { 0, 0, 6, 7, 7 })
  eq(f.tree_root, { -1, 2, 3, 3, 3 })
  eq(f.tree_id, { -1, 0, 1, 1, 1 })
  eq(f.ntrees, 2)
  eq(f.tree_dofs, { [0] = { 0, 1, 2, 3, 4, 5 }, { 6, 7, 8, 9 } })
  eq(f.dof_parent, { [0] = -1, 0, 1, 2, 3, 4, -1, 6, 7, 8 })
  eq(f.q_default, { 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0 })
  -- a world whose dynamics are trivial still compiles (a static body only)
  local w = S.compile({ gravity = { 0, 0, -G }, bodies = { world.bodies[1] } }, "st")
  near(S.energy(w, {}, {}), 5 * G * 1, { rtol = 1e-15 })
  local ok, err = pcall(dyn.facts, { bodies = { body("x", 1, { 0, 0, 0 }, { 1, 1, 1 }, { type = "slider", parent = 0 }) } })
  truthy(not ok and err:find("unknown joint type slider"), err)
end)

test("world.emit_deterministic", function()
  for _, mode in ipairs({ "unrolled", "looped" }) do
    local function world()
      local w = mixed_chain()
      w.settings = { dynamics = mode }
      return w
    end
    local a = dyn.emit(world(), "det")
    local b = dyn.emit(world(), "det")
    eq(a == b, true)
    local only = dyn.emit(world(), "det", { functions = { "kinematics" } })
    truthy(only:find("det_kinematics") and not only:find("det_bias") and not only:find("det_body_force"),
      "only the asked functions and their helpers")
  end
end)

-- lone free bodies (closed forms) next to a pendulum: the entries the mass
-- matrix leaves unwritten are zero in the generic form and are never read
test("world.lone_free_bodies_unwritten_zeros", function()
  local world = { gravity = { 0.2, 0, -G }, bodies = {
    body("box_offset", 2.5, FREE_COM, FREE_I, { type = "free", parent = 0, rpy = { 0.3, -0.2, 0.1 }, damping = 0.2 }),
    body("pend", 1.2, { 0, 0, -0.5 }, { 0.09, 0.1, 0.011, 0.001, -0.002, 0.003 },
      { type = "revolute", parent = 0, axis = { 0, 1, 0 }, xyz = { 0, 0, 2 } }),
    body("box_diag", 1.0, { 0, 0, 0 }, { 0.1, 0.2, 0.3, 0, 0, 0 }, { type = "free", parent = 0 }),
    body("box_full", 1.5, { 0, 0, 0 }, { 0.1, 0.2, 0.3, 0.01, 0.02, -0.03 }, { type = "free", parent = 0, xyz = { 1, 0, 0 } }),
  } }
  local w = S.compile(world, "lz")
  -- the same bodies, each given a massless child: the generic CRBA/RNEA path
  local generic = { gravity = world.gravity, bodies = {} }
  for i, b in ipairs(world.bodies) do generic.bodies[i] = b end
  for i = 1, 4 do
    generic.bodies[#generic.bodies + 1] = body("tip" .. i, 0, { 0, 0, 0 }, { 0, 0, 0, 0, 0, 0 },
      { type = "fixed", parent = i })
  end
  local wg = S.compile(generic, "lzg")
  local f = w.f
  local nv = f.nv
  local q = { 0.1, 0.2, 0.3, unpack(quat({ 1, -2, 0.5 }, 0.8)) }
  q[#q + 1] = 0.4
  for _, x in ipairs({ -0.3, 0.5, 0.2, unpack(quat({ 0.2, 1, 0.3 }, 2.1)) }) do q[#q + 1] = x end
  for _, x in ipairs({ 1, 2, 3, unpack(quat({ -1, 0.3, 0.7 }, 1.3)) }) do q[#q + 1] = x end
  local v = {}
  for k = 1, nv do v[k] = 0.3 * math.sin(k) + 0.1 * k end
  local A = S.mass(wg, q)
  near(S.bias(w, q, v), S.bias(wg, q, v), { rtol = 1e-12, atol = 1e-12 })
  -- stored per subtree: the four bodies' blocks only
  local nm = 0
  for id = 0, f.ntrees - 1 do nm = nm + (#f.tree_dofs[id]) ^ 2 end
  eq(f.nm, nm)
  truthy(f.nm < nv * nv, "the blocks are smaller than M")
  local qa, X, M = S.arr(f.nq, q), S.arr(12 * f.nb), S.arr(f.nm)
  for k = 0, f.nm - 1 do M[k] = 0 / 0 end
  w.fn.kinematics(qa, X)
  w.fn.mass_matrix(qa, X, M)
  local unwritten = 0
  for i = 1, nv do
    for j = 1, nv do
      local k = f.mindex(i - 1, j - 1)
      local x = k and M[k] or 0 / 0
      if x ~= x then
        unwritten = unwritten + 1
        near(A[i][j], 0, { atol = 1e-12 })
      else
        near(x, A[i][j], { rtol = 1e-12, atol = 1e-12 })
      end
    end
  end
  truthy(unwritten > nv * nv / 2, "most entries are structural or known zeros")
  w.fn.factor(M)
  local b = {}
  for k = 1, nv do b[k] = math.cos(k) end
  local x = S.arr(nv, b)
  w.fn.solve(M, x)
  near(S.list(x, nv), S.dense_solve(A, b), { rtol = 1e-12, atol = 1e-12 })
  -- per subtree: M is block diagonal; solve_tree works on the subtree's
  -- dofs packed (x[k] is its k-th dof) and leaves what follows them alone
  eq(f.ntrees, 4)
  for id = 0, f.ntrees - 1 do
    local mine, bt, dofs = {}, {}, f.tree_dofs[id]
    for _, k in ipairs(dofs) do mine[k + 1] = true end
    for k = 1, nv do bt[k] = mine[k] and b[k] or 0 end
    local full = S.dense_solve(A, bt)
    local packed = {}
    for k, d in ipairs(dofs) do packed[k] = b[d + 1] end
    packed[#dofs + 1] = 7.25 -- a sentinel just past the tree's dofs
    local y = S.arr(#dofs + 1, packed)
    w.fn.solve_tree(M, id, y)
    for k, d in ipairs(dofs) do near(y[k - 1], full[d + 1], { rtol = 1e-12, atol = 1e-12 }) end
    eq(y[#dofs], 7.25)
  end
end)

test("world.axis_made_unit", function()
  local a, b = cartpole(1.3, 0.45, 0.8), cartpole(1.3, 0.45, 0.8)
  b.bodies[1].joint.axis = { 3, 0, 0 }
  b.bodies[2].joint.axis = { 0, 0.5, 0 }
  local wa, wb = S.compile(a, "ua"), S.compile(b, "ub")
  eq(S.mass(wb, { 0.2, 0.9 }), S.mass(wa, { 0.2, 0.9 }))
  eq(S.bias(wb, { 0.2, 0.9 }, { 1, 2 }), S.bias(wa, { 0.2, 0.9 }, { 1, 2 }))
end)
