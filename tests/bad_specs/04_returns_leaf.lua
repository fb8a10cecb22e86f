-- expect: diagc: FILE:2: the spec returns leaf "Counter"; return a diagram that contains it, as in: return diagram "name" { system { "counter", Counter } }
return leaf "Counter" {
  discrete_state { "x", default = { 0 } },
  periodic_discrete_update { period = 0.1, prerequisites = { "x" },
    calc = [[ x_next[0] = x[0] + 1.0; ]] },
}
