-- bench/world: a pyramid of 10 cubes of 0.2 m on the ground (friction
-- 0.6), rows of 4, 3, 2 and 1 in the x-z plane, each cube touching its
-- neighbours in the row and resting on the middle of the two below
-- (pyramid_poses in bench/world/box_scenes.h, which world_bench.c checks
-- this spec's initial state against).
local a, m = 0.2, 1.0
local I = m * a * a / 6
-- max_contacts = 160 is set so that the context compares with the stacks';
-- the default would be all 440 slots of the 10 cubes' candidate pairs.
local items = { time_step = 1e-3, friction = 0.6, max_contacts = 160, gradients = false }
items[1] = body { "ground", joint = { "fixed" }, shapes = { { "plane" } } }
for row = 0, 3 do
  for i = 0, 3 - row do
    items[#items + 1] = body { "box" .. #items, mass = m, inertia = { I, I, I },
      joint = { "free", q = { a * (i - (3 - row) / 2), 0, a / 2 + a * row, 1, 0, 0, 0 } },
      shapes = { { "box", size = { a, a, a } } } }
  end
end
return diagram "pyramid" { system { "world", world "pyramid" (items) } }
