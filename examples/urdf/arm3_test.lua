-- Run with: bin/diagc test examples/urdf/arm3_test.lua
-- The arm imported from arm3.urdf under its PD controller: it settles
-- (joint velocities below 1e-3 rad/s after 5 s) within 0.2 rad of its
-- target (the joints sag under gravity by about tau_g / kp).
local m = diagc.jit(diagc.root .. "/examples/urdf/arm3.lua")

test("urdf_arm3.settles_near_target", function()
  local sim = m:simulator()
  sim:advance_to(5.0)
  local q, v = sim.context:get("arm.pos"), sim.context:get("arm.vel")
  local target = { 0.6, -1.0, 0.4 }
  for i = 1, 3 do
    assert(math.abs(v[i]) < 1e-3, "joint " .. i .. " still moves: " .. v[i])
    assert(math.abs(q[i] - target[i]) < 0.2, "joint " .. i .. " far from its target: " .. q[i])
    assert(q[i] == q[i], "NaN")
  end
end)
