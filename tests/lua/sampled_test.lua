-- Closed-loop linearization of a sampled loop (runtime/src/linearize.c):
-- a continuous double integrator under a discrete PD law with a reference
-- input against the hand-computed ZOH discretization (Phi = [[1, h], [0,
-- 1]], Gamma = [h^2/2, h]) to 1e-12, its closed-loop eigenvalues against
-- the roots of the characteristic polynomial; central differences agree;
-- a pendulum under the same law: a simulation of a small perturbation,
-- sampled just before the updates, matches A^n x0 to first order (the
-- error shrinks as the square of the perturbation); the refusals.
local dsl = diagc.dsl

local H, KP, KD = 0.1, 2.0, 3.0

-- plant: x'' = u (or a pendulum x'' = -sin x + 0.3 x^2 - 0.1 x' + u,
-- with a quadratic term so that the deviation is second order); PD:
-- u+ = kp (r - x) - kd v at t = offset + n h
local function loop(pendulum, offset)
  local P = dsl.leaf "Plant" {
    dsl.continuous_state { q = { "x" }, v = { "v" }, q0 = { 0.0 }, v0 = { 0.0 } },
    dsl.input_port { "u", size = 1 },
    dsl.derivatives { prerequisites = { "q", "v", "u" }, calc = pendulum
      and "qdot[0] = v[0]; vdot[0] = -sin(q[0]) + 0.3 * q[0] * q[0] - 0.1 * v[0] + u[0];"
      or "qdot[0] = v[0]; vdot[0] = u[0];" },
    dsl.output_port { "y", size = 2, prerequisites = { "q", "v" }, calc = "y[0] = q[0]; y[1] = v[0];" },
  }
  local PD = dsl.leaf "DiscretePD" {
    dsl.parameter { "kp", default = { KP } },
    dsl.parameter { "kd", default = { KD } },
    dsl.discrete_state { "u", size = 1, default = { 0 } },
    dsl.input_port { "y", size = 2 },
    dsl.input_port { "r", size = 1 },
    dsl.output_port { "cmd", size = 1, prerequisites = { "xd" }, calc = "cmd[0] = u[0];" },
    dsl.periodic_discrete_update { "sample", period = H, offset = offset or 0,
      calc = "u_next[0] = kp[0] * (r[0] - y[0]) - kd[0] * y[1];" },
  }
  return dsl.diagram "sampled" {
    dsl.system { "plant", P },
    dsl.system { "pd", PD },
    dsl.connect { "plant.y", "pd.y" },
    dsl.connect { "pd.cmd", "plant.u" },
    dsl.export_input { "pd.r", as = "ref" },
    dsl.log { "plant.y", period = H },
  }
end

local m = diagc.jit(loop(false, 0.03))

-- by hand: A = [[Phi - Gamma K, 0], [-K, 0]], B = [[Gamma kp], [kp]]
local g1, g2 = H * H / 2, H
local A_hand = {
  { 1 - g1 * KP, H - g1 * KD, 0 },
  { -g2 * KP, 1 - g2 * KD, 0 },
  { -KP, -KD, 0 },
}
local B_hand = { { g1 * KP }, { g2 * KP }, { KP } }

