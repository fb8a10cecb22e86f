-- A digital PI controller at 100 Hz driving a mass-spring-damper plant
-- sampled at 1 kHz: the example of `diagc deploy` (docs/executor.md).
--
--   plant:       m x'' = u - c x' - k x,  y = x  (continuous; its 1 kHz
--                periodic publish is the rate at which it runs when deployed)
--   controller:  e = r - y;  I += h e;  u = kp e + ki I   (sample and hold, h = 10 ms)
--
-- `diagc run examples/deploy_controller_plant.lua --until 2` simulates the
-- whole diagram (the ideal, zero-latency reference).
-- `diagc deploy examples/deploy_controller_plant.lua --run --duration 2`
-- deploys it: each direct subsystem of the root diagram (controller, plant)
-- becomes one model with its own context and mutually exclusive callback
-- group; each connection becomes a topic named after its source port
-- ("plant.y", "controller.u"); the models run on the executor in real time
-- and the app prints latency figures and the final outputs.
local h = 0.01

local PI = leaf "DigitalPI" {
  parameter { "r", default = { 1.0 } },
  parameter { "kp", default = { 10.0 } },
  parameter { "ki", default = { 12.0 } },
  discrete_state { "integral", default = { 0.0 } },
  discrete_state { "u_held", default = { 0.0 } },
  input_port { "y", size = 1 },
  output_port { "u", size = 1, prerequisites = { "xd" }, calc = [[ u[0] = u_held[0]; ]] },
  periodic_discrete_update { "control", period = h,
    prerequisites = { "y", "r", "kp", "ki", "xd" }, writes = { "integral", "u_held" },
    calc = [[
      double e = r[0] - y[0];
      integral_next[0] = integral[0] + 0.01 * e;
      u_held_next[0] = kp[0] * e + ki[0] * integral_next[0];
    ]] },
}

local Plant = leaf "MassSpringDamper" {
  continuous_state { q = { "x" }, v = { "xdot" } },
  parameter { "mass", default = { 1.0 } },
  parameter { "damping", default = { 6.0 } },
  parameter { "stiffness", default = { 5.0 } },
  input_port { "u", size = 1 },
  derivatives { prerequisites = { "q", "v", "u", "mass", "damping", "stiffness" },
    calc = [[
      qdot[0] = v[0];
      vdot[0] = (u[0] - damping[0] * v[0] - stiffness[0] * q[0]) / mass[0];
    ]] },
  output_port { "y", size = 1, prerequisites = { "q" }, calc = [[ y[0] = q[0]; ]] },
  periodic_publish { "sample", period = 0.001, prerequisites = { "q" }, calc = [[ (void)q; ]] },
}

return diagram "deploy_controller_plant" {
  system { "controller", PI },
  system { "plant", Plant },
  connect { "plant.y", "controller.y" },
  connect { "controller.u", "plant.u" },
  export_output { "plant.y", as = "position" },
  log { "plant.y", period = h },
  log { "controller.u", period = h },
}
