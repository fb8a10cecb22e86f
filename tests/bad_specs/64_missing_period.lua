-- expect: diagc: FILE:4: periodic_discrete_update period must be a finite number, got nil
local Counter = leaf "Counter" {
  discrete_state { "n", default = { 0 } },
  periodic_discrete_update { "tick", prerequisites = { "n" },
    calc = [[ n_next[0] = n[0] + 1.0; ]] },
}
return diagram "top" { system { "c", Counter } }
