-- A damped pendulum:  theta'' = -(g/l) sin(theta) - b theta'
-- Continuous state q = theta, v = omega; parameters length, gravity, damping.
local Pendulum = leaf "Pendulum" {
  continuous_state { q = { "theta" }, v = { "omega" }, q0 = { 0.5 }, v0 = { 0.0 } },
  parameter { "length", default = { 1.0 } },
  parameter { "gravity", default = { 9.81 } },
  parameter { "damping", default = { 0.1 } },

  derivatives {
    prerequisites = { "q", "v", "length", "gravity", "damping" },
    calc = [[
      qdot[0] = v[0];
      vdot[0] = -(gravity[0] / length[0]) * sin(q[0]) - damping[0] * v[0];
    ]],
  },
  -- energy per unit mass
  potential_energy {
    prerequisites = { "q", "length", "gravity" },
    calc = [[ pe[0] = gravity[0] * length[0] * (1.0 - cos(q[0])); ]],
  },
  kinetic_energy {
    prerequisites = { "v", "length" },
    calc = [[ ke[0] = 0.5 * length[0] * length[0] * v[0] * v[0]; ]],
  },

  output_port { "angle", size = 1, prerequisites = { "q" },
    calc = [[ angle[0] = q[0]; ]] },
  output_port { "energy", size = 1, prerequisites = { "pe", "ke" },
    calc = [[ energy[0] = pe[0] + ke[0]; ]] },
}

return diagram "pendulum" {
  system { "pend", Pendulum },
  export_output { "pend.angle", as = "theta" },
  log { "pend.angle", period = 0.01 },
  log { "pend.energy", period = 0.01 },
}
