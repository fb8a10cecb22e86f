-- bench/world: a ball (r = 0.1) dropped from 1 m, restitution 0.8.
local r, m = 0.1, 1.0
return diagram "ball_bounce" { system { "world", world "arena" {
  time_step = 1e-3,
  body { "ground", joint = { "fixed" }, shapes = { { "plane", restitution = 0.8 } } },
  body { "ball", mass = m, inertia = { 0.4 * m * r * r, 0.4 * m * r * r, 0.4 * m * r * r },
    joint = { "free", q = { 0, 0, 1.0 + r, 1, 0, 0, 0 } },
    shapes = { { "sphere", radius = r, restitution = 0.8 } } },
} } }
