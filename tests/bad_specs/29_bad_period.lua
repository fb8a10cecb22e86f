-- expect: diagc: FILE:4: periodic_discrete_update period must be positive, got 0
local Counter = leaf "Counter" {
  discrete_state { "n", default = { 0 } },
  periodic_discrete_update { "tick", period = 0, prerequisites = { "n" },
    calc = [[ n_next[0] = n[0] + 1.0; ]] },
}
return diagram "top" { system { "c", Counter } }
