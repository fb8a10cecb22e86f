-- Run with: bin/diagc test examples/robots/atlas/atlas_test.lua
-- Atlas imported from its unmodified URDF (zero-radius spheres as point
-- contacts, its massless links merged) under its PD controller: it stands
-- on all sixteen sole points for 3 s (the pelvis, placed 0.939 m up,
-- within 5 mm of its height, leaning less than 0.05 rad); pushed forward
-- at 0.5 m/s it falls over (the pelvis below 0.5 m within 3 s; the file
-- gives it contact points only under its feet).
local m = diagc.jit(diagc.root .. "/examples/robots/atlas/atlas.lua")

-- the angle of the pelvis's z axis from the vertical (quaternion w x y z at q[4..7])
local function tilt(q)
  local x, y = q[5], q[6]
  return math.acos(math.max(-1, math.min(1, 1 - 2 * (x * x + y * y))))
end

test("robots_atlas.stands_on_its_sole_points", function()
  local sim = m:simulator()
  for _, t in ipairs({ 1, 2, 3 }) do
    sim:advance_to(t)
    local q = sim.context:get("robot.pos")
    -- every sole point touches the ground: info's first entry counts the
    -- contacts and the joint limit rows in the step (its straight knees
    -- rest on their <limit lower="0">)
    assert(sim.context:get("robot.info")[1] >= 16, "a sole point left the ground")
    assert(math.abs(q[3]) < 5e-3, "the pelvis moved by " .. q[3] .. " m")
    assert(tilt(q) < 0.05, "it leans by " .. tilt(q) .. " rad")
  end
end)

test("robots_atlas.falls_over_when_pushed", function()
  local sim = m:simulator()
  local v = sim.context:get("robot.vel")
  v[1] = 0.5 -- forward, in the world
  sim.context:set("robot.vel", v)
  sim:advance_to(3)
  local q = sim.context:get("robot.pos")
  assert(0.939 + q[3] < 0.5, "the pelvis stayed up at " .. 0.939 + q[3])
  for _, x in ipairs(q) do assert(x == x, "NaN") end
end)
