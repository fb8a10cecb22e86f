-- Run with: bin/diagc test examples/world/arm_push_test.lua
-- The 3-link arm turns to its target and pushes the box: the box moves
-- away from the arm's base, stays on the ground (its centre at half its
-- height, upright), the arm's first joint ends near its target, and every
-- step's contact problem solves within the LCP budget.
local m = diagc.jit(diagc.root .. "/examples/world/arm_push.lua")

test("world_arm_push.pushes_the_box", function()
  local sim = m:simulator()
  local q0 = sim.context:get("world.pos")
  sim:advance_to(2.0)
  local q = sim.context:get("world.pos")
  -- q: three joint angles, then the box's x y z qw qx qy qz
  local r0 = math.sqrt(q0[4] ^ 2 + q0[5] ^ 2)
  local r1 = math.sqrt(q[4] ^ 2 + q[5] ^ 2)
  local moved = math.sqrt((q[4] - q0[4]) ^ 2 + (q[5] - q0[5]) ^ 2)
  assert(moved > 0.05, "the box moved only " .. moved .. " m")
  assert(r1 >= r0 - 1e-3, "the box moved towards the base")
  near(q[6], 0.1, { atol = 1e-3 })
  -- upright: the rotation stays about the vertical (qx, qy small)
  assert(math.abs(q[8]) < 0.02 and math.abs(q[9]) < 0.02, "the box tipped over")
  near(q[1], 1.2, { atol = 0.1 })
  local info = sim.context:get("world.info")
  eq(info[6], 0) -- no step over the LCP work budget
  eq(info[7], 0) -- no contact dropped
  for _, x in ipairs(q) do assert(x == x, "NaN") end
end)
