-- expect: diagc: FILE:10: parameter_jacobian 'l.u': leaf "Lag" has no numeric parameter 'u'
-- parameter_jacobian names numeric parameters only (issue #16 item 3).
local Lag = leaf "Lag" {
  continuous_state { z = 1 },
  parameter { "tau", default = { 1 } },
  input_port { "u", size = 1 },
  derivatives { prerequisites = { "z", "u", "tau" }, calc = [[ zdot[0] = (u[0] - z[0]) / tau[0]; ]] },
}
return diagram "top" { system { "l", Lag }, fix_input { "l.u", value = { 1 } },
  parameter_jacobian { "l.u" } }
