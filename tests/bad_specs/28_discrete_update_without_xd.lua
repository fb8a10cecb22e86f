-- expect: diagc: FILE:4: periodic_discrete_update in leaf "Clock", which has no discrete_state to update
local Clock = leaf "Clock" {
  parameter { "rate", default = { 1 } },
  periodic_discrete_update { "tick", period = 0.1, prerequisites = { "rate" },
    calc = [[ (void)rate; ]] },
}
return diagram "top" { system { "c", Clock } }
