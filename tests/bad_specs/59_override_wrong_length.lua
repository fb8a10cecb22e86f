-- expect: diagc: FILE:8: parameter 'k' has 2 values but the size is 1
local Gain = leaf "Gain" {
  parameter { "k", default = { 1.0 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "k", "u" }, calc = [[ y[0] = k[0] * u[0]; ]] },
}
return diagram "top" {
  system { "g", Gain, parameters = { k = { 1.0, 2.0 } } },
  fix_input { "g.u", value = { 1 } },
}
