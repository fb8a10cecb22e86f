-- expect: diagc: FILE:9: parameter_jacobian 'lg.tau': no subsystem 'lg' in diagram "top"
-- parameter_jacobian paths start at a subsystem of the declaring diagram.
local Lag = leaf "Lag" {
  continuous_state { z = 1 },
  parameter { "tau", default = { 1 } },
  derivatives { prerequisites = { "z", "tau" }, calc = [[ zdot[0] = -z[0] / tau[0]; ]] },
}
return diagram "top" { system { "l", Lag },
  parameter_jacobian { "lg.tau" } }
