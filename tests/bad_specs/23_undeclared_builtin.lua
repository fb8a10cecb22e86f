-- expect: diagc: FILE:5: prerequisite 'pe' names a value leaf "Mass" does not declare; declare potential_energy { calc = ... } in the leaf or remove it
local Mass = leaf "Mass" {
  continuous_state { q = { "x" }, v = { "xdot" } },
  derivatives { prerequisites = { "v" }, calc = [[ qdot[0] = v[0]; vdot[0] = 0.0; ]] },
  output_port { "energy", size = 1, prerequisites = { "pe" }, calc = [[ energy[0] = pe[0]; ]] },
}
return diagram "top" { system { "m", Mass } }
