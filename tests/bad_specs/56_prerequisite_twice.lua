-- expect: diagc: FILE:5: prerequisite 'k' is listed twice
local Gain = leaf "Gain" {
  parameter { "k", default = { 1.0 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "k", "u", "k" },
    calc = [[ y[0] = k[0] * u[0]; ]] },
}
return diagram "top" { system { "g", Gain }, fix_input { "g.u", value = { 1 } } }
