-- expect: diagc: FILE:5: leaf "Printer" already has an event named 'show'
local Printer = leaf "Printer" {
  discrete_state { "n", default = { 0 } },
  periodic_publish { "show", period = 0.1, prerequisites = { "n" }, calc = [[ (void)n; ]] },
  per_step_publish { "show", prerequisites = { "n" }, calc = [[ (void)n; ]] },
}
return diagram "top" { system { "p", Printer } }
