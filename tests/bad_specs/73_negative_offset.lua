-- expect: diagc: FILE:4: periodic_discrete_update offset must be non-negative
local Sampler = leaf "Sampler" {
  discrete_state { "x", default = { 0 } },
  periodic_discrete_update { "sample", period = 0.1, offset = -0.05, prerequisites = { "x" },
    calc = [[ x_next[0] = x[0] + 1.0; ]] },
}
return diagram "top" { system { "s", Sampler } }
