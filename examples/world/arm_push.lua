-- A 3-link arm on a fixed base turns about vertical joints (PD to a joint
-- target) and sweeps its links into a box lying on the ground, pushing it.
local link, r = 0.3, 0.03
local function rod(mass, len)  -- a thin rod along x, pivot at its end
  local I = mass * len * len / 12
  return { 1e-4, I, I }
end
local arm = world "arm" {
  time_step = 1e-3,
  friction = 0.4,
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  body { "l1", mass = 1, com = { link / 2, 0, 0 }, inertia = rod(1, link),
    joint = { "revolute", axis = { 0, 0, 1 }, xyz = { 0, 0, 0.1 }, actuated = true },
    shapes = { { "capsule", radius = r, length = link, xyz = { link / 2, 0, 0 }, rpy = { 0, math.pi / 2, 0 } } } },
  body { "l2", mass = 1, com = { link / 2, 0, 0 }, inertia = rod(1, link),
    joint = { "revolute", parent = "l1", axis = { 0, 0, 1 }, xyz = { link, 0, 0 }, actuated = true },
    shapes = { { "capsule", radius = r, length = link, xyz = { link / 2, 0, 0 }, rpy = { 0, math.pi / 2, 0 } } } },
  body { "l3", mass = 1, com = { link / 2, 0, 0 }, inertia = rod(1, link),
    joint = { "revolute", parent = "l2", axis = { 0, 0, 1 }, xyz = { link, 0, 0 }, actuated = true },
    shapes = { { "capsule", radius = r, length = link, xyz = { link / 2, 0, 0 }, rpy = { 0, math.pi / 2, 0 } } } },
  body { "box", mass = 0.5, inertia = { 0.5 * 0.08 / 12, 0.5 * 0.08 / 12, 0.5 * 0.08 / 12 },
    joint = { "free", q = { 0.55, 0.35, 0.1, 1, 0, 0, 0 } },
    shapes = { { "box", size = { 0.2, 0.2, 0.2 } } } },
}

-- joint-space PD to a target: the straight arm turns from 0 to 1.2 rad
local PD = leaf "JointPD" {
  parameter { "kp", default = { 30.0, 20.0, 10.0 } },
  parameter { "kd", default = { 3.0, 2.0, 1.0 } },
  parameter { "target", default = { 1.2, 0.0, 0.0 } },
  input_port { "pos", size = 10 },
  input_port { "vel", size = 9 },
  output_port { "tau", size = 3, prerequisites = { "pos", "vel", "kp", "kd", "target" },
    calc = [[
      for (int i = 0; i < 3; i++)
        tau[i] = kp[i] * (target[i] - pos[i]) - kd[i] * vel[i];
    ]] },
}

return diagram "arm_push" {
  system { "world", arm },
  system { "pd", PD },
  connect { "world.position", "pd.pos" },
  connect { "world.velocity", "pd.vel" },
  connect { "pd.tau", "world.effort" },
  log { "world.position", period = 1e-2 },
}
