-- A box on a plane inclined by 20 degrees about the world y axis, so the
-- slope runs along a tangent direction of the contacts.  With friction
-- mu = 0.5 > tan(20 deg) = 0.364 the box sticks; change the pair's
-- friction to 0.2 and it slides down with acceleration g (sin - mu cos).
local theta = math.rad(20)
local h = 0.1      -- half the box's height
local m = 2.0
local function box_inertia(mass, x, y, z)
  return { mass * (y * y + z * z) / 12, mass * (x * x + z * z) / 12, mass * (x * x + y * y) / 12 }
end
-- the box sits on the slope: rotated by theta about y, its centre h above
-- the slope's surface at the origin (outward normal (sin, 0, cos))
local c, s = math.cos(theta / 2), math.sin(theta / 2)
local arena = world "arena" {
  time_step = 1e-3,
  body { "slope", joint = { "fixed", rpy = { 0, theta, 0 } },
    shapes = { { "plane", friction = 0.5 } } },
  body { "box", mass = m, inertia = box_inertia(m, 0.4, 0.4, 2 * h),
    joint = { "free", q = { h * math.sin(theta), 0, h * math.cos(theta), c, 0, s, 0 } },
    shapes = { { "box", size = { 0.4, 0.4, 2 * h }, friction = 0.5 } } },
}

return diagram "incline" {
  system { "world", arena },
  log { "world.position", period = 1e-2 },
}
