-- examples/python/cart.lua: a cart on a rail with a pole hanging from it
-- (examples/world/cartpole.lua's world), its force input fixed so that a
-- program (examples/python/trajopt.py) drives it step by step.
local mc, mp, l = 1.0, 0.1, 0.5
local point = 1e-6   -- tiny rotational inertia: the pole is a point mass
local cartpole = world "cartpole" {
  time_step = 1e-2,
  body { "cart", mass = mc, inertia = { 0.01, 0.01, 0.01 },
    joint = { "prismatic", axis = { 1, 0, 0 }, actuated = true } },
  body { "pole", mass = mp, com = { 0, 0, -l }, inertia = { point, point, point },
    joint = { "revolute", parent = "cart", axis = { 0, 1, 0 }, damping = 0.01 } },
}

return diagram "cart" {
  system { "plant", cartpole },
  fix_input { "plant.effort", value = { 0.0 } },
  log { "plant.position", period = 1e-2 },
}
