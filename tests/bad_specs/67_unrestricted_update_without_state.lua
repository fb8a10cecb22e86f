-- expect: diagc: FILE:4: per_step_unrestricted_update in leaf "Gain", which has no state to update
local Gain = leaf "Gain" {
  parameter { "k", default = { 1.0 } },
  per_step_unrestricted_update { "reset", prerequisites = { "k" }, calc = [[ (void)k; ]] },
}
return diagram "top" { system { "g", Gain } }
