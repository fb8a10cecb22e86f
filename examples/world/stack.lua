-- A stack of five 0.2 m cubes resting on the ground: it must stay put.
local n, a, m = 5, 0.2, 1.0
local I = m * a * a / 6
local items = {
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
}
for i = 1, n do
  items[#items + 1] = body { "box" .. i, mass = m, inertia = { I, I, I },
    joint = { "free", q = { 0, 0, a / 2 + (i - 1) * a, 1, 0, 0, 0 } },
    shapes = { { "box", size = { a, a, a } } } }
end
items.time_step = 1e-3
items.friction = 0.6

return diagram "stack" {
  system { "world", world "tower" (items) },
  log { "world.position", period = 1e-2 },
}
