-- A mass on a spring:  m x'' = -k x,  k = 1, m = 1, x(0) = 1, v(0) = 0,
-- so x(t) = cos(t sqrt(k/m)).  Position logged every 10 ms as spring.x.
local SpringMass = leaf "SpringMass" {
  continuous_state { q = { "position" }, v = { "velocity" }, q0 = { 1.0 }, v0 = { 0.0 } },
  parameter { "stiffness", default = { 1.0 } },
  parameter { "mass", default = { 1.0 } },

  derivatives {
    prerequisites = { "q", "v", "stiffness", "mass" },
    calc = [[
      qdot[0] = v[0];
      vdot[0] = -(stiffness[0] / mass[0]) * q[0];
    ]],
  },
  potential_energy {
    prerequisites = { "q", "stiffness" },
    calc = [[ pe[0] = 0.5 * stiffness[0] * q[0] * q[0]; ]],
  },
  kinetic_energy {
    prerequisites = { "v", "mass" },
    calc = [[ ke[0] = 0.5 * mass[0] * v[0] * v[0]; ]],
  },

  output_port { "x", size = 1, prerequisites = { "q" }, calc = [[ x[0] = q[0]; ]] },
  output_port { "energy", size = 1, prerequisites = { "pe", "ke" },
    calc = [[ energy[0] = pe[0] + ke[0]; ]] },
}

return diagram "spring_mass" {
  system { "spring", SpringMass },
  log { "spring.x", period = 0.01 },
}
