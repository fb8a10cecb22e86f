-- A damped spring-mass:  m x'' = f - k x - c x'
return leaf "SpringMass" {
  continuous_state { q = { "x" }, v = { "xdot" }, q0 = { 1.0 }, v0 = { 0.0 } },
  parameter { "mass", default = { 1.0 } },
  parameter { "stiffness", default = { 4.0 } },
  parameter { "damping", default = { 0.4 } },
  input_port { "f", size = 1 },

  derivatives {
    prerequisites = { "q", "v", "f", "mass", "stiffness", "damping" },
    calc = [[
      qdot[0] = v[0];
      vdot[0] = (f[0] - stiffness[0] * q[0] - damping[0] * v[0]) / mass[0];
    ]],
  },

  output_port { "position", size = 1, prerequisites = { "q" },
    calc = [[ position[0] = q[0]; ]] },
}
