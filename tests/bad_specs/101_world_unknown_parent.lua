-- expect: diagc: FILE:5: body 'pole': its joint's parent 'kart' is not a body of this world; did you mean 'cart'?
-- A joint's parent is "world" or a body of the same world.
local W = world "cartpole" {
  body { "cart", mass = 1, inertia = { 1, 1, 1 }, joint = { "prismatic", axis = { 1, 0, 0 } } },
  body { "pole", mass = 1, inertia = { 1, 1, 1 }, joint = { "revolute", parent = "kart" } },
}
return diagram "top" { system { "w", W } }
