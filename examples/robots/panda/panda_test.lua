-- Run with: bin/diagc test examples/robots/panda/panda_test.lua
-- The Franka Emika Panda imported from its unmodified URDF: held by
-- gravity compensation and a PD term it stays near its pose (each joint
-- within 1e-6 rad, at rest after 2 s); with the controller off it swings
-- down under gravity (joint 2 leaves its start by more than 0.3 rad within
-- 1 s); its fingers move as one (the <mimic>).
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

-- the fingers: panda_finger_joint2 mimics panda_finger_joint1 (URDF
-- <mimic>, multiplier 1), so the PD pulling them to 0.035 and 0.025 moves
-- both as one to where its two pulls balance, 0.03 (gravity compensated;
-- kp 200 each), the follower equal to its leader at every step
test("robots_panda.fingers_mimic", function()
  local sim = m:simulator()
  sim.context:set("pd.target", { 0, -0.3, 0, -1.8, 0, 1.5, 0.8, 0.035, 0.025 })
  local worst = 0
  for k = 1, 200 do
    sim:advance_to(k * 0.01)
    local q = sim.context:get("arm.pos")
    worst = math.max(worst, math.abs(q[9] - q[8]))
  end
  assert(worst <= 1e-9, "the follower finger leaves its leader by " .. worst)
  near(sim.context:get("arm.pos")[8], 0.03, { atol = 1e-6 })
end)
