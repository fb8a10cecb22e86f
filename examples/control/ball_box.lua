-- A ball thrown at a box on a table (issue #28, the control engineer's
-- third task), with no C: the world logs each body's pose by name
-- (world.ball.pose, world.box.pose: x y z qw qx qy qz), the table's
-- friction is the world's parameter (`-p world.friction=0.2`), and the
-- throw is the ball's initial velocity (`--state world.ball.vx=5`).
--
--   bin/diagc run examples/control/ball_box.lua --csv out.csv
--   bin/diagc run examples/control/ball_box.lua -p world.friction=0.2 --csv out.csv
--
-- The ball (0.2 kg, radius 5 cm) leaves x = -0.5 m at 1.07 m height with
-- 4 m/s along x, flies 0.21 s, hits the box (1 kg, a 0.2 m cube resting
-- on the table top at 0.75 m) near its centre's height, and the box
-- slides until the table's friction stops it.  ball_box_test.lua checks
-- the flight against its closed form, the box at rest before the hit,
-- the momentum the hit gives it, and its slide against friction.
local TOP = 0.75   -- the table's top (m)
local H = 0.1      -- half the box's side (m)

local function cube_inertia(mass, side)
  local i = mass * side * side / 6
  return { i, i, i }
end

local scene = world "scene" {
  time_step = 1e-3,
  friction = 0.4,
  body { "floor", joint = { "fixed" }, shapes = { { "plane" } } },
  body { "table", joint = { "fixed", xyz = { 0.6, 0, TOP / 2 } },
    shapes = { { "box", size = { 1.2, 0.8, TOP } } } },
  body { "box", mass = 1.0, inertia = cube_inertia(1.0, 2 * H),
    joint = { "free", q = { 0.5, 0, TOP + H, 1, 0, 0, 0 } },
    shapes = { { "box", size = { 2 * H, 2 * H, 2 * H } } } },
  body { "ball", mass = 0.2, inertia = { 2e-4, 2e-4, 2e-4 },
    joint = { "free", q = { -0.5, 0, 1.07, 1, 0, 0, 0 }, v = { 4, 0, 0, 0, 0, 0 } },
    shapes = { { "sphere", radius = 0.05, restitution = 0.5 } } },
}

return diagram "ball_box" {
  system { "world", scene },
  log { "world.ball.pose", period = 0.01 },
  log { "world.box.pose", period = 0.01 },
  log { "world.box.velocity", period = 0.01 },
}
