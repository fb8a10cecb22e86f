-- Run with: bin/diagc test examples/robots/a1/a1_test.lua
-- The A1 imported from its unmodified URDF and SRDF (the massless root
-- link merged into the trunk, which carries the free joint): under its PD
-- controller it stands on its four feet (trunk upright, above 0.2 m, at
-- rest after 2 s); pushed sideways at 2.5 m/s it falls over (the trunk
-- rolls past 60 degrees).
local m = diagc.jit(diagc.root .. "/examples/robots/a1/a1.lua")

-- the trunk's roll from its quaternion (w x y z at q[4..7])
local function tilt(q)
  local w, x, y, z = q[4], q[5], q[6], q[7]
  return math.acos(math.max(-1, math.min(1, 1 - 2 * (x * x + y * y)))) -- angle of the body z from the vertical
end

test("robots_a1.stands", function()
  local sim = m:simulator()
  sim:advance_to(2.0)
  local q, v = sim.context:get("robot.pos"), sim.context:get("robot.vel")
  -- the free joint's position is from where the urdf item placed it, 0.2687 m up
  assert(0.2687 + q[3] > 0.2, "the trunk sank to " .. 0.2687 + q[3])
  assert(tilt(q) < 0.1, "the trunk tilted by " .. tilt(q))
  for i = 1, 6 do assert(math.abs(v[i]) < 0.05, "the trunk still moves: v[" .. i .. "] = " .. v[i]) end
  local info = sim.context:get("robot.info")
  eq(info[6], 0) -- no step over the LCP work budget
end)

test("robots_a1.falls_over_when_pushed", function()
  local sim = m:simulator()
  local v = sim.context:get("robot.vel")
  v[2] = 2.5 -- sideways, in the world
  sim.context:set("robot.vel", v)
  sim:advance_to(2.0)
  local q = sim.context:get("robot.pos")
  assert(tilt(q) > math.rad(60), "it stayed up: tilt " .. math.deg(tilt(q)) .. " degrees")
  for _, x in ipairs(q) do assert(x == x, "NaN") end
end)
