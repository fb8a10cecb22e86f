-- expect: diagc: FILE:4: body 'box' mass: 0 kg is below the smallest value allowed, 1e-9 kg (range [1e-9, 1e9] kg)
-- A moving body needs a positive mass.
local W = world "arena" {
  body { "box", mass = 0, inertia = { 1, 1, 1 }, joint = { "free" } },
}
return diagram "top" { system { "w", W } }
