-- A reference source, a PID controller and a plant (mass with damping),
-- nested three levels deep: root -> controller -> law -> p, i, d, sum.
--   plant:  m x'' = u - c x'
--   PID:    u = kp e + ki ∫e + kd de/dt (derivative through a first-order
--           filter with time constant tau)

local Reference = leaf "Step" {
  parameter { "amplitude", default = { 1.0 } },
  parameter { "start", default = { 0.1 } },
  output_port { "r", size = 1, prerequisites = { "time", "amplitude", "start" },
    calc = [[ r[0] = (t >= start[0]) ? amplitude[0] : 0.0; ]] },
}

local Subtract = leaf "Subtract" {
  input_port { "a", size = 1 },
  input_port { "b", size = 1 },
  output_port { "y", size = 1, prerequisites = { "a", "b" },
    calc = [[ y[0] = a[0] - b[0]; ]] },
}

local Gain = leaf "Gain" {
  parameter { "k", default = { 1.0 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "k", "u" },
    calc = [[ y[0] = k[0] * u[0]; ]] },
}

local Integrator = leaf "Integrator" {
  continuous_state { z = 1 },
  parameter { "k", default = { 1.0 } },
  input_port { "u", size = 1 },
  derivatives { prerequisites = { "u" }, calc = [[ zdot[0] = u[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z", "k" },
    calc = [[ y[0] = k[0] * z[0]; ]] },
}

local FilteredDerivative = leaf "FilteredDerivative" {
  continuous_state { z = 1 },
  parameter { "k", default = { 1.0 } },
  parameter { "tau", default = { 0.01 } },
  input_port { "u", size = 1 },
  derivatives { prerequisites = { "z", "u", "tau" },
    calc = [[ zdot[0] = (u[0] - z[0]) / tau[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z", "u", "k", "tau" },
    calc = [[ y[0] = k[0] * (u[0] - z[0]) / tau[0]; ]] },
}

local Sum3 = leaf "Sum3" {
  input_port { "a", size = 1 },
  input_port { "b", size = 1 },
  input_port { "c", size = 1 },
  output_port { "y", size = 1, prerequisites = { "all_input_ports" },
    calc = [[ y[0] = a[0] + b[0] + c[0]; ]] },
}

local Law = diagram "pid_law" {
  system { "p", Gain, parameters = { k = { 40.0 } } },
  system { "i", Integrator, parameters = { k = { 20.0 } } },
  system { "d", FilteredDerivative, parameters = { k = { 8.0 } } },
  system { "sum", Sum3 },
  export_input { "p.u", "i.u", "d.u", as = "e" },
  connect { "p.y", "sum.a" },
  connect { "i.y", "sum.b" },
  connect { "d.y", "sum.c" },
  export_output { "sum.y", as = "u" },
}

local Controller = diagram "pid_controller" {
  system { "err", Subtract },
  system { "law", Law },
  export_input { "err.a", as = "r" },
  export_input { "err.b", as = "y" },
  connect { "err.y", "law.e" },
  export_output { "law.u", as = "u" },
}

local Plant = leaf "MassDamper" {
  continuous_state { q = { "x" }, v = { "xdot" } },
  parameter { "mass", default = { 1.0 } },
  parameter { "damping", default = { 2.0 } },
  input_port { "u", size = 1 },
  derivatives { prerequisites = { "v", "u", "mass", "damping" },
    calc = [[
      qdot[0] = v[0];
      vdot[0] = (u[0] - damping[0] * v[0]) / mass[0];
    ]] },
  output_port { "y", size = 1, prerequisites = { "q" }, calc = [[ y[0] = q[0]; ]] },
}

return diagram "pid_plant" {
  system { "ref", Reference },
  system { "controller", Controller },
  system { "plant", Plant },
  connect { "ref.r", "controller.r" },
  connect { "plant.y", "controller.y" },
  connect { "controller.u", "plant.u" },
  export_output { "plant.y", as = "position" },
  log { "ref.r", period = 0.01 },
  log { "plant.y", period = 0.01 },
  log { "controller.u", period = 0.01 },
}
