-- Drake's ExampleDiscreteSystem (the discrete-systems page):
--   x_{n+1} = x_n + 1,  y_n = 10 x_n,  x_0 = 0,  period h = 1/50.
-- `diagc run examples/discrete_counter.lua --until 0.06` prints the samples
-- 0, 10, 20, 30 at t = 0, 0.02, 0.04, 0.06.
local h = 1 / 50

local Counter = leaf "ExampleDiscreteSystem" {
  discrete_state { "x", default = { 0 } },
  output_port { "Sn", size = 1, prerequisites = { "xd" },
    calc = [[ Sn[0] = 10.0 * x[0]; ]] },
  periodic_discrete_update { "update", period = h, offset = 0,
    calc = [[ x_next[0] = x[0] + 1.0; ]] },
}

return diagram "discrete_counter" {
  system { "example", Counter },
  log { "example.Sn", period = h },
}
