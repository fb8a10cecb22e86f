-- Run with: bin/diagc test examples/robots/atlas/atlas_test.lua
-- Atlas imported from its unmodified URDF (zero-radius spheres as point
-- contacts, its massless links merged): it starts on all sixteen sole
-- points, and with joints too weak to balance it topples: the pelvis
-- (placed 0.939 m up) falls below 0.4 m within 1.5 s, its state finite.
local m = diagc.jit(diagc.root .. "/examples/robots/atlas/atlas.lua")

test("robots_atlas.stands_on_its_points_then_topples", function()
  local sim = m:simulator()
  sim:advance_to(0.1)
  eq(sim.context:get("robot.info")[1], 16) -- every sole point touches the ground
  local q = sim.context:get("robot.pos")
  assert(0.939 + q[3] > 0.85, "the pelvis dropped at once to " .. 0.939 + q[3])
  sim:advance_to(1.5)
  q = sim.context:get("robot.pos")
  assert(0.939 + q[3] < 0.4, "the pelvis stayed up at " .. 0.939 + q[3])
  for _, x in ipairs(q) do assert(x == x, "NaN") end
end)
