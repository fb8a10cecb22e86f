-- expect: diagc: FILE:4: leaf "Gain" declares derivatives but no continuous_state
local Gain = leaf "Gain" {
  input_port { "u", size = 1 },
  derivatives { prerequisites = { "u" }, calc = [[ (void)u; ]] },
}
return diagram "top" { system { "g", Gain }, fix_input { "g.u", value = { 1 } } }
