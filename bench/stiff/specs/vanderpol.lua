-- Benchmark model: Van der Pol's oscillator, stiff with mu = 1000:
--   x'' = mu (1 - x^2) x' - x,  x(0) = 2, x'(0) = 0.
local VdP = leaf "VanDerPol" {
  continuous_state { q = { "x" }, v = { "xdot" }, q0 = { 2.0 }, v0 = { 0.0 } },
  parameter { "mu", default = { 1000.0 } },
  derivatives { prerequisites = { "q", "v", "mu" },
    calc = [[ qdot[0] = v[0]; vdot[0] = mu[0] * (1 - q[0] * q[0]) * v[0] - q[0]; ]] },
}
return diagram "svdp" { system { "vdp", VdP } }
