-- expect: diagc: FILE:5: periodic_discrete_update cannot write 'count'; it may write n, m
local Counter = leaf "Counter" {
  discrete_state { "n", default = { 0 } },
  discrete_state { "m", default = { 0 } },
  periodic_discrete_update { "tick", period = 0.1, prerequisites = { "n" }, writes = { "count" },
    calc = [[ n_next[0] = n[0] + 1.0; ]] },
}
return diagram "top" { system { "c", Counter } }
