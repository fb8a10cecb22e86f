-- examples/robots/panda/panda.lua: the Franka Emika Panda of panda.urdf
-- (unmodified; NOTICE), its joints held at a pose by gravity compensation
-- and a PD term; set pd.on to 0 and it swings down under gravity
-- (examples/robots/panda/panda_test.lua).  Its collision shapes are the
-- file's meshes (convex hulls) and the fingers' boxes; package_path = "."
-- finds the package://example-robot-data/... names in this folder.
local Arm = world "Arm" {
  urdf { "panda.urdf", srdf = "panda.srdf", actuated = "all", package_path = ".",
    q = { panda_joint2 = -0.3, panda_joint4 = -1.8, panda_joint6 = 1.5, panda_joint7 = 0.8,
      panda_finger_joint1 = 0.02, panda_finger_joint2 = 0.02 } },
}

-- gravity compensation (the world's gravity_effort) plus a PD term
local PD = leaf "GravityPD" {
  parameter { "on", default = { 1 } },
  parameter { "kp", default = { 3000, 3000, 1500, 1500, 300, 100, 20, 200, 200 } },
  parameter { "kd", default = { 100, 100, 50, 50, 10, 3, 0.5, 2, 2 } },
  parameter { "target", default = { 0, -0.3, 0, -1.8, 0, 1.5, 0.8, 0.02, 0.02 } },
  input_port { "pos", size = 9 },
  input_port { "vel", size = 9 },
  input_port { "gravity", size = 9 },
  output_port { "tau", size = 9, prerequisites = { "pos", "vel", "gravity", "on", "kp", "kd", "target" }, calc = [[
    for (int i = 0; i < 9; i++) tau[i] = on[0] * (gravity[i] + kp[i] * (target[i] - pos[i]) - kd[i] * vel[i]);
  ]] },
}

return diagram "panda" {
  system { "arm", Arm },
  system { "pd", PD },
  connect { "arm.position", "pd.pos" },
  connect { "arm.velocity", "pd.vel" },
  connect { "arm.gravity_effort", "pd.gravity" },
  connect { "pd.tau", "arm.effort" },
  log { "arm.position", period = 1e-2 },
}
