-- expect: diagc: FILE:6: derivatives jacobian must be "exact" (the default: the body is differentiated) or "finite_difference" (central differences of the calc); got "fd"
-- A calc's Jacobian mode is one of two words (issue #16 item 1).
local Lag = leaf "Lag" {
  continuous_state { z = 1 },
  input_port { "u", size = 1 },
  derivatives { prerequisites = { "z", "u" }, jacobian = "fd",
    calc = [[ zdot[0] = u[0] - z[0]; ]] },
}
return diagram "top" { system { "l", Lag }, fix_input { "l.u", value = { 1 } } }
