-- expect: diagc: FILE:4: body 'a' closes a kinematic loop (a -> b -> c); a world is a tree: every body has one parent and no body is its own ancestor
-- Bodies form a tree: following parents must reach the world.
local W = world "loop" {
  body { "a", mass = 1, inertia = { 1, 1, 1 }, joint = { "revolute", parent = "b" } },
  body { "b", mass = 1, inertia = { 1, 1, 1 }, joint = { "revolute", parent = "c" } },
  body { "c", mass = 1, inertia = { 1, 1, 1 }, joint = { "revolute", parent = "a" } },
}
return diagram "top" { system { "w", W } }
