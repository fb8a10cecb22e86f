-- expect: diagc: FILE:6:36: output port 'y' of leaf "Z" uses 'q', but the leaf has no continuous state q; declare q in its continuous_state or remove the use
local Z = leaf "Z" {
  continuous_state { z = 1 },
  derivatives { calc = [[ zdot[0] = 0.0; ]] },
  output_port { "y", size = 1, prerequisites = { "all_sources" },
    calc = [[ y[0] = z[0]; y[0] += q[0]; ]] },
}
return diagram "top" { system { "z", Z } }
