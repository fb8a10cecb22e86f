-- examples/urdf/arm3.lua: the 3-link arm of arm3.urdf, imported into a world
-- on a ground plane: shoulder, elbow and wrist actuated (input port effort,
-- 3 torques), held by a PD controller at a bent pose.
local Arm = world "Arm" {
  gravity = { 0, 0, -9.81 },
  time_step = 1e-3,
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  urdf { "arm3.urdf", base = "fixed", xyz = { 0, 0, 0.02 }, actuated = "all", friction = 0.8 },
}

local PD = leaf "PD" {
  parameter { "kp", default = { 40, 20, 5 } },
  parameter { "kd", default = { 4, 2, 0.5 } },
  parameter { "target", default = { 0.6, -1.0, 0.4 } },
  input_port { "pos", size = 3 },
  input_port { "vel", size = 3 },
  output_port { "tau", size = 3, prerequisites = { "pos", "vel", "kp", "kd", "target" }, calc = [[
    for (int i = 0; i < 3; i++) tau[i] = kp[i] * (target[i] - pos[i]) - kd[i] * vel[i];
  ]] },
}

return diagram "arm3" {
  system { "arm", Arm },
  system { "pd", PD },
  connect { "arm.position", "pd.pos" },
  connect { "arm.velocity", "pd.vel" },
  connect { "pd.tau", "arm.effort" },
  log { "arm.position", period = 1e-2 },
}
