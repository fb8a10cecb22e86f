-- Trim (runtime/src/trim.c, testing/trim.lua): a pendulum hanging and
-- inverted, a DC motor at a speed setpoint with its voltage free, a planar
-- quadrotor at hover (thrust m g / 2 each), against their analytic
-- solutions with the residual at most 1e-10; more equations than unknowns
-- (Gauss-Newton) and fewer (minimum norm); central differences agree;
-- points that do not exist (a speed beyond the voltage limit, an output
-- target no state reaches) and the misuse of the options are errors.
local dsl = diagc.dsl

local G, L, B = 9.81, 0.5, 0.2
local pend = diagc.jit(dsl.diagram "trim_pend" {
  dsl.system { "p", dsl.leaf "Pendulum" {
    dsl.continuous_state { q = { "theta" }, v = { "omega" }, q0 = { 0 }, v0 = { 0 } },
    dsl.input_port { "tau", size = 1 },
    dsl.derivatives { prerequisites = { "q", "v", "tau" }, calc = string.format(
      "qdot[0] = v[0]; vdot[0] = -(%.17g / %.17g) * sin(q[0]) - %.17g * v[0] + tau[0];", G, L, B) },
    dsl.output_port { "energy", size = 1, prerequisites = { "q", "v" }, calc = string.format(
      "energy[0] = %.17g * %.17g * (1 - cos(q[0])) + 0.5 * v[0] * v[0];", G, L) },
  } },
  dsl.export_input { "p.tau", as = "tau" },
  dsl.export_output { "p.energy", as = "energy" },
})

local function good(r) truthy(r.residual <= 1e-10, "residual " .. r.residual) end

test("trim.pendulum_hanging", function()
  local c = pend:context()
  c:set("p.theta", 0.4)
  c:set("p.omega", -1)
  local r = c:trim()
  good(r)
  near(r.x, { 0, 0 }, { atol = 1e-10 })
  eq(r.free, { "p.theta", "p.omega" })
  eq(r.equations, { "d/dt p.theta", "d/dt p.omega" })
  eq(c:get("p.theta"), r.x[1]) -- the context holds the point
end)

test("trim.pendulum_inverted", function()
  local c = pend:context()
  c:set("p.theta", 2.7)
  local r = c:trim()
  good(r)
  near(r.x, { math.pi, 0 }, { atol = 1e-10 })
  -- the energy at the top, 2 g l
  near(r.y[1], 2 * G * L, { rtol = 1e-12 })
end)

test("trim.pendulum_held_by_torque", function()
  -- theta fixed at 1, the torque free: tau = (g / l) sin 1
  local c = pend:context()
  local r = c:trim { target = { ["p.theta"] = 1 }, free = { "tau" } }
  good(r)
  near(r.u[1], G / L * math.sin(1), { rtol = 1e-12 })
  eq(r.free, { "p.omega", "tau" })
end)

test("trim.gauss_newton_and_minimum_norm", function()
  -- three equations (the derivatives and an energy target reached at the
  -- bottom), two unknowns: they can all hold
  local c = pend:context()
  c:set("p.theta", 0.3)
  local r = c:trim { target = { energy = 0 } }
  good(r)
  near(r.x, { 0, 0 }, { atol = 1e-6 })
  -- one equation (the energy of theta = 1 with omega = 0 held), theta
  -- free, the torque free too: fewer equations than unknowns
  c = pend:context()
  c:set("p.theta", 0.8)
  r = c:trim { target = { energy = G * L * (1 - math.cos(1)), ["p.omega"] = 0 }, free = { "tau" },
    free_deriv = { "p.theta", "p.omega" } }
  good(r)
  near(r.x[1], 1, { rtol = 1e-9 })
end)

