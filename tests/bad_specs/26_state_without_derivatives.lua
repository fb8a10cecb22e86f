-- expect: diagc: FILE:2: leaf "Mass" has continuous state but no derivatives { calc = ... }
local Mass = leaf "Mass" {
  continuous_state { q = { "x" }, v = { "xdot" } },
  output_port { "y", size = 1, prerequisites = { "q" }, calc = [[ y[0] = q[0]; ]] },
}
return diagram "top" { system { "m", Mass } }
