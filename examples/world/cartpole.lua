-- A cart on a rail (prismatic joint along x) carrying a pole hanging from
-- a revolute joint about y, under a PD controller that moves the cart to
-- x = 1 m.  The pole's mass sits at its tip, l below the pivot.
local mc, mp, l = 1.0, 0.1, 0.5
local point = 1e-6   -- tiny rotational inertia: the pole is a point mass
local cartpole = world "cartpole" {
  time_step = 1e-3,
  body { "cart", mass = mc, inertia = { 0.01, 0.01, 0.01 },
    joint = { "prismatic", axis = { 1, 0, 0 }, actuated = true } },
  body { "pole", mass = mp, com = { 0, 0, -l }, inertia = { point, point, point },
    joint = { "revolute", parent = "cart", axis = { 0, 1, 0 }, damping = 0.01, q = { 0.3 } } },
}

local PD = leaf "PD" {
  parameter { "kp", default = { 20.0 } },
  parameter { "kd", default = { 9.0 } },
  parameter { "target", default = { 1.0 } },
  input_port { "pos", size = 2 },
  input_port { "vel", size = 2 },
  output_port { "force", size = 1, prerequisites = { "pos", "vel", "kp", "kd", "target" },
    calc = [[ force[0] = kp[0] * (target[0] - pos[0]) - kd[0] * vel[0]; ]] },
}

return diagram "cartpole" {
  system { "plant", cartpole },
  system { "pd", PD },
  connect { "plant.position", "pd.pos" },
  connect { "plant.velocity", "pd.vel" },
  connect { "pd.force", "plant.effort" },
  log { "plant.position", period = 1e-2 },
}