test("trim.no_point", function()
  local c = pend:context()
  c:set("p.theta", 0.3)
  -- the energy is never negative: a least-squares minimum above zero
  local msg = expect_error(function() c:trim { target = { energy = -1 }, fix = { "p.omega" }, free_deriv = { "p.theta", "p.omega" } } end,
    "trim: no trim point")
  truthy(msg:find("energy", 1, true), msg)
end)

-- DC motor: L di/dt = V - R i - ke w, J dw/dt = kt i - b w; the voltage
-- applied is limited to +-VMAX
local R, LL, KE, KT, J, BM, VMAX = 1.2, 0.05, 0.02, 0.02, 1e-4, 2e-5, 12
local motor = diagc.jit(dsl.diagram "trim_motor" {
  dsl.system { "m", dsl.leaf "Motor" {
    dsl.continuous_state { z = 2, z0 = { 0, 0 } },
    dsl.input_port { "vin", size = 1 },
    dsl.derivatives { prerequisites = { "z", "vin" }, calc = string.format([[
      double va = fmin(fmax(vin[0], -%.17g), %.17g);
      zdot[0] = (va - %.17g * z[0] - %.17g * z[1]) / %.17g;
      zdot[1] = (%.17g * z[0] - %.17g * z[1]) / %.17g;]], VMAX, VMAX, R, KE, LL, KT, BM, J) },
    dsl.output_port { "speed", size = 1, prerequisites = { "z" }, calc = "speed[0] = z[1];" },
  } },
  dsl.export_input { "m.vin", as = "volts" },
  dsl.export_output { "m.speed", as = "speed" },
})

test("trim.motor_speed_setpoint", function()
  local W = 300
  for _, jac in ipairs({ "model", "fd" }) do
    local c = motor:context()
    local r = c:trim { free = { "volts" }, target = { speed = W }, jacobian = jac }
    good(r)
    eq(r.jacobian, jac)
    local i = BM * W / KT
    near(r.x, { i, W }, { rtol = 1e-10 })
    near(r.u[1], R * i + KE * W, { rtol = 1e-10 })
  end
end)

test("trim.motor_beyond_the_limit", function()
  -- the highest speed: VMAX kt / (R b + ke kt)
  local wmax = VMAX * KT / (R * BM + KE * KT)
  local c = motor:context()
  c:set_input("volts", 5)
  local msg = expect_error(function() c:trim { free = { "volts" }, target = { speed = 1.5 * wmax } } end, "trim: ")
  truthy(msg:find("singular", 1, true) or msg:find("no trim point", 1, true), msg)
end)

-- planar quadrotor: m x'' = -(u1 + u2) sin th, m z'' = (u1 + u2) cos th -
-- m g, I th'' = a (u1 - u2)
local M, I, A = 0.5, 2e-3, 0.15
local quad = diagc.jit(dsl.diagram "trim_quad" {
  dsl.system { "quad", dsl.leaf "PlanarQuad" {
    dsl.continuous_state { q = { "x", "z", "theta" }, v = { "vx", "vz", "omega" }, q0 = { 0, 0, 0 }, v0 = { 0, 0, 0 } },
    dsl.input_port { "u", size = 2 },
    dsl.derivatives { prerequisites = { "q", "v", "u" }, calc = string.format([[
      qdot[0] = v[0]; qdot[1] = v[1]; qdot[2] = v[2];
      vdot[0] = -(u[0] + u[1]) * sin(q[2]) / %.17g;
      vdot[1] = (u[0] + u[1]) * cos(q[2]) / %.17g - %.17g;
      vdot[2] = %.17g * (u[0] - u[1]) / %.17g;]], M, M, G, A, I) },
    dsl.output_port { "pose", size = 3, prerequisites = { "q" }, calc = "pose[0] = q[0]; pose[1] = q[1]; pose[2] = q[2];" },
  } },
  dsl.export_input { "quad.u", as = "thrust" },
  dsl.export_output { "quad.pose", as = "pose" },
})

