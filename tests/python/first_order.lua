-- tests/python: a first-order plant x' = -a x + b u, y = c x with an
-- exported input and output and a parameter Jacobian in a: linearized,
-- A = -a, B = b, C = c, D = 0; d xdot / d a = -x.
local Plant = leaf "FirstOrder" {
  continuous_state { z = { "x" }, z0 = { 2.0 } },
  parameter { "a", default = { 3.0 } },
  parameter { "b", default = { 0.5 } },
  parameter { "c", default = { 4.0 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "z", "c" }, calc = [[ y[0] = c[0] * z[0]; ]] },
  derivatives { prerequisites = { "z", "a", "b", "u" },
    calc = [[ zdot[0] = -a[0] * z[0] + b[0] * u[0]; ]] },
}
return diagram "first_order" {
  system { "plant", Plant },
  export_input { "plant.u", as = "u" },
  export_output { "plant.y", as = "y" },
  parameter_jacobian { "plant.a" },
  log { "plant.y", period = 0.1 },
}
