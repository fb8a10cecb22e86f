-- A world linearized at generation (testing/world_plant.lua through
-- control.linearize_world and blocks.lqr { plant = W }): an actuated
-- pendulum held away from hanging by a constant torque, against its
-- closed-form linear step, and an LQR about that point that brings the
-- arm back to it.  (examples/control/cartpole_lqr_test.lua: the
-- cart-pole.)
local dsl = diagc.dsl
local blocks, system, connect, log, control = dsl.blocks, dsl.system, dsl.connect, dsl.log, dsl.control
local body, world = dsl.body, dsl.world

local MASS, L, I, G, H = 1.0, 0.5, 0.01, 9.81, 2e-3
local TH0 = 0.3
local TAU0 = MASS * G * L * math.sin(TH0) -- the torque that holds the arm at TH0

local function arm(q0)
  return world "arm" {
    time_step = H,
    body { "arm", mass = MASS, com = { 0, 0, -L }, inertia = { I, I, I },
      joint = { "revolute", axis = { 0, 1, 0 }, actuated = true, q = { q0 } } },
  }
end

test("world_plant.pendulum_closed_form", function()
  -- (m l^2 + I) th'' = tau - m g l sin th about TH0, the semi-implicit
  -- step: v' = v + h (a dth + b dtau), th' = th + h v'
  local J = MASS * L * L + I
  local a, b = -MASS * G * L * math.cos(TH0) / J, 1 / J
  local A, B, h = control.linearize_world(arm(0), { q = { TH0 }, effort = { TAU0 } })
  eq(h, H)
  near(A[1], { 1 + H * H * a, H }, { rtol = 1e-12 })
  near(A[2], { H * a, 1 }, { rtol = 1e-12 })
  near({ B[1][1], B[2][1] }, { H * H * b, H * b }, { rtol = 1e-12 })
end)

-- the arm under an LQR about TH0 (its gain designed at generation)
local function loop(name, q0)
  local W = arm(q0)
  return diagc.jit(dsl.diagram(name) {
    system { "w", W },
    system { "x", blocks.mux { sizes = { 1, 1 } } },
    system { "k", blocks.lqr { plant = W, at = { q = { TH0 }, effort = { TAU0 } },
      Q = { { 100, 0 }, { 0, 1 } }, R = { { 1 } } } },
    connect { "w.position", "x.u1" }, connect { "w.velocity", "x.u2" },
    connect { "x.y", "k.x" }, connect { "k.u", "w.effort" },
    log { "w.position", period = 0.1 },
  })
end

test("world_plant.lqr_about_a_held_point", function()
  local m = loop("world_plant_lqr", TH0 + 0.05)
  local c = m:context()
  near(c:get("k.x_op"), { TH0, 0 }, { rtol = 0 })
  near(c:get("k.u_op"), TAU0, { rtol = 0 })
  local sim = m:simulator()
  sim:initialize()
  sim:advance_to(5)
  local l = sim:log("w.position")
  near(l.v[#l.v], TH0, { atol = 1e-6 })
end)

test("world_plant.generation_is_reproducible", function()
  -- the gain the generator wrote is the same bits each time
  eq(loop("world_plant_bits", 0).gen.source, loop("world_plant_bits", 0).gen.source)
end)