local function flat(M)
  local out = {}
  for _, row in ipairs(M) do for _, v in ipairs(row) do out[#out + 1] = v end end
  return out
end

test("sampled.pd_matches_hand_zoh", function()
  local r = m:context():linearize { eig = true }
  eq(r.states, { "plant.x", "plant.v", "pd.u" })
  eq(r.time_period, H)
  near(flat(r.A), flat(A_hand), { atol = 1e-12 })
  near(flat(r.B), flat(B_hand), { atol = 1e-12 })
  near(flat(r.C), { 1, 0, 0, 0, 1, 0 }, { atol = 0 })
  -- the eigenvalues: z^2 - tr z + det of Phi - Gamma K, and 0
  local a, b, c, d = A_hand[1][1], A_hand[1][2], A_hand[2][1], A_hand[2][2]
  local tr, det = a + d, a * d - b * c
  local disc = tr * tr - 4 * det
  truthy(disc > 0, "real roots for these gains")
  local z1, z2 = (tr + math.sqrt(disc)) / 2, (tr - math.sqrt(disc)) / 2
  near({ r.eig[1].re, r.eig[2].re, r.eig[3].re }, { z1, z2, 0 }, { atol = 1e-12 })
  near({ r.eig[1].im, r.eig[2].im, r.eig[3].im }, { 0, 0, 0 }, { atol = 1e-12 })
  near(r.eig[1].s_re, math.log(z1) / H, { rtol = 1e-12 })
end)

test("sampled.complex_poles_and_continuous_equivalent", function()
  local c = m:context()
  c:set_param("pd.kp", 20)
  c:set_param("pd.kd", 1)
  local r = c:linearize { eig = true }
  local a, b, cc, d = 1 - g1 * 20, H - g1 * 1, -g2 * 20, 1 - g2 * 1
  local tr, det = a + d, a * d - b * cc
  local re, im = tr / 2, math.sqrt(4 * det - tr * tr) / 2
  near({ r.eig[1].re, r.eig[1].im, r.eig[2].re, r.eig[2].im }, { re, im, re, -im }, { atol = 1e-12 })
  near({ r.eig[1].s_re, r.eig[1].s_im }, { math.log(det) / (2 * H), math.atan2(im, re) / H }, { atol = 1e-12 })
end)

test("sampled.fd_agrees", function()
  local r = m:context():linearize { jacobian = "fd" }
  near(flat(r.A), flat(A_hand), { atol = 1e-8 })
  near(flat(r.B), flat(B_hand), { atol = 1e-8 })
end)

test("sampled.refusals", function()
  local c = m:context()
  expect_error(function() c:linearize { mode = "first_order_taylor" } end, "first_order_taylor is not available")
  c:set("plant.x", 0.5)
  expect_error(function() c:linearize() end, "not an equilibrium: pd.u[n+1] - pd.u[n] = -1")
  c:set("pd.u", -1)
  expect_error(function() c:linearize() end, "not an equilibrium: d/dt plant.v = -1")
end)

-- the nonlinear loop from a perturbation dx0: the sampled states minus
-- A^n dx0, the largest over n = 1 .. 30
local pm = diagc.jit(loop(true, 0))
local lin = pm:context():linearize()

local function deviation(delta)
  local sim = pm:simulator { integrator = "dormand_prince54", accuracy = 1e-13, max_step = H / 8 }
  sim.context:set("plant.x", delta)
  sim.context:set("plant.v", -0.5 * delta)
  sim:initialize()
  local x, worst = { delta, -0.5 * delta, 0 }, 0
  for n = 1, 30 do
    local nx = {}
    for i = 1, 3 do
      nx[i] = 0
      for j = 1, 3 do nx[i] = nx[i] + lin.A[i][j] * x[j] end
    end
    x = nx
    sim:advance_to(n * H) -- holds the state just before the update at n h
    local c = sim.context
    local got = { c:get("plant.x"), c:get("plant.v"), c:get("pd.u") }
    for i = 1, 3 do worst = math.max(worst, math.abs(got[i] - x[i])) end
  end
  return worst
end

test("sampled.perturbation_first_order", function()
  local e1, e2 = deviation(1e-2), deviation(5e-3)
  truthy(e1 < 1e-2 * 1e-2, "deviation " .. e1 .. " above delta^2")
  -- second order: halving the perturbation quarters the deviation
  local ratio = e1 / e2
  truthy(ratio > 3.5 and ratio < 4.5, "ratio " .. ratio .. " (deviations " .. e1 .. ", " .. e2 .. ")")
end)

test("sampled.trim_then_linearize", function()
  local c = m:context()
  c:set_input("ref", 0.5)
  local t = c:trim()
  truthy(t.residual <= 1e-10, "residual " .. t.residual)
  near(t.x, { 0.5, 0, 0 }, { atol = 1e-12 })
  local r = c:linearize()
  near(flat(r.A), flat(A_hand), { atol = 1e-12 })
end)

test("sampled.nonlinear_model_and_fd_agree", function()
  -- the pendulum loop away from the origin: trim it at a reference, then
  -- the generated Jacobians (jac_lin's xd column, jac_update0) against
  -- central differences
  local c = pm:context()
  c:set_input("ref", 0.4)
  c:trim()
  local a, b = c:linearize { eig = true }, c:linearize { jacobian = "fd" }
  for i = 1, 3 do near(a.A[i], b.A[i], { rtol = 1e-7, atol = 1e-8 }) end
  for i = 1, 3 do near(a.B[i], b.B[i], { rtol = 1e-7, atol = 1e-8 }) end
  for _, e in ipairs(a.eig) do truthy(e.abs < 1, "|z| " .. e.abs) end
end)
