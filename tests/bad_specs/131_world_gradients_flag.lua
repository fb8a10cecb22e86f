-- expect: diagc: FILE:3: gradients must be true (the step's Jacobians: a grad cache entry, the default) or false (no derivative code: smaller and faster to compile), got no
-- A world's gradients setting is a boolean.
local W = world "arena" { gradients = "no",
  body { "ball", mass = 1, inertia = { 1, 1, 1 }, joint = { "free" }, shapes = { { "sphere", radius = 0.1 } } },
}
return diagram "top" { system { "w", W } }
