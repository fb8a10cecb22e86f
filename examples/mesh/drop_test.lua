-- Run with: bin/diagc test examples/mesh/drop_test.lua
-- The crate of drop.lua (a mesh hull) lands on the wedge (a mesh hull) and
-- stays on its slope: turned by the slope's angle about x, at rest (it
-- moves less than 1e-6 m from 1 s to 2 s).
local m = diagc.jit(diagc.root .. "/examples/mesh/drop.lua")

test("mesh_drop.crate_rests_on_the_wedge_slope", function()
  local sim = m:simulator()
  sim:advance_to(1.0)
  local q1 = sim.context:get("world.pos")
  sim:advance_to(2.0)
  local q2 = sim.context:get("world.pos")
  for i = 1, 3 do near(q2[i], q1[i], { atol = 1e-6 }) end
  -- turned about x by the slope's angle, atan(0.3 / 0.4)
  local angle = 2 * math.atan2(math.abs(q2[5]), q2[4])
  near(angle, math.atan(0.3 / 0.4), { atol = 1e-3 })
  eq(sim.context:get("world.info")[2], 0)
end)
