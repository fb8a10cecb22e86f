-- expect: diagc: FILE:4: body 'box' box size[1]: -0.5 m is below the smallest value allowed, 1e-6 m (range [1e-6, 1e6] m)
-- Shape sizes are positive.
local W = world "arena" {
  body { "box", mass = 1, inertia = { 1, 1, 1 }, joint = { "free" },
    shapes = { { "box", size = { 1, -0.5, 1 } } } },
}
return diagram "top" { system { "w", W } }
