-- Run with: bin/diagc test examples/robots/panda/panda_test.lua
-- The Franka Emika Panda imported from its unmodified URDF: held by
-- gravity compensation and a PD term it stays near its pose (each joint
-- within 1e-6 rad, at rest after 2 s); with the controller off it swings
-- down under gravity (joint 2 leaves its start by more than 0.3 rad within
-- 1 s).
local m = diagc.jit(diagc.root .. "/examples/robots/panda/panda.lua")
local TARGET = { 0, -0.3, 0, -1.8, 0, 1.5, 0.8, 0.02, 0.02 }

test("robots_panda.holds_its_pose", function()
  local sim = m:simulator()
  eq(sim.context:get("arm.pos"), TARGET) -- the urdf item's q by joint name
  sim:advance_to(2.0)
  local q, v = sim.context:get("arm.pos"), sim.context:get("arm.vel")
  for i = 1, #TARGET do
    assert(math.abs(q[i] - TARGET[i]) < 1e-6, "joint " .. i .. " sagged to " .. q[i])
    assert(math.abs(v[i]) < 1e-2, "joint " .. i .. " still moves: " .. v[i])
  end
end)

test("robots_panda.swings_down_without_control", function()
  local sim = m:simulator()
  sim.context:set("pd.on", 0)
  sim:advance_to(1.0)
  local q = sim.context:get("arm.pos")
  assert(math.abs(q[2] - TARGET[2]) > 0.3, "joint 2 stayed at " .. q[2])
  for _, x in ipairs(q) do assert(x == x, "NaN") end
end)
