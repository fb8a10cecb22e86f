-- expect: diagc: FILE:5: body 'bad': inertia {1, 1, 1, 2, 0, 0} is not positive definite; give the rotational inertia about the centre of mass (all principal moments > 0)
-- The rotational inertia must be symmetric positive definite.
local W = world "arena" {
  body { "box", mass = 1, inertia = { 1, 1, 1 }, joint = { "free" } },
  body { "bad", mass = 1, inertia = { 1, 1, 1, 2, 0, 0 }, joint = { "revolute", parent = "box" } },
}
return diagram "top" { system { "w", W } }
