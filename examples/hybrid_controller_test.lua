-- Run with: bin/diagc test examples/hybrid_controller_test.lua
-- Checks examples/hybrid_controller.lua: update counts and times of the
-- two rates, and the closed loop against its difference equation.
local m = diagc.jit(diagc.root .. "/examples/hybrid_controller.lua")
local K, h, H = 20.0, 0.01, 0.1

-- The expected sequence, from Drake's semantics: controller update k at
-- t_k = k h reads x(t_k) and the setpoint set by supervisor updates at
-- times s_j = j H strictly before t_k (updates at one instant read the
-- pre-update state); the plant integrates the held u exactly.
local function expected(t_end)
  local xs, us = {}, {}
  local x, u = 0.0, 0.0
  local k = 0
  while k * h <= t_end + 1e-12 do
    local tk = k * h
    xs[k + 1], us[k + 1] = x, u     -- logged at t_k: x-(t_k), u-(t_k)
    local r = 0.0
    local j = 0
    while j * H < tk do
      r = (j * H < 0.5) and 1.0 or 0.5
      j = j + 1
    end
    u = K * (r - x)
    x = x + ((k + 1) * h - tk) * u
    k = k + 1
  end
  return xs, us
end

test("hybrid_controller.update_counts", function()
  local sim = m:simulator()
  sim:initialize()
  sim:advance_to(1.0)
  -- updates at 0, 0.01, ..., 0.99 and 0, 0.1, ..., 0.9; the ones due at
  -- t = 1 stay pending until the next advance
  eq(sim.context:eval("controller.count"), 100)
  eq(sim.context:eval("supervisor.count"), 10)
  sim:advance_to(1.0)
  eq(sim.context:eval("controller.count"), 101)
  eq(sim.context:eval("supervisor.count"), 11)
end)

test("hybrid_controller.sample_times", function()
  local sim = m:simulator()
  sim:initialize()
  sim:advance_to(1.0)
  local y, r = sim:log("plant.y"), sim:log("supervisor.r")
  eq(#y.t, 101)
  eq(#r.t, 11)
  for i, t in ipairs(y.t) do near(t, (i - 1) * h, { atol = 1e-12 }) end
  for i, t in ipairs(r.t) do near(t, (i - 1) * H, { atol = 1e-12 }) end
  -- the setpoint seen at 0.1 j (before that instant's update)
  eq(r.v, { 0, 1, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5 })
end)

test("hybrid_controller.closed_loop", function()
  for _, integ in ipairs({ "runge_kutta3", "explicit_euler", "dormand_prince54" }) do
    local sim = m:simulator { integrator = integ }
    sim:initialize()
    sim:advance_to(1.0)
    local xs, us = expected(1.0)
    near(sim:log("plant.y").v, xs, { atol = 1e-12 })
    near(sim:log("controller.u_out").v, us, { atol = 1e-10 })
  end
end)

test("hybrid_controller.gain_parameter", function()
  local sim = m:simulator()
  sim.context:set("controller.gain", 5.0)
  sim:initialize()
  sim:advance_to(0.3)
  -- x_{k+1} = x_k + h K (1 - x_k) from k = 1 (r becomes 1 after t = 0)
  local x = 0.0
  for _ = 2, 30 do x = x + h * 5.0 * (1 - x) end
  near(sim.context:eval("plant.y"), x, { atol = 1e-12 })
end)
