-- expect: diagc: FILE:4: body 'box' joint q[3..6] {1, 0, 0.10000000000000001, 0} is not a unit quaternion (norm 1.004987562112089); give {w, x, y, z} with w^2 + x^2 + y^2 + z^2 = 1
-- A free joint's orientation starts as a unit quaternion.
local W = world "arena" {
  body { "box", mass = 1, inertia = { 1, 1, 1 },
    joint = { "free", q = { 0, 0, 1, 1, 0, 0.1, 0 } } },
}
return diagram "top" { system { "w", W } }
