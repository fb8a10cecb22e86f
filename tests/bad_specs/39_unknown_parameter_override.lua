-- expect: diagc: FILE:8: leaf "Gain" (subsystem 'g') has no numeric parameter 'gain'
local Gain = leaf "Gain" {
  parameter { "k", default = { 1.0 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "k", "u" }, calc = [[ y[0] = k[0] * u[0]; ]] },
}
return diagram "top" {
  system { "g", Gain, parameters = { gain = { 2.0 } } },
  fix_input { "g.u", value = { 1 } },
}