test("trim.quadrotor_hover", function()
  local c = quad:context()
  c:set_input("thrust", { 1, 3 })
  c:set("quad.theta", 0.2)
  local r = c:trim { free = { "thrust" }, target = { ["quad.x"] = 0.3, ["quad.z"] = 1 } }
  good(r)
  near(r.u, { M * G / 2, M * G / 2 }, { rtol = 1e-12 })
  near(r.x, { 0.3, 1, 0, 0, 0, 0 }, { atol = 1e-12 })
  -- x and z free too (no equation holds them): minimum-norm steps
  c = quad:context()
  c:set_input("thrust", { 1, 3 })
  r = c:trim { free = { "thrust" } }
  good(r)
  near(r.u, { M * G / 2, M * G / 2 }, { rtol = 1e-12 })
  -- an output element as the target: pose[1] (z) = 2 (from a thrust:
  -- at zero thrust the Jacobian is singular, nothing turns the quad)
  c = quad:context()
  c:set_input("thrust", { 2, 2 })
  r = c:trim { free = { "thrust" }, target = { ["pose[1]"] = 2 } }
  good(r)
  near(r.y, { r.x[1], 2, 0 }, { atol = 1e-12 })
end)

test("trim.misuse", function()
  local c = pend:context()
  expect_error(function() c:trim { free = { "nope" } } end, "trim: free: no input or state named 'nope'")
  expect_error(function() c:trim { fix = { "tau" } } end, "trim: fix: no state named 'tau'")
  expect_error(function() c:trim { target = { energy = { 1, 2 } } } end, "trim: target energy: it has 1 value, got 2")
  expect_error(function() c:trim { fix = { "p.theta", "p.omega" } } end, "trim: no unknown is free")
  expect_error(function() c:trim { free_deriv = { "p.q", "p.v" } } end, "trim: no equation is asked for")
  expect_error(function() c:trim { fix = { "p.theta" }, free = { "p.theta" } } end, "also held")
  expect_error(function() c:trim { tolerance = 0 } end, "trim: invalid tolerance 0")
  expect_error(function() c:trim { tolrance = 1 } end, "did you mean 'tolerance'")
  -- theta and tau only move omega': a singular Jacobian, but damped
  -- (Levenberg-Marquardt) steps reach a point of the family tau = (g / l)
  -- sin theta
  c:set("p.theta", 0.3)
  local r = c:trim { fix = { "p.omega" }, free = { "tau" } }
  good(r)
  near(r.u[1], G / L * math.sin(r.x[1]), { rtol = 1e-9 })
  -- the torque moves no equation left: the Jacobian is zero
  expect_error(function() c:trim { fix = { "p.theta", "p.omega" }, free = { "tau" }, free_deriv = { "p.omega" },
    target = { energy = 1 } } end, "trim: the trim Jacobian is zero at iteration 0")
  -- more equations than unknowns that cannot all hold: a least-squares
  -- minimum above zero
  expect_error(function() c:trim { fix = { "p.theta", "p.omega" }, free = { "tau" }, target = { energy = 1 } } end,
    "trim: no trim point: the residual stalls")
end)

test("trim.held_discrete_state", function()
  -- a step source's phase is discrete state of a timed event: not one
  -- periodic update, so it is held, and the model's Jacobian still serves
  local md = diagc.jit(dsl.diagram "trim_step" {
    dsl.system { "src", dsl.blocks.step { time = 1, initial = 2, final = 5 } },
    dsl.system { "lag", dsl.blocks.low_pass { tau = 0.5, k = 3 } },
    dsl.connect { "src.y", "lag.u" },
  })
  local c = md:context()
  local r = c:trim()
  good(r)
  eq(r.jacobian, "model")
  near(c:eval("lag.y"), 6, { rtol = 1e-12 }) -- k times the step's initial value
  expect_error(function() c:trim { fix = { "src.on" } } end, "a discrete state is held unless the model has one periodic discrete update")
end)
