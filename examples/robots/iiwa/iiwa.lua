-- examples/robots/iiwa/iiwa.lua: the KUKA LBR iiwa 14 of Drake's
-- iiwa14_spheres_collision.urdf (unmodified; NOTICE) on a ground plane,
-- its seven joints held at a bent pose by gravity compensation and a PD
-- term.  Set pd.on to 0 and the arm swings down under gravity
-- (examples/robots/iiwa/iiwa_test.lua).  Its glTF visual meshes, drawn by
-- diagc view, are under drake_models/ (package_path = ".").
local Iiwa = world "Iiwa" {
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  urdf { "iiwa14_spheres_collision.urdf", actuated = "all", package_path = ".",
    q = { iiwa_joint_2 = 0.6, iiwa_joint_4 = -1.2, iiwa_joint_6 = 0.5 } },
}

-- gravity compensation (the world's gravity_effort) plus a PD term
local PD = leaf "GravityPD" {
  parameter { "on", default = { 1 } },
  parameter { "kp", default = { 300, 300, 150, 150, 30, 10, 2 } },
  parameter { "kd", default = { 30, 30, 15, 15, 3, 1, 0.2 } },
  parameter { "target", default = { 0, 0.6, 0, -1.2, 0, 0.5, 0 } },
  input_port { "pos", size = 7 },
  input_port { "vel", size = 7 },
  input_port { "gravity", size = 7 },
  output_port { "tau", size = 7, prerequisites = { "pos", "vel", "gravity", "on", "kp", "kd", "target" }, calc = [[
    for (int i = 0; i < 7; i++) tau[i] = on[0] * (gravity[i] + kp[i] * (target[i] - pos[i]) - kd[i] * vel[i]);
  ]] },
}

return diagram "iiwa" {
  system { "arm", Iiwa },
  system { "pd", PD },
  connect { "arm.position", "pd.pos" },
  connect { "arm.velocity", "pd.vel" },
  connect { "arm.gravity_effort", "pd.gravity" },
  connect { "pd.tau", "arm.effort" },
  log { "arm.position", period = 1e-2 },
}
