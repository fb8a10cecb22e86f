-- examples/robots/ur5/ur5.lua: the Universal Robots UR5 of ur5_robot.urdf
-- (unmodified; NOTICE), its joints held at a pose by gravity compensation
-- and a PD term; set pd.on to 0 and it swings down under gravity
-- (examples/robots/ur5/ur5_test.lua).  Its collision shapes are the
-- file's STL meshes, each collided as its convex hull; package_path = "."
-- finds their package://example-robot-data/... names in this folder.
local Arm = world "Arm" {
  urdf { "ur5_robot.urdf", srdf = "ur5.srdf", actuated = "all", package_path = ".",
    q = { shoulder_lift_joint = -1.0, elbow_joint = 1.2 } },
}

-- gravity compensation (the world's gravity_effort) plus a PD term
local PD = leaf "GravityPD" {
  parameter { "on", default = { 1 } },
  parameter { "kp", default = { 4000, 4000, 2000, 200, 200, 50 } },
  parameter { "kd", default = { 150, 150, 60, 5, 5, 1 } },
  parameter { "target", default = { 0, -1.0, 1.2, 0, 0, 0 } },
  input_port { "pos", size = 6 },
  input_port { "vel", size = 6 },
  input_port { "gravity", size = 6 },
  output_port { "tau", size = 6, prerequisites = { "pos", "vel", "gravity", "on", "kp", "kd", "target" }, calc = [[
    for (int i = 0; i < 6; i++) tau[i] = on[0] * (gravity[i] + kp[i] * (target[i] - pos[i]) - kd[i] * vel[i]);
  ]] },
}

return diagram "ur5" {
  system { "arm", Arm },
  system { "pd", PD },
  connect { "arm.position", "pd.pos" },
  connect { "arm.velocity", "pd.vel" },
  connect { "arm.gravity_effort", "pd.gravity" },
  connect { "pd.tau", "arm.effort" },
  log { "arm.position", period = 1e-2 },
}
