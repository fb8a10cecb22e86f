-- Benchmark model: the damped pendulum of examples/pendulum.lua without
-- loggers (so steps are not limited by log times).
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
  output_port { "angle", size = 1, prerequisites = { "q" }, calc = [[ angle[0] = q[0]; ]] },
}
return diagram "bpend" { system { "pend", Pendulum } }
