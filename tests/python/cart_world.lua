-- tests/python: the cart-pole world of examples/world/cartpole.lua alone,
-- its effort input fixed (so Python can drive it), for the step, its
-- Jacobians and reverse mode.
local mc, mp, l = 1.0, 0.1, 0.5
local point = 1e-6
local cartpole = world "cartpole" {
  time_step = 1e-3,
  body { "cart", mass = mc, inertia = { 0.01, 0.01, 0.01 },
    joint = { "prismatic", axis = { 1, 0, 0 }, actuated = true } },
  body { "pole", mass = mp, com = { 0, 0, -l }, inertia = { point, point, point },
    joint = { "revolute", parent = "cart", axis = { 0, 1, 0 }, damping = 0.01, q = { 0.3 } } },
}
return diagram "cart_world" {
  system { "plant", cartpole },
  fix_input { "plant.effort", value = { 0.5 } },
  log { "plant.position", period = 1e-2 },
}
