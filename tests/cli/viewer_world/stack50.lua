-- tests/cli/viewer_world.sh: 50 cubes of 0.2 m, ten towers of five, each
-- cube a little turned about z and the towers' tops pushed sideways, so
-- that the replay has something to show; logged at 100 Hz.
local a, m = 0.2, 1.0
local I = m * a * a / 6
local items = { time_step = 1e-3, friction = 0.6 }
items[1] = body { "ground", joint = { "fixed" }, shapes = { { "plane" } } }
for tower = 0, 9 do
  for level = 0, 4 do
    local th = 0.05 * ((tower + level) % 3 - 1)
    items[#items + 1] = body { string.format("box%d_%d", tower, level), mass = m, inertia = { I, I, I },
      joint = { "free", q = { 0.35 * (tower % 5) - 0.7, 0.5 * (tower < 5 and -1 or 1), a / 2 + level * a + 0.01 * level,
        math.cos(th / 2), 0, 0, math.sin(th / 2) },
        v = { level == 4 and 0.8 or 0, 0, 0, 0, 0, 0 } },
      shapes = { { "box", size = { a, a, a } } } }
  end
end
return diagram "stack50" {
  system { "world", world "stack50" (items) },
  log { "world.position", period = 1e-2 },
}
