-- expect: diagc: FILE:4: leaf "Cart" declares continuous_state twice; declare q, v and z in one continuous_state
local Cart = leaf "Cart" {
  continuous_state { q = { "x" } },
  continuous_state { v = { "xdot" } },
  derivatives { prerequisites = { "v" }, calc = [[ qdot[0] = v[0]; vdot[0] = 0.0; ]] },
}
return diagram "top" { system { "c", Cart } }
