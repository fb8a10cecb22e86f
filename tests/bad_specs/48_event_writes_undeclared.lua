-- expect: diagc: FILE:6:39: event 'tick' of leaf "Counter" writes 'total_next', but 'total' is not in its writes {n}; add "total" to writes
local Counter = leaf "Counter" {
  discrete_state { "n", default = { 0 } },
  discrete_state { "total", default = { 0 } },
  periodic_discrete_update { "tick", period = 0.1, writes = { "n" },
    calc = [[ n_next[0] = n[0] + 1.0; total_next[0] = total[0] + n[0]; ]] },
}
return diagram "top" { system { "c", Counter } }
