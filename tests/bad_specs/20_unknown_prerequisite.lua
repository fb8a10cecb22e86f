-- expect: diagc: FILE:5: unknown prerequisite 'gian' in leaf "Gain"; did you mean 'gain'?
local Gain = leaf "Gain" {
  parameter { "gain", default = { 2.0 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u", "gian" },
    calc = [[ y[0] = gain[0] * u[0]; ]] },
}
return diagram "top" { system { "g", Gain }, fix_input { "g.u", value = { 1 } } }
