-- Run with: bin/diagc test examples/pendulum_test.lua
-- Checks the damped pendulum of examples/pendulum.lua against physics.
local m = diagc.jit(diagc.root .. "/examples/pendulum.lua")

-- zero crossings of a logged signal, linearly interpolated
local function crossings(log)
  local out = {}
  for i = 2, #log.t do
    local a, b = log.v[i - 1], log.v[i]
    if a > 0 and b <= 0 or a < 0 and b >= 0 then
      out[#out + 1] = log.t[i - 1] + (log.t[i] - log.t[i - 1]) * a / (a - b)
    end
  end
  return out
end

test("pendulum.small_angle_period", function()
  local sim = m:simulator { accuracy = 1e-9, max_step = 1e-3 }
  local ctx = sim.context
  ctx:set("pend.damping", 0)
  ctx:set("pend.theta", 0.01)       -- small angle: T = 2 pi sqrt(l/g) (1 + theta0^2/16 + ...)
  sim:initialize()
  sim:advance_to(10)
  local z = crossings(sim:log("pend.angle"))
  truthy(#z >= 6, "at least three periods")
  local period = (z[#z] - z[1]) / ((#z - 1) / 2)
  local l, g = ctx:get("pend.length"), ctx:get("pend.gravity")
  near(period, 2 * math.pi * math.sqrt(l / g), { rtol = 1e-3 })
end)

test("pendulum.damping_dissipates_energy", function()
  local sim = m:simulator { accuracy = 1e-8 }
  sim:initialize()
  sim:advance_to(5)
  local e = sim:log("pend.energy").v
  truthy(#e > 100)
  for i = 2, #e do
    if e[i] > e[i - 1] * (1 + 1e-12) then
      error(string.format("energy increased at sample %d: %.17g -> %.17g", i, e[i - 1], e[i]))
    end
  end
  truthy(e[#e] < 0.8 * e[1], "damping removes a noticeable share of the energy in 5 s")
end)

test("pendulum.no_damping_conserves_energy", function()
  local sim = m:simulator { accuracy = 1e-10 }
  sim.context:set("pend.damping", 0)
  sim:initialize()
  sim:advance_to(5)
  local e = sim:log("pend.energy").v
  near(e[#e], e[1], { rtol = 1e-6 })
end)
