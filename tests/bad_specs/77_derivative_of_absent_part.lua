-- expect: diagc: FILE:10:44: derivatives of leaf "Decay" uses 'qdot', but the leaf has no continuous state q; declare q in its continuous_state or remove the use
-- A z-only leaf placed after a leaf with q and v: 'qdot' would point at the
-- oscillator's slots.  It does not exist in the Decay leaf's calc.
local Osc = leaf "Osc" {
  continuous_state { q = 1, v = 1, q0 = { 1 } },
  derivatives { calc = [[ qdot[0] = v[0]; vdot[0] = -q[0]; ]] },
}
local Decay = leaf "Decay" {
  continuous_state { z = 1, z0 = { 1 } },
  derivatives { calc = [[ zdot[0] = -z[0]; qdot[0] = 99.0; ]] },
}
return diagram "top" { system { "osc", Osc }, system { "d", Decay } }
