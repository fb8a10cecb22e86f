-- examples/robots/atlas/atlas.lua: the Atlas humanoid of Drake's
-- atlas_minimal_contact.urdf (unmodified; NOTICE) on a floating base, its
-- thirty joints held straight by a weak PD controller (the gains a 1 ms
-- explicit step keeps stable for its lightest links), placed with the
-- zero-radius spheres of its soles (point contacts) on the ground.  With no
-- balance controller it stands on its sixteen point contacts for a moment,
-- then topples (examples/robots/atlas/atlas_test.lua).
local Atlas = world "Atlas" {
  gradients = false,
  friction = 1.0,
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  urdf { "atlas_minimal_contact.urdf", base = "free", xyz = { 0, 0, 0.939 }, actuated = "all" },
}

local PD = leaf "PD" {
  parameter { "kp", default = { 100 } },
  parameter { "kd", default = { 0.3 } },
  input_port { "pos", size = 37 },
  input_port { "vel", size = 36 },
  output_port { "tau", size = 30, prerequisites = { "pos", "vel", "kp", "kd" }, calc = [[
    for (int i = 0; i < 30; i++) tau[i] = -kp[0] * pos[7 + i] - kd[0] * vel[6 + i];
  ]] },
}

return diagram "atlas" {
  system { "robot", Atlas },
  system { "pd", PD },
  connect { "robot.position", "pd.pos" },
  connect { "robot.velocity", "pd.vel" },
  connect { "pd.tau", "robot.effort" },
  log { "robot.position", period = 1e-2 },
}
