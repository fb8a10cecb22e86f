-- examples/robots/a1/a1.lua: the Unitree A1 of a1.urdf (unmodified; NOTICE)
-- on a floating base, standing on its four sphere feet on a ground plane,
-- its twelve joints held by a PD controller.  Its self-collision pairs
-- follow a1.srdf (and the adjacent links; `diagc info` lists them).  Set
-- an initial sideways speed of the trunk (robot.vel) and it falls over
-- (examples/robots/a1/a1_test.lua).
local STAND = { 0, 0.9, -1.8 }
local q = {}
for _, leg in ipairs({ "FR", "FL", "RR", "RL" }) do
  q[leg .. "_hip_joint"], q[leg .. "_thigh_joint"], q[leg .. "_calf_joint"] = STAND[1], STAND[2], STAND[3]
end

local A1 = world "A1" {
  friction = 0.8,
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  -- the feet (radius 0.02) touch the ground: 0.2 cos 0.9 + 0.2 cos 0.9 + 0.02 below the trunk
  urdf { "a1.urdf", base = "free", xyz = { 0, 0, 0.2687 }, srdf = "a1.srdf", actuated = "all", q = q },
}

local PD = leaf "PD" {
  parameter { "kp", default = { 80 } },
  parameter { "kd", default = { 2 } },
  parameter { "target", default = { 0, 0.9, -1.8, 0, 0.9, -1.8, 0, 0.9, -1.8, 0, 0.9, -1.8 } },
  input_port { "pos", size = 19 },
  input_port { "vel", size = 18 },
  output_port { "tau", size = 12, prerequisites = { "pos", "vel", "kp", "kd", "target" }, calc = [[
    for (int i = 0; i < 12; i++) tau[i] = kp[0] * (target[i] - pos[7 + i]) - kd[0] * vel[6 + i];
  ]] },
}

return diagram "a1" {
  system { "robot", A1 },
  system { "pd", PD },
  connect { "robot.position", "pd.pos" },
  connect { "robot.velocity", "pd.vel" },
  connect { "pd.tau", "robot.effort" },
  log { "robot.position", period = 1e-2 },
}
