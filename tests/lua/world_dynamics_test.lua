-- The generated rigid-body dynamics (generator/diagc/world/*.lua) against
-- closed forms, the Lagrangian (central differences of M and the
-- potential), conservation laws and a dense solve.
local S = dofile("tests/lua/world_support.lua")
local dyn = require("diagc.world.dynamics")

local G = 9.81

local function body(name, mass, com, inertia, joint)
  return { name = name, mass = mass, com = com, inertia = inertia, joint = joint }
end

local function cartpole(mc, mp, l)
  return { gravity = { 0, 0, -G }, bodies = {
    body("cart", mc, { 0, 0, 0 }, { 0.1, 0.2, 0.3, 0, 0, 0 }, { type = "prismatic", parent = 0, axis = { 1, 0, 0 } }),
    body("pole", mp, { 0, 0, l }, { 0, 0, 0, 0, 0, 0 }, { type = "revolute", parent = 1, axis = { 0, 1, 0 } }),
  } }
end

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

local function double_pendulum(damping)
  return { gravity = { 0, 0, -G }, bodies = {
    body("upper", 1.2, { 0.05, 0.01, -0.5 }, { 0.09, 0.1, 0.011, 0.001, -0.002, 0.003 },
      { type = "revolute", parent = 0, axis = { 0, 1, 0 }, xyz = { 0, 0, 2 }, damping = damping }),
    body("lower", 0.7, { 0, 0.02, -0.4 }, { 0.04, 0.05, 0.006, 0, 0.001, 0 },
      { type = "revolute", parent = 1, axis = { 0.6, 0.8, 0 }, xyz = { 0, 0.1, -1 }, rpy = { 0.1, -0.2, 0.3 },
        damping = damping }),
  } }
end

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
