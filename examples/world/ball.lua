-- A ball dropped on the ground with restitution 0.8: each bounce leaves
-- at 0.8 times the impact speed, so successive apex heights (above the
-- resting height) scale by 0.8^2 = 0.64.
local r, m = 0.1, 1.0
local arena = world "arena" {
  time_step = 1e-3,
  body { "ground", joint = { "fixed" }, shapes = { { "plane", restitution = 0.8 } } },
  body { "ball", mass = m, inertia = { 0.4 * m * r * r, 0.4 * m * r * r, 0.4 * m * r * r },
    joint = { "free", q = { 0, 0, 1.0 + r, 1, 0, 0, 0 } },
    shapes = { { "sphere", radius = r, restitution = 0.8 } } },
}

return diagram "ball" {
  system { "world", arena },
  log { "world.position", period = 1e-3 },
}
