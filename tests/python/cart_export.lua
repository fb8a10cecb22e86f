-- tests/python: cart_world.lua with its effort an exported input (force),
-- for the batch's VJP, whose input gradients are the exported inputs'.
local mc, mp, l = 1.0, 0.1, 0.5
local point = 1e-6
local cartpole = world "cartpole" {
  time_step = 1e-3,
  body { "cart", mass = mc, inertia = { 0.01, 0.01, 0.01 },
    joint = { "prismatic", axis = { 1, 0, 0 }, actuated = true } },
  body { "pole", mass = mp, com = { 0, 0, -l }, inertia = { point, point, point },
    joint = { "revolute", parent = "cart", axis = { 0, 1, 0 }, damping = 0.01, q = { 0.3 } } },
}
return diagram "cart_export" {
  system { "plant", cartpole },
  export_input { "plant.effort", as = "force" },
  log { "plant.position", period = 1e-2 },
}
