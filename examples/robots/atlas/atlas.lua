-- examples/robots/atlas/atlas.lua: the Atlas humanoid of Drake's
-- atlas_minimal_contact.urdf (unmodified; NOTICE) on a floating base,
-- standing on the zero-radius spheres of its soles (sixteen point
-- contacts), its thirty joints held straight by a PD controller.  Stiff
-- legs and back (an ankle stiffer than the body's m g h, about 1 500
-- N m/rad, keeps it upright), light gains on the arms, wrists and neck
-- (their links are light: an explicit damping kd with kd dt / I above 2
-- would not be stable at 1 ms).  It stands; pushed, it falls over: with no
-- balance controller it is a statue (examples/robots/atlas/atlas_test.lua).
local Atlas = world "Atlas" {
  friction = 1.0,
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  -- the soles' points (0.862 + 0.07645 m below the pelvis) on the ground
  urdf { "atlas_minimal_contact.urdf", base = "free", xyz = { 0, 0, 0.939 }, actuated = "all" },
}

-- the joints in tree order (diagc info): back bkz bky bkx; left arm shz shx
-- ely elx uwy mwx lwy; neck ay; right arm (7); left leg hpz hpx hpy kny aky
-- akx; right leg (6)
local function join(...)
  local out = {}
  for _, list in ipairs({ ... }) do
    for _, x in ipairs(list) do out[#out + 1] = x end
  end
  return out
end
local ARM_KP, ARM_KD = { 300, 300, 300, 300, 20, 20, 20 }, { 1, 1, 1, 1, 0.05, 0.05, 0.05 }
local LEG_KP, LEG_KD = { 5000, 5000, 5000, 5000, 5000, 5000 }, { 10, 10, 10, 10, 3, 3 }
local PD = leaf "PD" {
  parameter { "kp", default = join({ 5000, 5000, 5000 }, ARM_KP, { 20 }, ARM_KP, LEG_KP, LEG_KP) },
  parameter { "kd", default = join({ 10, 10, 10 }, ARM_KD, { 0.05 }, ARM_KD, LEG_KD, LEG_KD) },
  input_port { "pos", size = 37 },
  input_port { "vel", size = 36 },
  output_port { "tau", size = 30, prerequisites = { "pos", "vel", "kp", "kd" }, calc = [[
    for (int i = 0; i < 30; i++) tau[i] = -kp[i] * pos[7 + i] - kd[i] * vel[6 + i];
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
