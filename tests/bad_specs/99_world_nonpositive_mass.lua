-- expect: diagc: FILE:4: body 'box' mass must be positive, got 0
-- A moving body needs a positive mass.
local W = world "arena" {
  body { "box", mass = 0, inertia = { 1, 1, 1 }, joint = { "free" } },
}
return diagram "top" { system { "w", W } }
